"""Chapter 10's checks (threshold, reserve) pass right answers and reject stubs and known-wrong answers.

Chapter 06's checks of the same module are specified in ``test_checks_pipeline_chapter.py``.
"""

from __future__ import annotations

from compaction.course.checks import pipeline as checks
from compaction.layers.triggers import summary_threshold as package_threshold
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, as a learner writes them


def summary_threshold(context_window, reserve_output=None, buffer=None):
    if reserve_output is None:
        reserve_output = min(20_000, context_window // 10)
    if buffer is None:
        buffer = min(13_000, round(13_000 * context_window / 200_000))
    left = context_window - reserve_output - buffer
    if left <= 0:
        raise ValueError("no room left")
    return left


# ---------------------------------------------------------------- known-wrong answers


def fixed_buffer(context_window, reserve_output=None, buffer=None):
    """Claude Code's constants on every window: an 8K window has no room left."""
    reserve_output = 20_000 if reserve_output is None else reserve_output
    buffer = 13_000 if buffer is None else buffer
    left = context_window - reserve_output - buffer
    if left <= 0:
        raise ValueError("no room left")
    return left


def reserve_by_rank(output_tokens, allowed_over=0):
    """Right, another way: the answer at rank allowed_over from the largest, or 0 past the end."""
    if allowed_over < 0 or not output_tokens:
        raise ValueError("no answers, or a negative allowed_over")
    ranked = sorted(output_tokens, reverse=True)
    return ranked[allowed_over] if allowed_over < len(ranked) else 0


def reserve_strict(output_tokens, allowed_over=0):
    """Wrong: counts an answer of exactly the reserve as over (>= instead of >)."""
    if allowed_over < 0 or not output_tokens:
        raise ValueError("no answers, or a negative allowed_over")
    for r in sorted({0, *output_tokens}):
        if sum(1 for n in output_tokens if n >= r) <= allowed_over:
            return r
    return max(output_tokens) + 1


def reserve_largest(output_tokens, allowed_over=0):
    """Wrong: ignores allowed_over."""
    if allowed_over < 0 or not output_tokens:
        raise ValueError("no answers, or a negative allowed_over")
    return max(output_tokens)


def reserve_one_rank_off(output_tokens, allowed_over=0):
    """Wrong: one rank too far (allowed_over + 1 answers end up over)."""
    if allowed_over < 0 or not output_tokens:
        raise ValueError("no answers, or a negative allowed_over")
    ranked = sorted(output_tokens, reverse=True)
    return ranked[allowed_over + 1] if allowed_over + 1 < len(ranked) else 0


def reserve_sorts_in_place(output_tokens, allowed_over=0):
    """Wrong: right figure, but the caller's list is sorted."""
    output_tokens.sort(reverse=True)
    return reserve_by_rank(output_tokens, allowed_over)


def reserve_deduplicated(output_tokens, allowed_over=0):
    """Wrong: repeated sizes counted once, so two answers of 500 count as one over."""
    return reserve_by_rank(sorted(set(output_tokens)), allowed_over)


def reserve_no_errors(output_tokens, allowed_over=0):
    """Wrong: an empty list gives 0 instead of a ValueError."""
    return reserve_by_rank(output_tokens, allowed_over) if output_tokens and allowed_over >= 0 else 0


# ---------------------------------------------------------------- the checks


CASES = [
    (checks.check_summary_threshold, summary_threshold, [fixed_buffer]),
    (
        checks.check_reserve_from_answers,
        reserve_by_rank,
        [
            reserve_strict,
            reserve_largest,
            reserve_one_rank_off,
            reserve_sorts_in_place,
            reserve_no_errors,
            reserve_deduplicated,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_the_package_passes_its_own_checks():
    assert checks.check_summary_threshold(package_threshold).passed
    assert checks.check_reserve_from_answers(checks.reserve_from_answers).passed


def test_a_strict_reserve_is_named_as_the_boundary_case():
    report = checks.check_reserve_from_answers(reserve_strict)
    assert any("boundary case" in r.detail and "<=" in r.detail for r in report.failures)


def test_a_deduplicated_reserve_is_not_blamed_on_the_boundary():
    rows = {r.name: r.detail for r in checks.check_reserve_from_answers(reserve_deduplicated).failures}
    assert "two answers of the same size both count" in rows and "do not remove repeated sizes" in str(rows)
    assert "an answer of exactly the reserve fits (the boundary, <=)" not in rows, rows
    assert "boundary case" not in str(rows)
