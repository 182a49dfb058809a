"""Chapter 16's checks pass right answers, fail the stubs, and reject known-wrong answers."""

from __future__ import annotations

from collections import Counter

from check_cases import check_tests

from compaction.agent.compact_on_demand import next_request_tokens, should_compact
from compaction.core.messages import blocks
from compaction.course.checks import on_demand as checks

# ---------------------------------------------------------------- right answers, written differently


def trigger_by_hand(usage, pending, threshold):
    field = (lambda k: usage.get(k, 0)) if isinstance(usage, dict) else (lambda k: getattr(usage, k, 0))
    size = sum(
        field(k) or 0 for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    size += field("output_tokens") or 0
    if pending:
        size += sum(len(str(b.get("content", ""))) // 4 + 4 for b in blocks(pending))  # characters / 4
    return size > threshold


def missed_with_setdefault(calls):
    out = {}
    for call in calls:
        reason = call.reason or {}
        if "cache_missed_input_tokens" in reason:
            for layer in call.layers or ("none",):
                out.setdefault(layer, 0)
                out[layer] += reason["cache_missed_input_tokens"]
    return out


# ---------------------------------------------------------------- known-wrong answers


def trigger_on_input_tokens_only(usage, pending, threshold):
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k)
    return get("input_tokens") > threshold


def trigger_without_pending_results(usage, pending, threshold):
    return should_compact(usage, None, threshold)


def trigger_at_the_threshold(usage, pending, threshold):
    return next_request_tokens(usage, pending) >= threshold


def trigger_on_dicts_only(usage, pending, threshold):
    keys = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")
    return sum(usage[k] for k in keys) > threshold


def missed_counting_breaks(calls):
    out = {}
    for call in calls:
        if (call.reason or {}).get("cache_missed_input_tokens"):
            for layer in call.layers or ("none",):
                out[layer] = out.get(layer, 0) + 1
    return out


def missed_to_the_first_layer_only(calls):
    out = {}
    for call in calls:
        tokens = (call.reason or {}).get("cache_missed_input_tokens", 0)
        if tokens:
            layer = (call.layers or ("none",))[0]
            out[layer] = out.get(layer, 0) + tokens
    return out


def missed_only_messages_changed(calls):
    out = {}
    for call in calls:
        reason = call.reason or {}
        if reason.get("type") == "messages_changed":
            for layer in call.layers or ("none",):
                out[layer] = out.get(layer, 0) + reason["cache_missed_input_tokens"]
    return out


def missed_dropping_unattributed(calls):
    return {k: v for k, v in checks.missed_by_layer(calls).items() if k != "none"}


CASES = [
    (
        checks.check_should_compact,
        should_compact,
        [
            trigger_on_input_tokens_only,
            trigger_without_pending_results,
            trigger_at_the_threshold,
            trigger_on_dicts_only,
        ],
    ),
    (
        checks.check_missed_by_layer,
        checks.missed_by_layer,
        [
            missed_counting_breaks,
            missed_to_the_first_layer_only,
            missed_only_messages_changed,
            missed_dropping_unattributed,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_right_answers_written_differently_pass():
    assert checks.check_should_compact(trigger_by_hand).passed, str(
        checks.check_should_compact(trigger_by_hand)
    )
    assert checks.check_missed_by_layer(missed_with_setdefault).passed


def test_a_failing_row_names_the_sizes_and_the_decision():
    row = checks.check_should_compact(trigger_on_input_tokens_only).failures[0]
    assert row.name == "a cache read is input too"
    assert "5,540 tokens (threshold 5,000)" in row.detail and "should be True, not False" in row.detail


def missed_written_with_a_counter(calls):
    """A right answer another way: a Counter, layers joined by a loop over reasons first."""
    totals = Counter()
    for call in calls:
        tokens = (call.reason or {}).get("cache_missed_input_tokens") or 0
        totals.update({layer: tokens for layer in (call.layers or ("none",))})
    return dict(totals)


def test_a_failing_layer_row_says_what_it_should_be_and_where():
    rows = checks.check_missed_by_layer(missed_to_the_first_layer_only).failures
    row = next(r for r in rows if r.name == "two layers before one request are both charged")
    assert "layer 'micro': tokens missed should be 3,000, not 0 (it ran before request 0)" in row.detail


def test_a_failing_none_row_names_the_request_with_no_layer_before_it():
    row = next(
        r
        for r in checks.check_missed_by_layer(missed_dropping_unattributed).failures
        if r.name == "a break no layer caused"
    )
    assert (
        "layer 'none': tokens missed should be 700, not 0 (request 0 missed with no layer before it)"
        in row.detail
    )


def test_a_right_answer_written_with_a_counter_passes():
    report = checks.check_missed_by_layer(missed_written_with_a_counter)
    assert report.passed, str(report)


def test_an_empty_prediction_is_not_yet_made():
    for empty in ("", "   ", None):
        assert checks.prediction_verdict(empty, {"micro": 5}).startswith("no prediction yet")


def test_a_prediction_is_compared_with_the_costliest_layer():
    measured = {"micro": 11_407, "snip": 14_636}
    assert "snip: right" in checks.prediction_verdict(" Snip ", measured)
    wrong = checks.prediction_verdict("micro", measured)
    assert "not this time: snip cost the most" in wrong and "snip 14,636, micro 11,407" in wrong
    assert "is not a layer" in checks.prediction_verdict("the cache", measured)
