"""Shared pytest setup: hypothesis profiles (``ci`` when CI=true, else ``dev``), one temporary
folder for the whole run (removed at its end), notebooks kept whole on one xdist worker, and each
failing notebook's nbval diff written to ``.artifacts/nbval/`` (CI uploads the folder)."""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

import pytest
from hypothesis import settings

from compaction.course.scratch import run_folder, this_process_in

# ci: thorough and never flaky on a slow runner; dev: quick enough to run on every save
settings.register_profile("ci", max_examples=500, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")

_RUN = contextlib.ExitStack()
NBVAL_DIFFS = Path(__file__).resolve().parents[1] / ".artifacts" / "nbval"
_REPORTS_HERE = [True]  # False on an xdist worker: the controller writes what workers report


def pytest_configure(config: pytest.Config) -> None:
    """Every temporary file of the run (tests, kernels, chapters) goes under one course folder."""
    folder = _RUN.enter_context(run_folder())
    _RUN.enter_context(this_process_in(folder))
    _REPORTS_HERE[0] = not hasattr(config, "workerinput")
    if _REPORTS_HERE[0] and config.getoption("nbval", default=False):
        shutil.rmtree(NBVAL_DIFFS, ignore_errors=True)  # only this run's failures


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """A failing notebook cell's report (nbval's diff) is appended to .artifacts/nbval/<notebook>.txt."""
    notebook = report.nodeid.split("::", 1)[0]
    if not (report.failed and _REPORTS_HERE[0] and notebook.endswith(".ipynb")):
        return
    NBVAL_DIFFS.mkdir(parents=True, exist_ok=True)
    with open(NBVAL_DIFFS / (notebook.replace("/", "__") + ".txt"), "a", encoding="utf-8") as out:
        out.write(f"{report.nodeid}\n{report.longreprtext}\n\n")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put the temp settings back and remove the run's folder."""
    _RUN.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` a notebook's cells share one kernel, so they stay on one worker."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.xdist_group(name=str(item.path)))
