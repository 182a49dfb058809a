"""The chapter 11-12 checks pass the package's functions, fail stubs, and reject known-wrong answers."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from compaction.core.messages import tool_use_blocks
from compaction.course.checks import levels as checks
from compaction.levels.checkpoint import files_modified
from compaction.levels.condense import condense_grep
from compaction.levels.phase_summary import edited_line
from compaction.levels.phases import action_of, detect_phases, steps
from tests.check_cases import check_tests


def phase_ends(messages):
    """The package's answer, as the exercise asks for it."""
    return [(p.end, p.reason) for p in detect_phases(messages) if p.reason != "open"]


# ------------------------------------------------------------ known-wrong answers


def grep_without_line_numbers(output):
    """Wrong: files and match counts, but the line numbers are dropped."""
    per_file = Counter(line.split(":", 1)[0] for line in output.splitlines() if ":" in line)
    head = f"Search results: {sum(per_file.values())} matches in {len(per_file)} files."
    return "\n".join([head] + [f"{p} ({n} matches)" for p, n in sorted(per_file.items())])


def grep_head_only(output):
    """Wrong: the first 40 lines and a count: everything after is lost."""
    lines = output.splitlines()
    return "\n".join(lines[:40] + [f"... {len(lines) - 40} more lines"])


def grep_unchanged(output):
    """Wrong: keeps everything, so nothing is saved."""
    return output


def phases_never_fire(messages):
    """Wrong: a detector that never ends a phase."""
    return []


def phases_at_every_edit(messages):
    """Wrong: every edit ends a phase, and green test runs are ignored."""
    return [(s.index, "first edit after research") for s in steps(messages) if s.kind == "edit"]


def phases_without_green(messages):
    """Wrong: the package's answer minus the phases that end when tests turn green."""
    return [(end, why) for end, why in phase_ends(messages) if why != "tests turned green"]


def phases_ignoring_summaries(messages):
    """Wrong: the package's rules, but a summary step is treated like any other step."""
    ends, start, edited, looks, last = [], None, set(), [], {}

    def close(end, reason):
        nonlocal start, edited, looks
        if end > start:
            ends.append((end, reason))
        start, edited, looks = end, set(), []

    for step in steps(messages):
        start = step.index if start is None else start
        if step.kind == "edit" and not edited and len(looks) >= 2:
            close(step.index, "first edit after research")
        elif step.kind == "edit" and edited and not set(step.files) & edited:
            close(looks[0].index if looks else step.index, "moved on to " + ", ".join(step.files))
        if step.kind == "edit":
            edited |= set(step.files)
            looks = []
        elif step.kind in ("read", "search", "test"):
            looks.append(step)
        if step.test_status == "green" and (edited or last.get(step.test_command) == "red"):
            close(min(step.index + 2, len(messages)), "tests turned green")
        if step.test_status:
            last[step.test_command] = step.test_status
    return ends


def files_last_only(messages):
    """Wrong: only the newest edited file survives: a checkpoint that loses files."""
    return files_modified(messages)[-1:]


def files_without_writes(messages):
    """Wrong: write_file calls are not seen."""
    return [f for f in files_modified(messages) if not f.endswith("(written)")]


def files_without_lines(messages):
    """Wrong: paths without the lines their edits changed."""
    out = []
    for message in messages:
        for use in tool_use_blocks(message):
            kind, path = action_of(use["name"], use["input"])
            if kind == "edit" and path and path not in out:
                out.append(path)
    return out


CASES = [
    (checks.check_condense_grep, condense_grep, [grep_without_line_numbers, grep_head_only, grep_unchanged]),
    (
        checks.check_phase_ends,
        phase_ends,
        [phases_never_fire, phases_at_every_edit, phases_without_green, phases_ignoring_summaries],
    ),
    (
        checks.check_files_modified,
        files_modified,
        [files_last_only, files_without_writes, files_without_lines],
    ),
]


test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_the_sample_outputs_are_large_and_the_same_every_time():
    for kind, (command, output) in checks.sample_outputs().items():
        assert output.count("\n") >= 499, kind
        assert checks.sample_outputs()[kind] == (command, output)
    assert len(re.findall(r"^\S+:\d+:", checks.sample_grep(), re.M)) == 2000


def test_edited_line_reads_the_number_from_the_newest_read_of_that_file():
    session = checks.fix_session()
    expected = checks.project_line("textstats/ngrams.py", "range(len(tokens) - n)]")
    assert edited_line(session, "textstats/ngrams.py", "range(len(tokens) - n)]") == expected


def test_summarized_session_holds_a_summary_step_before_the_first_edit():
    kinds = [s.kind for s in steps(checks.summarized_session())]
    assert "summary" in kinds and kinds.index("summary") < kinds.index("edit")


def test_ignoring_summaries_fails_only_on_the_session_with_a_summary():
    report = checks.check_phase_ends(phases_ignoring_summaries)
    failed = [r.name for r in report.results if not r.passed]
    assert failed == ["identical on a session with a phase summary in it"], failed


def test_a_failing_row_names_the_first_entry_that_differs():
    want = [(9, "a"), (13, "b"), (49, "tests turned green")]
    assert checks.first_difference(want[:2], want) == (
        "entry 2 missing: (49, 'tests turned green') (2 entries, expected 3)"
    )
    assert checks.first_difference([(9, "a"), (14, "b")], want[:2]).startswith(
        "entry 1: got (14, 'b'), expected (13, 'b')"
    )
    assert checks.first_difference(want, want[:1]).startswith("entry 1 not expected: (13, 'b')")


@pytest.mark.parametrize(
    ("wrong", "says"),
    [
        (phases_without_green, "a green test run, after an edit or after the same command was red"),
        (phases_never_fire, "the rule: "),
        (phases_at_every_edit, "the rule: "),
    ],
    ids=["without green", "never", "every edit"],
)
def test_a_phase_row_names_the_rule_and_the_message(wrong, says):
    rows = checks.check_phase_ends(wrong).failures
    assert rows and all("the rule: " in r.detail or "no rule ends a phase" in r.detail for r in rows), rows
    assert any(says in r.detail and "message" in r.detail for r in rows), rows
