"""Exercises: generated from solutions, every solved check passes, every untouched stub fails."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from compaction.course.exercises import build_exercise, build_exercises
from compaction.course.notebooks import error_lines, report_lines, run_notebook

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "solutions").glob("*.ipynb"))
NO_SOLUTIONS = "no solution notebook in solutions/ yet"


def test_committed_exercises_are_exactly_what_build_exercises_generates():
    if not SOLUTIONS and not list((ROOT / "exercises").glob("*.ipynb")):
        pytest.skip(NO_SOLUTIONS)
    differing = build_exercises(ROOT / "solutions", ROOT / "exercises", check=True)
    assert differing == [], "run: python -m compaction.course build-exercises"


@pytest.mark.skipif(not SOLUTIONS, reason=NO_SOLUTIONS)
@pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.name for p in SOLUTIONS])
def test_every_check_report_in_a_solution_passes(solution):
    reports = report_lines(nbformat.read(solution, as_version=4))
    assert reports, f"{solution.name} shows no check report in its outputs: run compaction.course execute"
    assert [r for r in reports if not r.startswith("PASS")] == []


@pytest.mark.skipif(not SOLUTIONS, reason=NO_SOLUTIONS)
@pytest.mark.parametrize("solution", SOLUTIONS, ids=[p.name for p in SOLUTIONS])
def test_every_check_report_of_the_untouched_exercise_fails(solution, tmp_path):
    # run the exercise beside a copy of what the solution's folder holds, as a learner would
    folder = tmp_path / "exercises"
    shutil.copytree(solution.parent, folder, ignore=shutil.ignore_patterns("*.ipynb", ".ipynb_checkpoints"))
    exercise = folder / solution.name
    nbformat.write(build_exercise(nbformat.read(solution, as_version=4), name=solution.name), exercise)
    ran = run_notebook(exercise, allow_errors=True)
    reports = report_lines(ran)
    expected = len(report_lines(nbformat.read(solution, as_version=4)))
    assert expected, f"{solution.name} has no check report in its outputs: run compaction.course execute"
    assert len(reports) == expected, f"only {len(reports)} of {expected} check cells ran: {error_lines(ran)}"
    assert [r for r in reports if not r.startswith("FAIL")] == []


def test_chapter_15s_exercise_never_states_the_answer_its_prediction_asks_for():
    """'What you built' once said the turns (71 and 76) the learner is asked to predict before running."""

    solution = json.loads((ROOT / "solutions" / "15_replay.ipynb").read_text(encoding="utf-8"))["cells"]
    exercise = json.loads((ROOT / "exercises" / "15_replay.ipynb").read_text(encoding="utf-8"))["cells"]
    asks = next(i for i, c in enumerate(solution) if "predict" in "".join(c["source"]).lower())
    printed = "".join(
        "".join(o.get("text", ""))
        for c in solution[asks:]
        if c["cell_type"] == "code"
        for o in c.get("outputs", [])
    )
    answers = set(re.findall(r"\((\d+), '", printed))  # lost_at's (turn, pass)
    assert answers, "the solution prints no (turn, pass) answer"
    later = " ".join("".join(c["source"]) for c in exercise[asks + 1 :] if c["cell_type"] == "markdown")
    assert not answers & set(re.findall(r"\d+", later)), answers & set(re.findall(r"\d+", later))
