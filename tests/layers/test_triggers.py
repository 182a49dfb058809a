"""When the pipeline acts: the summary threshold and the circuit breaker."""

from __future__ import annotations

import pytest

from compaction.layers.triggers import CircuitBreaker, default_reserve, summary_threshold


def test_claude_codes_window_leaves_167000_tokens_before_a_summary():
    assert summary_threshold(200_000) == 167_000


def test_a_small_window_keeps_room_in_proportion():
    assert default_reserve(8_000) == 800
    assert summary_threshold(8_000) == 8_000 - 800 - 520


def test_negative_or_oversized_reserves_are_refused_by_name():
    with pytest.raises(ValueError, match="buffer"):
        summary_threshold(8_000, buffer=-1)
    with pytest.raises(ValueError, match="context_window"):
        summary_threshold(0)


def test_the_breaker_opens_on_the_third_consecutive_failure():
    breaker = CircuitBreaker()
    states = []
    for outcome in (False, False, False):
        breaker.record(outcome)
        states.append(breaker.is_open)
    assert states == [False, False, True]


def test_a_success_resets_the_count_of_consecutive_failures():
    breaker = CircuitBreaker(max_failures=2)
    for outcome in (False, True, False, True, False):
        breaker.record(outcome)
    assert not breaker.is_open
    breaker.record(False)
    assert breaker.is_open


def test_a_breaker_needs_at_least_one_failure_to_open():
    with pytest.raises(ValueError, match="max_failures"):
        CircuitBreaker(0)
