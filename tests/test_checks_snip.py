"""Chapter 03's checks pass right answers and reject stubs and known-wrong answers."""

from __future__ import annotations

from compaction.course.checks import snip as checks
from compaction.snip import snip_cuts

# ---------------------------------------------------------------- right answers, as a learner writes them


def safe_cut_points(messages):
    cuts = []
    for c in range(1, len(messages)):
        before = messages[c - 1]
        asks = (
            before["role"] == "assistant"
            and isinstance(before["content"], list)
            and any(b.get("type") == "tool_use" for b in before["content"])
        )
        if not asks:
            cuts.append(c)
    return cuts


def learner_snip_cuts(messages, *, max_messages=50, keep_head=3):
    n = len(messages)
    if n <= max_messages:
        return n, n
    head = max(1, keep_head)
    while head < n and messages[head - 1]["role"] != "user":
        head += 1
    tail = max(head, n - (max_messages - head))
    while tail < n and messages[tail]["role"] != "assistant":
        tail += 1
    return head, tail


def stub(*args, **kwargs):
    raise NotImplementedError


# ---------------------------------------------------------------- known-wrong answers


def every_index_is_safe(messages):
    return list(range(1, len(messages)))


def safe_when_the_next_message_has_no_results(messages):
    return [c for c in range(1, len(messages)) if not isinstance(messages[c]["content"], list)]


def fixed_cuts(messages, *, max_messages=50, keep_head=3):
    """The naive slice: head and tail at fixed indexes, a tool pair may be split."""
    n = len(messages)
    if n <= max_messages:
        return n, n
    return keep_head, n - (max_messages - keep_head)


def seed_style_cuts(messages, *, max_messages=50, keep_head=3):
    """Moves the tail back one step only, and never looks at the head's last message."""
    n = len(messages)
    if n <= max_messages:
        return n, n
    tail = n - (max_messages - keep_head)
    if messages[tail]["role"] == "user":
        tail -= 1
    return keep_head, tail


def test_the_reference_answers_pass():
    assert checks.check_safe_cut_points(safe_cut_points).passed
    assert checks.check_snip_cuts(snip_cuts).passed
    report = checks.check_snip_cuts(learner_snip_cuts)
    assert report.passed, str(report)


def test_stubs_fail():
    assert not checks.check_safe_cut_points(stub).passed
    assert not checks.check_snip_cuts(stub).passed


def test_safe_cut_points_rejects_cuts_that_split_a_pair():
    assert not checks.check_safe_cut_points(every_index_is_safe).passed
    assert not checks.check_safe_cut_points(safe_when_the_next_message_has_no_results).passed


def test_snip_cuts_rejects_a_snip_that_splits_a_pair():
    assert not checks.check_snip_cuts(fixed_cuts).passed
    assert not checks.check_snip_cuts(seed_style_cuts).passed
