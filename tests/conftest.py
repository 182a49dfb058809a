"""Shared pytest setup: hypothesis profiles (``ci`` when CI=true, else ``dev``), one temporary
folder for the whole run (removed at its end), and notebooks kept whole on one xdist worker."""

from __future__ import annotations

import contextlib
import os

import pytest
from hypothesis import settings

from compaction.course.scratch import run_folder, this_process_in

# ci: thorough and never flaky on a slow runner; dev: quick enough to run on every save
settings.register_profile("ci", max_examples=500, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")

_RUN = contextlib.ExitStack()


def pytest_configure(config: pytest.Config) -> None:
    """Every temporary file of the run (tests, kernels, chapters) goes under one course folder."""
    folder = _RUN.enter_context(run_folder())
    _RUN.enter_context(this_process_in(folder))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put the temp settings back and remove the run's folder."""
    _RUN.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``--dist loadgroup`` a notebook's cells share one kernel, so they stay on one worker."""
    for item in items:
        if item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.xdist_group(name=str(item.path)))
