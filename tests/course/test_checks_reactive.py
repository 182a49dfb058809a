"""The chapter 09 checks pass the package's functions, fail stubs, and reject known-wrong answers."""

from __future__ import annotations

import re

import anthropic
from check_cases import check_tests

from compaction.core.api_errors import is_prompt_too_long, tokens_over
from compaction.core.messages import is_tool_result_message
from compaction.core.tokens import estimate_tokens
from compaction.core.transcript import write_transcript
from compaction.course.checks import reactive as checks
from compaction.layers.reactive import pair_safe_tail, reactive_compact
from compaction.layers.summarize import summary_message

# ------------------------------------------------------------ known-wrong answers


def too_long_any_400(error):
    """Wrong: every 400 is taken for an over-long prompt."""
    return isinstance(error, anthropic.BadRequestError)


def too_long_by_words(error):
    """Wrong: the words alone, whatever the error."""
    return "prompt is too long" in str(error)


def too_long_forgets_the_context_limit(error):
    """Wrong: only "prompt is too long" and 413; the input + max_tokens refusal is missed."""
    if not isinstance(error, anthropic.APIStatusError):
        return False
    return error.status_code == 413 or (error.status_code == 400 and "prompt is too long" in str(error))


def too_long_any_context_words(error):
    """Wrong: any 400 that mentions the context limit, whatever it says."""
    if not isinstance(error, anthropic.APIStatusError):
        return False
    text = str(error).lower()
    return error.status_code == 413 or (
        error.status_code == 400 and ("prompt is too long" in text or "context limit" in text)
    )


def too_long_by_message_field(error):
    """Right, another way: the parsed body's message, and a tuple of the two openings."""
    if not isinstance(error, anthropic.APIStatusError):
        return False
    if error.status_code == 413:
        return True
    message = (getattr(error, "body", None) or {}).get("error", {}).get("message", "")
    return error.status_code == 400 and message.startswith(
        ("prompt is too long", "input length and `max_tokens` exceed context limit")
    )


def too_long_forgets_413(error):
    """Wrong: only the 400 form."""
    return isinstance(error, anthropic.BadRequestError) and "prompt is too long" in str(error)


def tail_naive_slice(messages, keep):
    """Wrong: the last keep messages, even when they start with an orphan tool_result."""
    return messages[-keep:]


def tail_steps_forward(messages, keep):
    """Wrong: skips a leading tool_result forward, keeping fewer than keep messages."""
    start = max(1, len(messages) - keep)
    while start < len(messages) and messages[start]["role"] == "user":
        start += 1
    return messages[start:]


def tail_only_skips_results(messages, keep):
    """Wrong: steps back over a tool_result but lets the tail start with the user's text."""
    start = max(1, len(messages) - keep)
    if start < len(messages) and is_tool_result_message(messages[start]):
        start -= 1
    return messages[start:]


def package_reactive(messages, *, client, transcript_dir, **options):
    """The package's reactive layer with the chapter's signature."""
    return reactive_compact(messages, client=client, transcript_dir=transcript_dir, **options)


def reactive_written_differently(messages, *, client, transcript_dir, **options):
    """Right, another way: keep 3, the cut found by walking back, the package's summary message."""
    start = max(1, len(messages) - 3)
    while messages[start]["role"] != "assistant":
        start -= 1
    path = write_transcript(messages, transcript_dir)
    return [
        summary_message(messages[:start], transcript=path, client=client, restore=False),
        *messages[start:],
    ]


def reactive_naive_tail(messages, *, client, transcript_dir, **options):
    """Wrong: the last 4 messages, even when they start with tool results."""
    path = write_transcript(messages, transcript_dir)
    return [summary_message(messages[:-4], transcript=path, client=client, restore=False), *messages[-4:]]


def reactive_transcript_of_head_only(messages, *, client, transcript_dir, **options):
    """Wrong: only the summarized head goes to the transcript."""
    start = pair_safe_tail(messages, 4)
    head = messages[: len(messages) - len(start)]
    path = write_transcript(head, transcript_dir)
    return [summary_message(head, transcript=path, client=client, restore=False), *start]


def reactive_strips_thinking(messages, *, client, transcript_dir, **options):
    """Wrong: drops thinking blocks from the tail to save tokens."""
    out = package_reactive(messages, client=client, transcript_dir=transcript_dir)
    return [
        out[0],
        *[
            {**m, "content": [b for b in m["content"] if b.get("type") != "thinking"]}
            if isinstance(m["content"], list)
            else m
            for m in out[1:]
        ],
    ]


def reactive_summary_after_tail(messages, *, client, transcript_dir, **options):
    """Wrong: the summary goes after the tail."""
    out = package_reactive(messages, client=client, transcript_dir=transcript_dir)
    return [*out[1:], out[0]]


def within_by_count(messages, max_tokens):
    """Wrong: ignores the budget and keeps the package's 5-message tail."""
    return pair_safe_tail(messages, 5)


def within_first_fit_from_end(messages, max_tokens):
    """Wrong: the shortest tail that fits, not the longest."""
    for start in range(len(messages) - 1, 0, -1):
        if (
            messages[start]["role"] == "assistant"
            and estimate_tokens(messages[start:], "tiktoken") <= max_tokens
        ):
            return messages[start:]
    return []


def within_strict(messages, max_tokens):
    """Wrong: < instead of <=, a tail of exactly the budget is refused."""
    for start in range(1, len(messages)):
        if (
            messages[start]["role"] == "assistant"
            and estimate_tokens(messages[start:], "tiktoken") < max_tokens
        ):
            return messages[start:]
    return []


def within_from_zero(messages, max_tokens):
    """Wrong: may return the whole list (index 0), leaving nothing to summarize."""
    if estimate_tokens(messages, "tiktoken") <= max_tokens:
        return list(messages)
    return checks.tail_within(messages, max_tokens)


def within_by_running_sum(messages, max_tokens):
    """Right, another way: grow the tail from the end, remember the last assistant start that fit."""
    best = []
    for start in range(len(messages) - 1, 0, -1):
        tail = messages[start:]
        if estimate_tokens(tail, "tiktoken") > max_tokens:
            break
        if messages[start]["role"] == "assistant":
            best = list(tail)
    return best


def over_forgets_the_context_limit(error):
    """Wrong: reads only "prompt is too long: N tokens > M maximum"."""
    if not isinstance(error, anthropic.BadRequestError):
        return None
    found = re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", str(error))
    return int(found[1]) - int(found[2]) if found else None


def over_forgets_the_answer_room(error):
    """Wrong: for the context limit, N - W, as if max_tokens did not count."""
    if not isinstance(error, anthropic.BadRequestError):
        return None
    text = str(error)
    if found := re.search(r"prompt is too long: (\d+) tokens > (\d+) maximum", text):
        return int(found[1]) - int(found[2])
    if found := re.search(r"exceed context limit: (\d+) \+ (\d+) > (\d+)", text):
        return int(found[1]) - int(found[3])
    return None


def over_any_status(error):
    """Wrong: reads the numbers from any exception's text."""
    text = str(error)
    if found := re.search(r"(\d+) tokens > (\d+) maximum", text):
        return int(found[1]) - int(found[2])
    if found := re.search(r"(\d+) \+ (\d+) > (\d+)", text):
        return int(found[1]) + int(found[2]) - int(found[3])
    return None


def over_by_numbers_in_order(error):
    """Right, another way: all numbers of the message, by which wording it starts with."""
    if not isinstance(error, anthropic.BadRequestError):
        return None
    message = error.body["error"]["message"]
    numbers = [int(n) for n in re.findall(r"\d+", message)]
    if message.startswith("prompt is too long") and len(numbers) >= 2:
        return numbers[0] - numbers[1]
    if message.startswith("input length and `max_tokens` exceed context limit") and len(numbers) >= 3:
        return numbers[0] + numbers[1] - numbers[2]
    return None


CASES = [
    (
        checks.check_tokens_over,
        tokens_over,
        [over_forgets_the_context_limit, over_forgets_the_answer_room, over_any_status],
    ),
    (
        checks.check_reactive_layer,
        package_reactive,
        [
            reactive_naive_tail,
            reactive_transcript_of_head_only,
            reactive_strips_thinking,
            reactive_summary_after_tail,
        ],
    ),
    (
        checks.check_tail_within,
        checks.tail_within,
        [within_by_count, within_first_fit_from_end, within_strict, within_from_zero],
    ),
    (
        checks.check_is_prompt_too_long,
        is_prompt_too_long,
        [
            too_long_any_400,
            too_long_by_words,
            too_long_forgets_413,
            too_long_forgets_the_context_limit,
            too_long_any_context_words,
        ],
    ),
    (
        checks.check_pair_safe_tail,
        pair_safe_tail,
        [tail_naive_slice, tail_steps_forward, tail_only_skips_results],
    ),
]


test_each_check_passes_the_package_and_fails_a_stub, test_each_check_rejects_known_wrong_answers = (
    check_tests(CASES)
)


def test_a_naive_tail_is_rejected_for_its_orphan_result_by_name():
    report = checks.check_pair_safe_tail(tail_naive_slice)
    assert any("tool_result" in r.detail for r in report.failures)


def test_a_strict_comparison_is_named_as_the_boundary_case():
    report = checks.check_tail_within(within_strict)
    assert any("boundary case" in r.detail and "<=" in r.detail for r in report.failures)


def test_right_answers_written_differently_pass():
    assert checks.check_is_prompt_too_long(too_long_by_message_field).passed
    assert checks.check_reactive_layer(reactive_written_differently).passed
    assert checks.check_tail_within(within_by_running_sum).passed
    assert checks.check_tokens_over(over_by_numbers_in_order).passed
