"""The course machinery: exercises are generated from solutions, and drift is detected."""

from __future__ import annotations

import nbformat
import pytest

from compaction.course.__main__ import _print_checks, main
from compaction.course.checks import run_cases
from compaction.course.exercises import (
    DEFAULT_HINT,
    MarkerError,
    build_exercise,
    build_exercises,
    strip_solutions,
)
from compaction.course.notebooks import report_lines
from compaction.presentation.language import use_language

SOLVED = '''def first_user(messages):
    """The first user message."""
    ### BEGIN SOLUTION
    # Hint: look at each message's role
    for m in messages:
        if m["role"] == "user":
            return m
    ### END SOLUTION
'''


def solution_notebook(*code: str) -> nbformat.NotebookNode:
    """A solved notebook as an author leaves it: outputs, counts, run metadata, widget state."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.7"}
    nb.metadata["widgets"] = {"state": {"abc": {}}}
    nb.cells.append(
        nbformat.v4.new_markdown_cell("Write `first_user`. ### BEGIN SOLUTION in prose is left alone")
    )
    for index, source in enumerate(code):
        cell = nbformat.v4.new_code_cell(source, execution_count=index + 1)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="secret answer\n")]
        cell.metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00Z"}
        nb.cells.append(cell)
    return nb


def write(nb: nbformat.NotebookNode, path) -> None:
    """Save a notebook, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, path)


def test_a_solution_region_becomes_a_stub_that_raises_with_the_hint():
    out = strip_solutions(SOLVED)
    assert "for m in messages" not in out
    assert "    # Hint: look at each message's role\n" in out
    assert '    raise NotImplementedError("look at each message\'s role")' in out
    assert "SOLUTION" not in out


def test_the_code_around_a_region_is_kept_verbatim():
    out = strip_solutions(SOLVED)
    assert out.startswith('def first_user(messages):\n    """The first user message."""\n')
    compile(out, "exercise", "exec")


def test_a_region_without_a_hint_gets_the_default_hint_at_the_marker_indentation():
    src = "x = 1\n        ### BEGIN SOLUTION\n        y = 2\n        ### END SOLUTION\nz = 3"
    assert strip_solutions(src) == f'x = 1\n        raise NotImplementedError("{DEFAULT_HINT}")\nz = 3'


def test_several_regions_in_one_cell_are_each_replaced():
    src = "### BEGIN SOLUTION\na = 1\n### END SOLUTION\nb = 2\n### BEGIN SOLUTION\nc = 3\n### END SOLUTION"
    out = strip_solutions(src)
    assert out.count("raise NotImplementedError") == 2
    assert "b = 2" in out and "a = 1" not in out and "c = 3" not in out


def test_a_hint_with_quotes_stays_a_valid_python_string():
    src = (
        'def f():\n    ### BEGIN SOLUTION\n    # Hint: use "role" and a \\ backslash\n'
        "    pass\n    ### END SOLUTION"
    )
    namespace: dict = {}
    exec(strip_solutions(src), namespace)
    with pytest.raises(NotImplementedError, match='use "role" and a'):
        namespace["f"]()


@pytest.mark.parametrize(
    "source, problem",
    [
        ("### BEGIN SOLUTION\nx = 1", "without a matching"),
        ("x = 1\n### END SOLUTION", "line 2"),
        ("### BEGIN SOLUTION\n### BEGIN SOLUTION\n### END SOLUTION", "inside an open"),
    ],
)
def test_unbalanced_markers_are_rejected_naming_where(source, problem):
    with pytest.raises(MarkerError, match=problem):
        strip_solutions(source, where="01_x.ipynb, cell 3")
    with pytest.raises(MarkerError, match="cell 3"):
        strip_solutions(source, where="01_x.ipynb, cell 3")


def test_an_exercise_notebook_has_no_outputs_no_counts_and_clean_metadata():
    exercise = build_exercise(solution_notebook(SOLVED, "print(first_user([]))"))
    code = [c for c in exercise.cells if c.cell_type == "code"]
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert all("execution" not in c.metadata for c in exercise.cells)
    assert set(exercise.metadata) == {"kernelspec", "language_info"}
    assert exercise.metadata["language_info"] == {"name": "python"}
    assert "in prose is left alone" in exercise.cells[0].source


def test_building_does_not_change_the_solution():
    solution = solution_notebook(SOLVED)
    before = nbformat.writes(solution)
    build_exercise(solution)
    assert nbformat.writes(solution) == before


def test_unbalanced_markers_in_a_notebook_name_the_file_and_cell(tmp_path):
    write(solution_notebook("x = 1", "### BEGIN SOLUTION\ny = 2"), tmp_path / "solutions" / "03_snip.ipynb")
    with pytest.raises(MarkerError, match=r"03_snip\.ipynb, cell 2"):
        build_exercises(tmp_path / "solutions", tmp_path / "exercises")


def test_build_writes_one_exercise_per_solution_and_is_deterministic(tmp_path):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(SOLVED), sol / "01_messages.ipynb")
    write(solution_notebook("### BEGIN SOLUTION\nx = 1\n### END SOLUTION"), sol / "02_budget.ipynb")
    assert len(build_exercises(sol, ex)) == 2
    first = {p.name: p.read_text() for p in ex.glob("*.ipynb")}
    assert sorted(first) == ["01_messages.ipynb", "02_budget.ipynb"]
    assert build_exercises(sol, ex) == []
    assert {p.name: p.read_text() for p in ex.glob("*.ipynb")} == first
    assert "secret answer" not in first["01_messages.ipynb"]


def test_check_detects_an_edited_exercise_and_writes_nothing(tmp_path, capsys):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(SOLVED), sol / "01_messages.ipynb")
    build_exercises(sol, ex)
    target = ex / "01_messages.ipynb"
    edited = target.read_text().replace("look at each", "LOOK AT EACH")
    target.write_text(edited)
    assert build_exercises(sol, ex, check=True) == [str(target)]
    assert target.read_text() == edited
    assert main(["build-exercises", "--check", "--solutions", str(sol), "--exercises", str(ex)]) == 1
    assert "01_messages.ipynb" in capsys.readouterr().out


def test_check_detects_a_missing_exercise_and_one_without_a_solution(tmp_path):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(SOLVED), sol / "01_messages.ipynb")
    write(solution_notebook("x = 1"), ex / "09_orphan.ipynb")
    differing = build_exercises(sol, ex, check=True)
    assert any("01_messages.ipynb (missing)" in d for d in differing)
    assert any("09_orphan.ipynb (no solution" in d for d in differing)


def test_check_passes_when_exercises_are_up_to_date(tmp_path):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(SOLVED), sol / "01_messages.ipynb")
    assert main(["build-exercises", "--solutions", str(sol), "--exercises", str(ex)]) == 0
    assert main(["build-exercises", "--check", "--solutions", str(sol), "--exercises", str(ex)]) == 0


def test_report_lines_finds_check_reports_in_outputs_and_nothing_else():
    nb = solution_notebook("x")
    nb.cells[1].outputs = [
        nbformat.v4.new_output(
            "execute_result", data={"text/plain": "PASS validate: 3/3 checks passed\n  pass a"}
        ),
        nbformat.v4.new_output("stream", name="stdout", text="FAIL printed: 0/1 checks passed\n"),
        nbformat.v4.new_output("execute_result", data={"text/plain": "FAIL count: 1/2 checks passed"}),
        nbformat.v4.new_output("execute_result", data={"text/plain": "PASSING remark"}),
    ]
    assert report_lines(nb) == ["PASS validate: 3/3 checks passed", "FAIL count: 1/2 checks passed"]


def test_check_and_execute_reject_a_missing_notebook_clearly(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["check", str(tmp_path / "nope.ipynb")])
    assert "no such notebook" in capsys.readouterr().err


CHECK_CELL = """from compaction.course.checks import run_cases


def doubles_two():
    assert double(2) == 4, f"double(2) gave {double(2)}"


run_cases("double", [("two", doubles_two)])"""
DOUBLE = (
    "def double(x):\n    ### BEGIN SOLUTION\n    # Hint: multiply\n    return 2 * x\n    ### END SOLUTION"
)


def test_execute_saves_outputs_and_check_passes_a_solved_notebook_and_fails_its_stub(tmp_path, capsys):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(DOUBLE, CHECK_CELL), sol / "01_double.ipynb")
    assert main(["execute", str(sol / "01_double.ipynb")]) == 0
    executed = nbformat.read(sol / "01_double.ipynb", as_version=4)
    assert report_lines(executed) == ["PASS double: 1/1 checks passed"]
    assert main(["check", str(sol / "01_double.ipynb")]) == 0
    build_exercises(sol, ex)
    capsys.readouterr()
    assert main(["check", str(ex / "01_double.ipynb")]) == 1
    out = capsys.readouterr().out
    assert "FAIL double: 0/1 checks passed" in out
    # the terminal prints the failing row itself, naming the case and why, not only the verdict
    assert "FAIL  two" in out and "not implemented yet" in out


TWO_CASES = CHECK_CELL.replace(
    'run_cases("double", [("two", doubles_two)])',
    'run_cases("double", [("zero", lambda: None), ("two", doubles_two)])',
)


def test_check_prints_every_row_the_notebook_shows_pass_and_fail(tmp_path, capsys):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(DOUBLE, TWO_CASES), sol / "01_double.ipynb")
    build_exercises(sol, ex)
    capsys.readouterr()
    assert main(["check", str(ex / "01_double.ipynb")]) == 1
    printed = [line.strip() for line in capsys.readouterr().out.splitlines()]
    notebook_rows = str(run_cases("double", [("zero", lambda: None), ("two", _stub)])).splitlines()[1:]
    for row in notebook_rows:  # the same rows as the notebook's report, in its order
        assert row.strip() in printed, row
    assert [row.strip() for row in notebook_rows] == ["pass  zero", "FAIL  two   not implemented yet"]
    assert printed.index("pass  zero") < printed.index("FAIL  two   not implemented yet")
    assert "0 of 1 check reports pass" in printed


def _stub():
    raise NotImplementedError("multiply")


GUESS = "### BEGIN SOLUTION\n# Hint: your guess, a number\nmy_guess = 3\n### END SOLUTION\nprint(my_guess)"


def test_check_says_the_checks_pass_when_only_a_guess_is_left_empty(tmp_path, capsys):
    sol, ex = tmp_path / "solutions", tmp_path / "exercises"
    write(solution_notebook(GUESS, "def double(x):\n    return 2 * x", CHECK_CELL), sol / "01_double.ipynb")
    build_exercises(sol, ex)
    capsys.readouterr()
    assert main(["check", str(ex / "01_double.ipynb")]) == 1
    out = capsys.readouterr().out
    assert "PASS double: 1/1 checks passed" in out and "NotImplementedError: your guess, a number" in out
    assert "not yet: every check passes, but 1 cell(s) raised an error; fill them in" in out
    assert "check reports fail" not in out


def reports_notebook(*reports: str) -> nbformat.NotebookNode:
    """A notebook whose code cells show these check reports, as an executed exercise does."""
    cells = [nbformat.v4.new_code_cell("check()") for _ in reports]
    for cell, report in zip(cells, reports, strict=True):
        cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": report}, execution_count=1)]
    return nbformat.v4.new_notebook(cells=cells)


@pytest.mark.parametrize(
    ("reports", "english", "japanese"),
    [
        (
            ["FAIL a: 0/2 checks passed", "FAIL b: 0/1 checks passed"],
            "not yet: 2 of 2 check reports fail",
            "まだです: 2 件のチェック結果のうち 2 件が不合格です",
        ),
        (
            ["PASS a: 2/2 checks passed", "FAIL b: 0/1 checks passed"],
            "not yet: 1 of 2 check reports fail",
            "まだです: 2 件のチェック結果のうち 1 件が不合格です",
        ),
    ],
    ids=["none passes", "one of two fails"],
)
def test_the_verdict_says_how_far_along_and_never_almost_at_nothing(reports, english, japanese, capsys):
    assert _print_checks(reports_notebook(*reports)) == 1
    assert english in capsys.readouterr().out
    with use_language("ja"):
        _print_checks(reports_notebook(*reports))
    out = capsys.readouterr().out
    assert japanese in out and "もう少し" not in out
