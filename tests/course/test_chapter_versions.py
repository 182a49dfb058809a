"""Each chapter's minimal version agrees with the package's function wherever the chapter says so.

A chapter builds a small version of its layer in a cell. This test takes the function definitions
of that cell (nothing else of it runs), with the chapter's import cell, and compares them with the
package on the course's sessions. The claims tested are the ones the chapters make in their "What
production adds" sections.
"""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest

from compaction.course.checks import budget as budget_checks
from compaction.course.checks import messages as message_checks
from compaction.course.checks import micro as micro_checks
from compaction.course.checks import pipeline as pipeline_checks
from compaction.course.checks import snip as snip_checks
from compaction.course.checks import tokens as token_checks
from compaction.layers.snip import snip_compact

ROOT = Path(__file__).resolve().parents[2]


def chapter_functions(chapter: str, *cell_ids: str) -> dict:
    """The functions defined in the given cells of a chapter, run after the chapter's import cell."""
    path = ROOT / "notebooks" / f"{chapter}.ipynb"
    if not path.exists():
        pytest.skip(f"{path.name} is not in this tree")
    cells = {c.get("id"): c for c in nbformat.read(path, as_version=4).cells}
    namespace: dict = {}
    exec(compile(cells["imports"].source, f"{chapter} imports", "exec"), namespace)
    for cell_id in cell_ids:
        tree = ast.parse(cells[cell_id].source)
        tree.body = [
            n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))
        ]
        exec(compile(tree, f"{chapter} cell {cell_id}", "exec"), namespace)
    return namespace


def test_01_first_problem_agrees_with_validate_on_the_rules_it_builds():
    cells = ("role-problem", "results-problem", "unanswered", "first-problem")
    first_problem = chapter_functions("01_messages", *cells)["first_problem"]
    for session in message_checks.course_sessions():
        assert first_problem(session) is None
        for kind, lists in message_checks.form_breaks(session).items():
            for broken in lists:
                assert first_problem(broken) == message_checks.first_problem_reference(broken), kind


def test_02_anchored_count_agrees_with_token_counter():
    anchored_count = chapter_functions("02_tokens", "anchored")["anchored_count"]
    for session in message_checks.course_sessions():
        for cut in range(1, len(session), 7):
            for method in ("chars", "tiktoken"):
                for now in (session, session[: cut + 3], session[:cut]):
                    want = token_checks.anchored_count_reference(now, session[:cut], 4321, method)
                    assert anchored_count(now, session[:cut], 4321, method) == want


def test_03_budget_agrees_with_tool_result_budget(tmp_path):
    budget = chapter_functions("03_store_and_budget", "persist", "budget")["budget"]
    report = budget_checks.check_budget(budget)
    assert report.passed, str(report)


def test_04_snip_agrees_with_snip_compact_on_a_first_snip():
    snip = chapter_functions("04_snip", "head-end", "tail-start", "snip")["snip"]
    report = snip_checks.check_snip(snip)
    assert report.passed, str(report)


def test_04_the_finished_snip_folds_earlier_notes_like_snip_compact():
    first = chapter_functions("04_snip", "head-end", "tail-start", "snip")["snip"]
    snip = chapter_functions("04_snip", "head-end", "tail-start", "snip-fold")["snip"]
    assert snip_checks.check_snip(snip).passed
    session = snip_checks.parallel_session()
    for sizes in [(25, 20), (24, 18, 12), (20, 16, 12, 8)]:
        ours = theirs = stacked = session
        for size in sizes:
            ours = snip(ours, max_messages=size, keep_head=4)
            theirs = snip_compact(theirs, max_messages=size, keep_head=4)
            stacked = first(stacked, max_messages=size, keep_head=4)
        assert ours == theirs, sizes
        assert stacked != theirs  # the first version stacks one note per snip


def test_05_micro_with_the_package_note_is_micro_compact():
    found = chapter_functions("05_micro", "note", "result-spots", "stays", "micro")
    report = micro_checks.check_micro(found["micro"], found["note_for"])
    assert report.passed, str(report)


def test_06_pipeline_agrees_with_the_reference_that_is_the_compactor():
    pipeline = chapter_functions("06_pipeline", "pipeline")["pipeline"]
    report = pipeline_checks.check_pipeline(pipeline)
    assert report.passed, str(report)
