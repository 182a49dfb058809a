"""Chapter 11's traceback check: passes right condensers written two ways, rejects a stub and wrong ones."""

from __future__ import annotations

import re
from collections import defaultdict

from check_cases import check_tests

from compaction.course.checks import condense as checks
from compaction.levels.locations import line_ranges
from compaction.presentation.language import use_language

FRAME = re.compile(r'^  File "([^"]+)", line (\d+), in (\S+)$')


def by_file(output):
    """Right: frames grouped per file with line ranges, exception lines kept, short outputs unchanged."""
    lines = output.splitlines()
    if len(lines) <= 10:
        return output
    out, frames = [], defaultdict(list)

    def flush():
        out.extend(f"  {path}: {line_ranges(numbers)}" for path, numbers in frames.items())
        frames.clear()

    for line in lines:
        match = FRAME.match(line)
        if match:
            frames[match[1]].append(int(match[2]))
        elif line.strip() and not line.startswith("    "):
            flush()
            out.append(line)
    flush()
    return "\n".join(out)


def by_frame_with_repeats(output):
    """Right, another way: one line per frame, "path:line in fn", runs of the same frame counted."""
    out, last, count = [], None, 0
    for line in output.splitlines():
        match = FRAME.match(line)
        if match:
            frame = f"  {match[1]}:{match[2]} in {match[3]}"
            if frame == last:
                count += 1
                continue
            if count:
                out.append(f"  [the frame above {count} more times]")
            out.append(frame)
            last, count = frame, 0
        elif not line.startswith("    "):
            if count:
                out.append(f"  [the frame above {count} more times]")
            out.append(line)
            last, count = None, 0
    return "\n".join(out)


def keep_exceptions_only(output):
    """Wrong: only the exception lines; every frame's location is lost."""
    return "\n".join(checks.EXCEPTION_LINE.findall(output))


def last_exception_only(output):
    """Wrong: the last traceback of the chain only."""
    return by_file(output.split("During handling of the above exception")[-1])


def head_and_tail(output):
    """Wrong: the first and last 10 lines, the frames in between lost."""
    lines = output.splitlines()
    return "\n".join(lines[:10] + ["..."] + lines[-10:]) if len(lines) > 20 else output


def unchanged(output):
    """Wrong: nothing condensed."""
    return output


def exceptions_merged(output):
    """Wrong: the exception lines joined into one line."""
    rest = [line for line in by_file(output).splitlines() if not checks.EXCEPTION_LINE.match(line)]
    return "\n".join([*rest, " / ".join(checks.EXCEPTION_LINE.findall(output))])


def first_occurrence_order(output):
    """Wrong: exceptions listed last-first."""
    found = checks.EXCEPTION_LINE.findall(output)
    rest = [line for line in by_file(output).splitlines() if line not in found]
    return "\n".join([*rest, *reversed(found)])


def exceptions_sorted(output):
    """Wrong: the exception lines gathered with sorted(), which matches the raised order only by chance."""
    found = checks.EXCEPTION_LINE.findall(output)
    rest = [line for line in by_file(output).splitlines() if line not in found]
    return "\n".join([*rest, *sorted(set(found))])


def first_exception_dropped(output):
    """Wrong: a chain's first exception line is left out, the others kept in order."""
    found = checks.EXCEPTION_LINE.findall(output)
    first = found[0] if len(found) > 1 else None
    return "\n".join(line for line in by_file(output).splitlines() if line != first)


CASES = [
    (
        checks.check_condense_traceback,
        by_file,
        [
            keep_exceptions_only,
            last_exception_only,
            head_and_tail,
            unchanged,
            exceptions_merged,
            first_occurrence_order,
            first_exception_dropped,
            exceptions_sorted,
        ],
    )
]

test_each_check_passes_the_package_and_fails_a_stub, test_each_check_rejects_known_wrong_answers = (
    check_tests(CASES)
)


def test_a_condenser_written_differently_passes():
    assert checks.check_condense_traceback(by_frame_with_repeats).passed


def test_the_sample_is_the_same_for_the_same_seed_and_long():
    assert checks.sample_traceback(seed=3) == checks.sample_traceback(seed=3)
    assert len(checks.sample_traceback().splitlines()) > 200


def test_a_missing_exception_fails_the_order_row_too():
    report = checks.check_condense_traceback(first_exception_dropped)
    row = next(r for r in report.results if r.name == "the chained exceptions in their order")
    assert not row.passed and "is missing" in row.detail, row


def test_sorted_exceptions_fail_only_the_order_row_on_the_unsorted_case():
    rows = checks.check_condense_traceback(exceptions_sorted).failures
    assert [r.name for r in rows] == ["the chained exceptions in their order"], rows
    assert (
        rows[0].detail.startswith("exceptions not in alphabetical order") and "not sorted" in rows[0].detail
    )


def test_the_ja_edition_names_the_traceback_and_the_missing_exception_in_japanese():
    with use_language("ja"):
        missing = checks.check_condense_traceback(first_exception_dropped).failures
        unsorted = checks.check_condense_traceback(exceptions_sorted).failures
    detail = next(r.detail for r in missing if "例外（" in r.detail)
    assert detail.startswith("連鎖したトレースバック（シード値 0）: 2 個のうち 1 番目の例外（"), detail
    assert detail.endswith("）がありません"), detail
    assert unsorted[0].detail.startswith("例外がアルファベット順でないもの（シード値 2）"), unsorted[0].detail
    assert "順序が違います" in unsorted[0].detail and "exception" not in unsorted[0].detail
