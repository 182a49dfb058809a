"""The course's pytest plugin: ``python -m compaction.course test`` loads it (``-p``), and so does
``tests/conftest.py`` for a plain pytest run.

It runs the whole session with its temporary files in one run folder (``scratch``), removed at the
end, and writes each failing notebook's nbval report (the diff) to ``.artifacts/nbval/``, which CI
uploads. It also orders the files longest first (``LONGEST``, then the chapters, then the solutions,
English and Japanese (``ja/``) alike, then the rest, each in its own order): with ``--dist
loadfile`` xdist hands files to the workers in collection order, so the long ones start at once and
the short ones fill the end, instead of two workers waiting on the last notebooks. Deliberately left
out: anything about what a test checks, and any other way of spreading tests (``--dist loadfile``: a
notebook's cells share one kernel, a module its fixtures; xdist's ``loadgroup`` was tried and ran a
notebook's cells in fresh kernels).
"""

from __future__ import annotations

import contextlib
import shutil
from pathlib import Path

import pytest

from compaction.course.scratch import run_folder, this_process_in

NAME = "compaction.course.pytest_plugin"  # what -p and the conftest register it as
NBVAL_DIFFS = Path(".artifacts") / "nbval"  # under the folder pytest runs in: the course's
_RUN = contextlib.ExitStack()
_ROOT: list[Path] = [Path.cwd()]  # the session's rootdir, once configured
_REPORTS_HERE = [True]  # False on an xdist worker: the controller writes what the workers report
# the slowest test files, measured with --durations on the 2-core machine (3 workers), slowest first
LONGEST = (
    "tests/views/test_browser.py",
    "tests/views/test_browser_ja_lab.py",
    "tests/views/test_edition_browser.py",
    "tests/pipeline/test_properties_pipeline.py",
    "tests/project/test_wheel.py",
    "tests/layers/test_properties_layers.py",
    "tests/course/test_exercises.py",
    "tests/presentation/test_texts_ja.py",  # every check module run once in Japanese
    "tests/levels/test_condense.py",
    "tests/course/test_warm_kernels.py",
    "tests/course/test_checks_api_context.py",
    "tests/core/test_messages.py",
    "tests/core/test_tokens.py",
    "tests/layers/test_reactive.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """Every temporary file of the session (tests, kernels, chapters) goes under one run folder."""
    folder = _RUN.enter_context(run_folder())
    _RUN.enter_context(this_process_in(folder))
    _ROOT[0] = config.rootpath
    _REPORTS_HERE[0] = not hasattr(config, "workerinput")
    if _REPORTS_HERE[0] and config.getoption("nbval", default=False):
        shutil.rmtree(config.rootpath / NBVAL_DIFFS, ignore_errors=True)  # only this run's failures


def run_order(path: str) -> int:
    """Where a file's tests go in the run: the slowest files, the chapters, the solutions, the rest."""
    if path in LONGEST:
        return LONGEST.index(path)
    for rank, folder in enumerate(("notebooks/", "solutions/"), start=len(LONGEST)):
        if path.startswith((folder, f"ja/{folder}")):  # the Japanese edition's rank as the English
            return rank
    return len(LONGEST) + 2


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Longest files first (a stable sort: a file's tests, a notebook's cells, keep their order)."""
    items.sort(key=lambda item: run_order(item.nodeid.split("::", 1)[0]))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put the temporary-file settings back and remove the run folder."""
    _RUN.close()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A failing notebook cell's report is appended to .artifacts/nbval/<folder>__<notebook>.txt."""
    notebook = report.nodeid.split("::", 1)[0]
    if not (report.failed and _REPORTS_HERE[0] and notebook.endswith(".ipynb")):
        return
    folder = _ROOT[0] / NBVAL_DIFFS
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / (notebook.replace("/", "__") + ".txt"), "a", encoding="utf-8") as out:
        out.write(f"{report.nodeid}\n{report.longreprtext}\n\n")
