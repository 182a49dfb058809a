"""Chapters 05 and 08's checks pass right answers and reject stubs and known-wrong answers."""

from __future__ import annotations

import pytest

from compaction.budget import tool_result_budget
from compaction.course.checks import pipeline as checks
from compaction.micro import micro_compact
from compaction.pipeline import run_cheap_layers
from compaction.prompt_cache import cache_breaks as package_breaks
from compaction.snip import snip_compact
from compaction.triggers import CircuitBreaker
from compaction.triggers import summary_threshold as package_threshold

# ---------------------------------------------------------------- right answers, as a learner writes them


def cache_breaks(requests):
    breaks = []
    for i in range(1, len(requests)):
        before, now = requests[i - 1], requests[i]
        kept = 0
        while kept < min(len(before), len(now)) and before[kept] == now[kept]:
            kept += 1
        if kept < len(before):
            breaks.append((i, kept))
    return breaks


def cheap_layers(
    messages, *, store, max_chars=200_000, max_messages=50, keep_head=3, keep_recent=3, min_chars=120
):
    messages = tool_result_budget(messages, max_chars=max_chars, store=store)
    messages = snip_compact(messages, max_messages=max_messages, keep_head=keep_head)
    return micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)


def summary_threshold(context_window, reserve_output=None, buffer=None):
    if reserve_output is None:
        reserve_output = min(20_000, context_window // 10)
    if buffer is None:
        buffer = min(13_000, round(13_000 * context_window / 200_000))
    left = context_window - reserve_output - buffer
    if left <= 0:
        raise ValueError("no room left")
    return left


class Breaker:
    def __init__(self, max_failures=3):
        self.max_failures, self.failures = max_failures, 0

    @property
    def is_open(self):
        return self.failures >= self.max_failures

    def record(self, success):
        self.failures = 0 if success else self.failures + 1


def stub(*args, **kwargs):
    raise NotImplementedError


class StubBreaker:
    def __init__(self, max_failures=3):
        raise NotImplementedError


# ---------------------------------------------------------------- known-wrong answers


def every_change_is_a_break(requests):
    """Counts appends too: any request that differs from the one before."""
    return [(i, 0) for i in range(1, len(requests)) if requests[i] != requests[i - 1]]


def micro_before_budget(
    messages, *, store, max_chars=200_000, max_messages=50, keep_head=3, keep_recent=3, min_chars=120
):
    """The wrong order: a large output becomes a placeholder before budget could save it."""
    messages = micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)
    messages = tool_result_budget(messages, max_chars=max_chars, store=store)
    return snip_compact(messages, max_messages=max_messages, keep_head=keep_head)


def fixed_buffer(context_window, reserve_output=None, buffer=None):
    """Claude Code's constants on every window: an 8K window has no room left."""
    reserve_output = 20_000 if reserve_output is None else reserve_output
    buffer = 13_000 if buffer is None else buffer
    left = context_window - reserve_output - buffer
    if left <= 0:
        raise ValueError("no room left")
    return left


class NeverOpens(Breaker):
    @property
    def is_open(self):
        return False


class CountsAllFailures(Breaker):
    def record(self, success):
        self.failures += 0 if success else 1


# ---------------------------------------------------------------- the checks


@pytest.mark.parametrize(
    ("check", "right", "wrongs"),
    [
        (checks.check_cache_breaks, cache_breaks, [every_change_is_a_break]),
        (checks.check_cheap_layers, cheap_layers, [micro_before_budget]),
        (checks.check_summary_threshold, summary_threshold, [fixed_buffer]),
        (checks.check_circuit_breaker, Breaker, [NeverOpens, CountsAllFailures]),
    ],
    ids=["cache_breaks", "cheap_layers", "summary_threshold", "circuit_breaker"],
)
def test_each_check_passes_the_right_answer_and_rejects_known_wrong_ones(check, right, wrongs):
    assert check(right).passed, str(check(right))
    for wrong in wrongs:
        assert not check(wrong).passed, f"{wrong.__name__} should fail"


@pytest.mark.parametrize(
    ("check", "unfinished"),
    [
        (checks.check_cache_breaks, stub),
        (checks.check_cheap_layers, stub),
        (checks.check_summary_threshold, stub),
        (checks.check_circuit_breaker, StubBreaker),
    ],
)
def test_an_untouched_stub_fails_every_case(check, unfinished):
    report = check(unfinished)
    assert not report.passed
    assert all(not r.passed for r in report.results)


def test_the_package_passes_its_own_checks():
    assert checks.check_cache_breaks(package_breaks).passed
    assert checks.check_cheap_layers(run_cheap_layers).passed
    assert checks.check_summary_threshold(package_threshold).passed
    assert checks.check_circuit_breaker(CircuitBreaker).passed


def test_micro_before_budget_loses_the_large_output_named_in_the_report():
    report = checks.check_cheap_layers(micro_before_budget)
    failed = {r.name: r.detail for r in report.failures}
    assert "nowhere on disk" in failed["a large output is on disk before it leaves"]
