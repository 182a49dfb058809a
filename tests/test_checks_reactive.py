"""The chapter 07 checks pass the package's functions, fail stubs, and reject known-wrong answers."""

from __future__ import annotations

import anthropic
from check_cases import check_tests

from compaction.api_errors import is_prompt_too_long
from compaction.course.checks import reactive as checks
from compaction.messages import is_tool_result_message
from compaction.reactive import pair_safe_tail

# ------------------------------------------------------------ known-wrong answers


def too_long_any_400(error):
    """Wrong: every 400 is taken for an over-long prompt."""
    return isinstance(error, anthropic.BadRequestError)


def too_long_by_words(error):
    """Wrong: the words alone, whatever the error."""
    return "prompt is too long" in str(error)


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
    if is_tool_result_message(messages[start]):
        start -= 1
    return messages[start:]


CASES = [
    (
        checks.check_is_prompt_too_long,
        is_prompt_too_long,
        [too_long_any_400, too_long_by_words, too_long_forgets_413],
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
