"""Chapter 02's checks: right answers written differently pass; stubs and known-wrong answers fail."""

from __future__ import annotations

import pytest

from compaction.core.tokens import estimate_tokens, message_tokens, usage_input_tokens
from compaction.course.checks import tokens as checks
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, written differently


def anchored_count(messages, sent, sent_tokens, method="chars"):
    """The chapter's version."""
    if sent and len(messages) >= len(sent) and messages[: len(sent)] == sent:
        return sent_tokens + estimate_tokens(messages[len(sent) :], method)
    return estimate_tokens(messages, method)


def anchored_by_zip(messages, sent, sent_tokens, method="chars"):
    holds = (
        bool(sent)
        and len(messages) >= len(sent)
        and all(a == b for a, b in zip(messages, sent, strict=False))
    )
    rest = messages[len(sent) :] if holds else messages
    return (sent_tokens if holds else 0) + sum(message_tokens(m, method) for m in rest)


def cache_share(usage):
    """The solution's way: read the three fields, divide the reads by their sum."""
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
    fresh, written, read = (
        get(k) or 0 for k in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    total = fresh + written + read
    return read / total if total else 0.0


def cache_share_by_complement(usage):
    """Written differently: one minus the share that was not read from the cache, via the package's sum."""
    total = usage_input_tokens(usage)
    if not total:
        return 0
    fields = usage if isinstance(usage, dict) else vars(usage)
    not_read = (fields.get("input_tokens") or 0) + (fields.get("cache_creation_input_tokens") or 0)
    return 1 - not_read / total


def limit_by_search(window, max_output, underestimate_pct):
    room, e = window - max_output, 0
    if room <= 0:
        return 0
    step = 1 << 20
    while step:  # the largest e with e * (100 + pct) <= room * 100, by binary steps
        if (e + step) * (100 + underestimate_pct) <= room * 100:
            e += step
        step >>= 1
    return e


# ---------------------------------------------------------------- known-wrong answers


def anchored_without_prefix_check(messages, sent, sent_tokens, method="chars"):
    return sent_tokens + estimate_tokens(messages[len(sent) :], method)


def anchored_counting_everything_again(messages, sent, sent_tokens, method="chars"):
    return sent_tokens + estimate_tokens(messages, method) if sent else estimate_tokens(messages, method)


def anchored_only_by_length(messages, sent, sent_tokens, method="chars"):
    if sent and len(messages) >= len(sent):
        return sent_tokens + estimate_tokens(messages[len(sent) :], method)
    return estimate_tokens(messages, method)


def share_over_input_only(usage):
    """Divides by `input_tokens` alone: above 1 when most of the request came from the cache."""
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
    return (get("cache_read_input_tokens") or 0) / get("input_tokens") if get("input_tokens") else 0.0


def share_as_percent(usage):
    return 100 * cache_share(usage)


def share_dicts_only(usage):
    total = sum(
        usage.get(k) or 0 for k in ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")
    )
    return (usage.get("cache_read_input_tokens") or 0) / total if total else 0.0


def share_divides_by_zero(usage):
    return (usage_input_tokens(usage) and cache_share(usage)) / usage_input_tokens(usage)


def share_counting_writes_as_reads(usage):
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
    total = usage_input_tokens(usage)
    hits = (get("cache_read_input_tokens") or 0) + (get("cache_creation_input_tokens") or 0)
    return hits / total if total else 0.0


def limit_with_floats(window, max_output, underestimate_pct):
    return max(0, int((window - max_output) / (1 + underestimate_pct / 100)))


def limit_strict(window, max_output, underestimate_pct):
    """Uses < where the target says <=: one too small at an exact fit."""
    room = window - max_output
    return max(0, (room * 100 - 1) // (100 + underestimate_pct)) if room > 0 else 0


def limit_without_margin(window, max_output, underestimate_pct):
    return max(0, window - max_output)


CASES = [
    (
        checks.check_anchored_count,
        checks.anchored_count_reference,
        [anchored_without_prefix_check, anchored_counting_everything_again, anchored_only_by_length],
    ),
    (
        checks.check_cache_read_share,
        checks.cache_read_share_reference,
        [
            share_over_input_only,
            share_as_percent,
            share_dicts_only,
            share_divides_by_zero,
            share_counting_writes_as_reads,
            usage_input_tokens,  # the chapter's function, which answers another question
        ],
    ),
    (
        checks.check_limit_for,
        checks.limit_for_reference,
        [limit_with_floats, limit_strict, limit_without_margin],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (checks.check_anchored_count, anchored_count),
        (checks.check_anchored_count, anchored_by_zip),
        (checks.check_cache_read_share, cache_share),
        (checks.check_cache_read_share, cache_share_by_complement),
        (checks.check_limit_for, limit_by_search),
    ],
    ids=["anchored_count", "anchored_by_zip", "cache_share", "cache_share_by_complement", "limit_by_search"],
)
def test_a_right_answer_written_differently_passes(check, answer):
    report = check(answer)
    assert report.passed, str(report)


def test_the_float_answer_fails_at_the_exact_fit_and_the_row_says_why():
    (row,) = [r for r in checks.check_limit_for(limit_with_floats).failures if "exact fit" in r.name]
    assert "returned 999, but 1,000 still fits (1,100.00 <= 1,100)" in row.detail
    assert "if you divided, floating point is the cause" in row.detail and "999.9999" in row.detail
    assert "keep every step in whole numbers" in row.detail and "//" not in row.detail


def test_a_strict_limit_is_told_an_exact_fit_is_allowed():
    rows = [r for r in checks.check_limit_for(limit_strict).failures if "exact fit" in r.name]
    assert rows and "1,000 fills the room exactly, and an exact fit is allowed: <=, not <" in rows[0].detail


def test_dividing_by_input_tokens_alone_is_named():
    rows = checks.check_cache_read_share(share_over_input_only).failures
    row = next(r for r in rows if r.name == "dict, a cache read and a write")
    assert "expected 0.9267" in row.detail and "not by `input_tokens` alone" in row.detail, row.detail


def test_the_chapter_function_does_not_solve_exercise_1():
    report = checks.check_cache_read_share(usage_input_tokens)
    assert not report.passed and len(report.failures) >= 8
