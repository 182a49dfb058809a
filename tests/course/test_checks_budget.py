"""Chapter 03's checks: right answers written differently pass; stubs and known-wrong answers fail."""

from __future__ import annotations

import copy
import math

import pytest

from compaction.core.messages import result_chars, text_of, tool_result_blocks
from compaction.core.placeholders import MARKER_CLOSE, MARKER_OPEN, MARKER_OVERHEAD, persisted_marker
from compaction.course.checks import budget as checks
from compaction.layers.budget import tool_result_budget
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, written differently


def package_budget(messages, max_chars, store):
    return tool_result_budget(messages, max_chars=max_chars, store=store)


def budget_by_ranking(messages, max_chars, store):
    """Ranks (size, -index) pairs and rebuilds the last message once at the end."""
    if not messages or messages[-1]["role"] != "user" or not isinstance(messages[-1]["content"], list):
        return list(messages)
    content = messages[-1]["content"]
    ranked = sorted(
        ((result_chars(b), j) for j, b in enumerate(content) if b.get("type") == "tool_result"),
        key=lambda pair: (-pair[0], pair[1]),
    )
    total, markers = sum(size for size, _ in ranked), {}
    for size, j in ranked:
        if total <= max_chars or size <= 2_000 + MARKER_OVERHEAD:
            break
        output = text_of(content[j]["content"])
        path = store.display(store.save(content[j]["tool_use_id"], output))
        markers[j] = persisted_marker(path, size, output[:2_000])
        total -= size - len(markers[j])
    new = [{**b, "content": markers[j]} if j in markers else b for j, b in enumerate(content)]
    return [*messages[:-1], {**messages[-1], "content": new}]


def marker_head_and_tail(display_path, chars, output, preview_chars=2_000):
    half = preview_chars // 2
    gap = len(output) - 2 * half
    shown = (
        output if gap <= 0 else f"{output[:half]}\n(skipping {gap:,} chars)\n{output[len(output) - half :]}"
    )
    head = f"{MARKER_OPEN}\n{chars:,} characters at {display_path}; read it for the rest."
    return f"{head}\n{shown}\n{MARKER_CLOSE}"


def marker_labelled_first_and_last(display_path, chars, output, preview_chars=2_000):
    """Says "the first N characters and the last N characters": a true label, in other words."""
    half = preview_chars // 2
    if len(output) <= preview_chars:
        shown, label = output, "all of it"
    else:
        tail = output[len(output) - half :] if half else ""
        shown = f"{output[:half]}\n<{len(output) - 2 * half:,} characters not shown>\n{tail}"
        label = f"the first {half:,} characters and the last {half:,} characters"
    head = f"{MARKER_OPEN}\nSaved {chars:,} characters to {display_path}. Preview, {label}:"
    return f"{head}\n{shown}\n{MARKER_CLOSE}"


def max_chars_by_int(window, in_use, reserve_output, chars_per_token):
    return int(max(0, window - in_use - reserve_output) * chars_per_token)


# ---------------------------------------------------------------- known-wrong answers


def naive_budget(messages, max_chars, store):
    """The seed's version: changes the caller's blocks in place."""
    results = tool_result_blocks(messages[-1])
    total = sum(result_chars(b) for b in results)
    for block in sorted(results, key=result_chars, reverse=True):
        if total <= max_chars:
            break
        output = text_of(block["content"])
        path = store.save(block["tool_use_id"], output)
        block["content"] = persisted_marker(store.display(path), len(output), output[:2_000])
        total += len(block["content"]) - len(output)
    return messages


def budget_without_marker_test(messages, max_chars, store):
    """Persists results smaller than a marker too."""
    out = copy.deepcopy(messages)
    return naive_budget(out, max_chars, store)


def budget_strict(messages, max_chars, store):
    """< where the layer needs <=: a total exactly at the budget is persisted."""
    return (
        package_budget(messages, max_chars - 1, store)
        if max_chars > 0
        else package_budget(messages, 0, store)
    )


def budget_smallest_first(messages, max_chars, store):
    out = copy.deepcopy(messages)
    blocks = sorted(tool_result_blocks(out[-1]), key=result_chars)
    total = sum(result_chars(b) for b in blocks)
    for block in blocks:
        if total <= max_chars or result_chars(block) <= 2_000 + MARKER_OVERHEAD:
            continue
        output = text_of(block["content"])
        block["content"] = persisted_marker(
            store.display(store.save(block["tool_use_id"], output)), len(output), output[:2_000]
        )
        total -= len(output) - len(block["content"])
    return out


def marker_without_left_out_line(display_path, chars, output, preview_chars=2_000):
    """Head and tail with "..." between them: the model cannot tell how much it does not see."""
    half = preview_chars // 2
    shown = output if len(output) <= preview_chars else f"{output[:half]}\n...\n{output[-half:]}"
    head = f"{MARKER_OPEN}\n{chars:,} characters at {display_path}; read it for the rest."
    return f"{head}\n{shown}\n{MARKER_CLOSE}"


def marker_in_the_package_frame(display_path, chars, output, preview_chars=2_000):
    """Head, count and tail inside persisted_marker, whose label says "first N characters" of it all."""
    half = preview_chars // 2
    if len(output) <= preview_chars:
        return persisted_marker(display_path, chars, output)
    left = f"[... {len(output) - 2 * half:,} characters left out ...]"
    return persisted_marker(display_path, chars, f"{output[:half]}\n{left}\n{output[len(output) - half :]}")


def marker_tail_by_negative_index(display_path, chars, output, preview_chars=2_000):
    """output[-half:]: right for half >= 1, the whole output for half == 0 (preview_chars=1)."""
    half = preview_chars // 2
    if len(output) <= preview_chars:
        shown = output
    else:
        left = f"[... {len(output) - 2 * half:,} characters left out ...]"
        shown = f"{output[:half]}\n{left}\n{output[-half:]}"
    label = f"its first and last {half:,} characters"
    head = f"{MARKER_OPEN}\nOutput too large ({chars:,} characters), saved to {display_path}; {label}:"
    return f"{head}\n{shown}\n{MARKER_CLOSE}"


def marker_head_only(display_path, chars, output, preview_chars=2_000):
    return persisted_marker(display_path, chars, output[:preview_chars])


def marker_without_frame(display_path, chars, output, preview_chars=2_000):
    half = preview_chars // 2
    return f"saved {chars:,} characters to {display_path}\n{output[:half]}\n...\n{output[-half:]}"


def marker_cut_strictly(display_path, chars, output, preview_chars=2_000):
    """Cuts an output of exactly preview_chars characters (< where <= belongs)."""
    half = preview_chars // 2
    shown = output if len(output) < preview_chars else output[: half - 1] + "\n...\n" + output[-half:]
    return f"{MARKER_OPEN}\n{chars:,} characters at {display_path}\n{shown}\n{MARKER_CLOSE}"


def marker_without_separators(display_path, chars, output, preview_chars=2_000):
    """Writes the size as 85883, not 85,883."""
    return marker_head_and_tail(display_path, chars, output, preview_chars).replace(f"{chars:,}", str(chars))


def marker_short_output_twice(display_path, chars, output, preview_chars=2_000):
    """Head and tail without the short-output case: a short output appears twice."""
    half = preview_chars // 2
    shown = f"{output[:half]}\n...\n{output[-half:]}"
    return f"{MARKER_OPEN}\n{chars:,} characters at {display_path}\n{shown}\n{MARKER_CLOSE}"


def marker_negative_left_out(display_path, chars, output, preview_chars=2_000):
    """Always says how much was left out, even when that is a negative number."""
    half = preview_chars // 2
    shown = output if len(output) <= preview_chars else output[:half] + "\n" + output[-half:]
    left = f"[{len(output) - preview_chars:,} characters left out]"
    return f"{MARKER_OPEN}\n{chars:,} characters at {display_path}\n{shown}\n{left}\n{MARKER_CLOSE}"


def max_chars_negative(window, in_use, reserve_output, chars_per_token):
    return math.floor((window - in_use - reserve_output) * chars_per_token)


def max_chars_rounded(window, in_use, reserve_output, chars_per_token):
    return max(0, round((window - in_use - reserve_output) * chars_per_token))


def max_chars_ignoring_reserve(window, in_use, reserve_output, chars_per_token):
    return max(0, math.floor((window - in_use) * chars_per_token))


CASES = [
    (
        checks.check_budget,
        package_budget,
        [naive_budget, budget_without_marker_test, budget_strict, budget_smallest_first],
    ),
    (
        checks.check_marker_with_tail,
        marker_head_and_tail,
        [
            marker_head_only,
            marker_without_frame,
            marker_cut_strictly,
            marker_without_separators,
            marker_short_output_twice,
            marker_negative_left_out,
            marker_without_left_out_line,
            marker_in_the_package_frame,
            marker_tail_by_negative_index,
        ],
    ),
    (
        checks.check_max_chars_for,
        checks.max_chars_for_reference,
        [max_chars_negative, max_chars_rounded, max_chars_ignoring_reserve],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (checks.check_budget, budget_by_ranking),
        (checks.check_marker_with_tail, marker_labelled_first_and_last),
        (checks.check_max_chars_for, max_chars_by_int),
    ],
    ids=["budget_by_ranking", "marker_labelled_first_and_last", "max_chars_by_int"],
)
def test_a_right_answer_written_differently_passes(check, answer):
    report = check(answer)
    assert report.passed, str(report)


def test_the_seed_budget_is_told_it_changed_its_input_and_where():
    row = checks.check_budget(naive_budget).failures[0]
    assert (
        "the input list was changed (message 2, block 0 (tool_result toolu_log): `content` changed)"
        in row.detail
    )
    assert "max_chars=0" in row.detail


def test_a_marker_larger_than_its_result_is_named_as_the_rule_broken():
    rows = {r.name: r.detail for r in checks.check_budget(budget_without_marker_test).failures}
    assert "the marker would be no smaller: keep it" in rows["a result no larger than its marker stays"]
    small = [d for n, d in rows.items() if "780 chars of results" in n]
    assert small and "a result of 780 chars became a marker of 998" in small[0], rows
    assert "the marker would be larger than the result: keep it" in small[0]
    seed = {r.name: r.detail for r in checks.check_budget(naive_budget).failures}
    assert "the marker would be no smaller: keep it" in seed["a result no larger than its marker stays"]


def test_the_rows_say_what_their_numbers_are():
    names = [r.name for r in checks.check_budget(package_budget).results]
    assert "session 2 to message 2, results x20: 780 chars of results" in names, names


@pytest.mark.parametrize(
    ("answer", "row", "says"),
    [
        (marker_without_separators, "the log's error at the end is shown", "must appear as 8"),
        (marker_short_output_twice, "a short output is shown whole", "shown twice"),
        (marker_negative_left_out, "a short output is shown whole", "negative count"),
        (marker_without_left_out_line, "the log's error at the end is shown", "characters were left out"),
        (
            marker_in_the_package_frame,
            "the log's error at the end is shown",
            "says its preview is the first 2,038 characters, but it shows the first and the last 1,000",
        ),
        (
            marker_tail_by_negative_index,
            "small previews: 3 and 1 characters",
            "with preview_chars=1 half is 0, and output[-0:] is the whole output",
        ),
    ],
    ids=["separators", "twice", "negative", "no count", "package frame", "negative index"],
)
def test_a_wrong_marker_fails_its_row_for_its_reason(answer, row, says):
    failing = {r.name: r.detail for r in checks.check_marker_with_tail(answer).failures}
    assert says in failing[row], failing
