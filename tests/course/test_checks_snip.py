"""Chapter 04's checks: right answers written differently pass; stubs and known-wrong answers fail."""

from __future__ import annotations

import pytest

from compaction.core.messages import blocks, has_tool_use, is_tool_result_message, text
from compaction.core.tokens import estimate_tokens
from compaction.course.checks import snip as checks
from compaction.layers.snip import snip_compact, snip_cuts, snip_placeholder, user_words
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, written differently


def snip(messages, max_messages=50, keep_head=3):
    """The chapter's version."""
    n = len(messages)
    if n <= max_messages:
        return list(messages)
    head = max(1, keep_head)
    while head < n and messages[head - 1]["role"] != "user":
        head += 1
    tail = max(head, n - (max_messages - head))
    while tail < n and messages[tail]["role"] != "assistant":
        tail += 1
    if tail <= head:
        return list(messages)
    note = text(f"[snip] {tail - head} earlier messages were removed from the middle of this conversation.")
    last = messages[head - 1]
    return [*messages[: head - 1], {**last, "content": [*blocks(last), note]}, *messages[tail:]]


def snip_from_safe_cuts(messages, max_messages=50, keep_head=3):
    """Chooses both cuts from the list of safe cut points."""
    n = len(messages)
    if n <= max_messages:
        return list(messages)
    safe = [c for c in range(1, n + 1) if messages[c - 1]["role"] == "user"]
    head = next(c for c in safe if c >= max(1, keep_head))
    tail = next(
        (c for c in range(max(head, n - max_messages + head), n) if messages[c]["role"] == "assistant"), n
    )
    if tail <= head:
        return list(messages)
    kept_head = [dict(m) for m in messages[:head]]
    kept_head[-1]["content"] = blocks(messages[head - 1]) + [text(snip_placeholder(tail - head))]
    return kept_head + messages[tail:]


def snip_tokens_by_search(messages, max_tokens, keep_head=3, method="tiktoken"):
    if estimate_tokens(messages, method) <= max_tokens:
        return list(messages)
    n, head = len(messages), max(1, keep_head)
    while head < n and messages[head - 1]["role"] != "user":
        head += 1
    starts = [i for i in range(head, n) if messages[i]["role"] == "assistant"]
    if not starts:
        return list(messages)
    fits = [i for i in starts if estimate_tokens(messages[:head] + messages[i:], method) <= max_tokens]
    tail = fits[0] if fits else starts[-1]
    if tail <= head:
        return list(messages)
    last = messages[head - 1]
    return [
        *messages[: head - 1],
        {**last, "content": [*blocks(last), text(snip_placeholder(tail - head))]},
        *messages[tail:],
    ]


def keeping_request_with_package_cuts(messages, max_messages=50, keep_head=3):
    head, tail = snip_cuts(messages, max_messages=max_messages, keep_head=keep_head)
    if tail <= head:
        return list(messages)
    words = [(i, user_words(m)) for i, m in enumerate(messages) if user_words(m)]
    index, request = words[-1] if words else (None, "")
    quote = request if index is not None and head <= index < tail else None
    last = messages[head - 1]
    return [
        *messages[: head - 1],
        {**last, "content": [*blocks(last), text(snip_placeholder(tail - head, quote))]},
        *messages[tail:],
    ]


# ---------------------------------------------------------------- known-wrong answers


def sliced(messages, max_messages=50, keep_head=3):
    if len(messages) <= max_messages:
        return list(messages)
    return messages[:keep_head] + messages[len(messages) - (max_messages - keep_head) :]


def seed_snip(messages, max_messages=50, keep_head=3):
    if len(messages) <= max_messages:
        return list(messages)
    head, tail = keep_head, len(messages) - (max_messages - keep_head)
    if has_tool_use(messages[head - 1]):
        while head < len(messages) and is_tool_result_message(messages[head]):
            head += 1
    if is_tool_result_message(messages[tail]) and has_tool_use(messages[tail - 1]):
        tail -= 1
    return (
        messages[:head] + [{"role": "user", "content": f"[snipped {tail - head} messages]"}] + messages[tail:]
    )


def placeholder_as_own_message(messages, max_messages=50, keep_head=3):
    head, tail = snip_cuts(messages, max_messages=max_messages - 1, keep_head=keep_head)
    if tail <= head:
        return list(messages)
    return [*messages[:head], {"role": "user", "content": snip_placeholder(tail - head)}, *messages[tail:]]


def tail_from_keep_head(messages, max_messages=50, keep_head=3):
    """Computes the tail from keep_head, not from where the head ended: one pair too many."""
    n = len(messages)
    if n <= max_messages:
        return list(messages)
    head = max(1, keep_head)
    while head < n and messages[head - 1]["role"] != "user":
        head += 1
    tail = max(head, n - (max_messages - keep_head))
    while tail < n and messages[tail]["role"] != "assistant":
        tail += 1
    if tail <= head:
        return list(messages)
    last = messages[head - 1]
    return [
        *messages[: head - 1],
        {**last, "content": [*blocks(last), text(snip_placeholder(tail - head))]},
        *messages[tail:],
    ]


def placeholder_before_results(messages, max_messages=50, keep_head=3):
    out = snip(messages, max_messages, keep_head)
    if out == list(messages):
        return out
    head = next(
        i for i, m in enumerate(out) if any(b.get("text", "").startswith("[snip]") for b in blocks(m))
    )
    content = blocks(out[head])
    out[head] = {**out[head], "content": [content[-1], *content[:-1]]}
    return out


def tokens_by_message_count(messages, max_tokens, keep_head=3, method="tiktoken"):
    per = max(1, estimate_tokens(messages, method) // max(1, len(messages)))
    return snip(messages, max(keep_head + 2, max_tokens // per), keep_head)


def tokens_without_head(messages, max_tokens, keep_head=3, method="tiktoken"):
    head = max(1, keep_head)
    while head < len(messages) and messages[head - 1]["role"] != "user":
        head += 1
    return (
        checks.snip_to_tokens_reference(
            messages, max_tokens + estimate_tokens(messages[:head], method), keep_head, method
        )
        if estimate_tokens(messages, method) > max_tokens
        else list(messages)
    )


def tokens_strict(messages, max_tokens, keep_head=3, method="tiktoken"):
    return checks.snip_to_tokens_reference(messages, max_tokens - 1, keep_head, method)


def tokens_tail_fit_strict(messages, max_tokens, keep_head=3, method="tiktoken"):
    """< where the tail fit needs <=: a tail that fills the budget exactly is dropped."""
    if estimate_tokens(messages, method) <= max_tokens:
        return list(messages)
    n, head = len(messages), max(1, keep_head)
    while head < n and messages[head - 1]["role"] != "user":
        head += 1
    starts = [i for i in range(head, n) if messages[i]["role"] == "assistant"]
    if not starts:
        return list(messages)
    used, tail = estimate_tokens(messages[:head], method), starts[-1]
    for i in reversed(starts):
        if used + estimate_tokens(messages[i:], method) >= max_tokens:
            break
        tail = i
    if tail <= head:
        return list(messages)
    last = messages[head - 1]
    return [
        *messages[: head - 1],
        {**last, "content": [*blocks(last), text(snip_placeholder(tail - head))]},
        *messages[tail:],
    ]


def tokens_dropping_the_current_turn(messages, max_tokens, keep_head=3, method="tiktoken"):
    """When no tail fits, keeps the head alone: the newest turn goes too."""
    out = checks.snip_to_tokens_reference(messages, max_tokens, keep_head, method)
    head = max(1, keep_head)
    while head < len(messages) and messages[head - 1]["role"] != "user":
        head += 1
    starts = [i for i in range(head, len(messages)) if messages[i]["role"] == "assistant"]
    newest = estimate_tokens(messages[:head], method) + estimate_tokens(messages[starts[-1] :], method)
    if starts and newest > max_tokens:
        last = messages[head - 1]
        note = text(snip_placeholder(len(messages) - head))
        return [*messages[: head - 1], {**last, "content": [*blocks(last), note]}]
    return out


def never_quotes(messages, max_messages=50, keep_head=3):
    return snip(messages, max_messages, keep_head)


def quotes_the_first_request(messages, max_messages=50, keep_head=3):
    head, tail = snip_cuts(messages, max_messages=max_messages, keep_head=keep_head)
    if tail <= head:
        return list(messages)
    words = [(i, user_words(m)) for i, m in enumerate(messages) if i and user_words(m)]
    index, request = words[0] if words else (None, "")
    quote = request if index is not None and head <= index < tail else None
    last = messages[head - 1]
    return [
        *messages[: head - 1],
        {**last, "content": [*blocks(last), text(snip_placeholder(tail - head, quote))]},
        *messages[tail:],
    ]


def quotes_always(messages, max_messages=50, keep_head=3):
    """Quotes the newest request even when the snip kept it."""
    head, tail = snip_cuts(messages, max_messages=max_messages, keep_head=keep_head)
    if tail <= head:
        return list(messages)
    words = [user_words(m) for m in messages if user_words(m)]
    last = messages[head - 1]
    note = text(snip_placeholder(tail - head, words[-1] if words else None))
    return [*messages[: head - 1], {**last, "content": [*blocks(last), note]}, *messages[tail:]]


CASES = [
    (
        checks.check_snip,
        snip_compact,
        [sliced, seed_snip, placeholder_as_own_message, tail_from_keep_head, placeholder_before_results],
    ),
    (
        checks.check_snip_to_tokens,
        checks.snip_to_tokens_reference,
        [
            tokens_by_message_count,
            tokens_without_head,
            tokens_strict,
            tokens_tail_fit_strict,
            tokens_dropping_the_current_turn,
        ],
    ),
    (
        checks.check_snip_keeping_request,
        checks.snip_keeping_request_reference,
        [never_quotes, quotes_the_first_request, quotes_always],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (checks.check_snip, snip),
        (checks.check_snip, snip_from_safe_cuts),
        (checks.check_snip_to_tokens, snip_tokens_by_search),
        (checks.check_snip_keeping_request, keeping_request_with_package_cuts),
    ],
    ids=["snip", "snip_from_safe_cuts", "snip_tokens_by_search", "keeping_request_with_package_cuts"],
)
def test_a_right_answer_written_differently_passes(check, answer):
    report = check(answer)
    assert report.passed, str(report)


def test_the_seed_is_told_it_keeps_too_many_messages():
    row = checks.check_snip(seed_snip).failures[0]
    assert "messages kept, more than max_messages" in row.detail


def test_text_before_results_is_named_as_the_broken_rule():
    rows = checks.check_snip(placeholder_before_results).failures
    assert any("breaks 'tool_result_not_first' at message" in r.detail for r in rows)


def test_a_strict_tail_fit_fails_the_exact_fit_row_only():
    rows = checks.check_snip_to_tokens(tokens_tail_fit_strict).failures
    assert [r.name for r in rows] == ["a tail that fills the budget exactly is kept (<=, not <)"], rows
    assert "exactly the budget: an exact fit is kept" in rows[0].detail, rows[0].detail


def test_the_request_reference_is_the_package_on_a_first_snip():
    for _, session in checks._sessions():
        for s in (session, checks.with_requests(session)):
            for m, h in checks.GRID:
                want = snip_compact(s, max_messages=m, keep_head=h)
                assert checks.snip_keeping_request_reference(s, max_messages=m, keep_head=h) == want


def test_quoting_a_kept_request_is_named_as_the_rule_broken():
    rows = checks.check_snip_keeping_request(quotes_always).failures
    assert rows and all("the request was kept, so don't quote it again" in r.detail for r in rows), rows
    assert not any("first difference at character" in r.detail for r in rows)


def test_a_dropped_request_left_unquoted_is_named():
    rows = checks.check_snip_keeping_request(never_quotes).failures
    assert rows and all("quote the newest request when it goes" in r.detail for r in rows), rows
    rows = checks.check_snip_keeping_request(quotes_the_first_request).failures
    assert any("quote the newest request, message" in r.detail for r in rows), rows


def test_a_tail_that_does_not_fit_is_told_head_and_tail_must_fit():
    rows = checks.check_snip_to_tokens(tokens_without_head).failures
    assert rows and any("head and tail together must fit" in r.detail for r in rows), rows
    assert not any("first difference at character" in r.detail for r in rows)


def test_a_budget_nothing_fits_is_told_to_keep_the_newest_turn_not_the_earliest_fit():
    rows = {r.name: r.detail for r in checks.check_snip_to_tokens(tokens_dropping_the_current_turn).failures}
    tiny = rows["a tiny budget keeps the newest turn"]
    assert "max_tokens=10," in tiny and "no tail fits" in tiny, tiny
    assert "keep the tail from the newest assistant message anyway" in tiny, tiny
    assert "earliest start that fits" not in tiny and "fits too" not in tiny, tiny
