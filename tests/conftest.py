"""Shared pytest setup: hypothesis profiles (``ci`` when CI=true, else ``dev``), and the course's
pytest plugin (one temporary folder per run, failing notebooks' diffs), which
``python -m compaction.course test`` loads with ``-p`` and a plain pytest run gets from here."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from compaction.course import pytest_plugin

# ci: twice hypothesis's default search and never flaky on a slow runner (each run draws new examples,
# so runs add up; 500 took the run past ten minutes on two cores); dev: quick enough for every save
settings.register_profile("ci", max_examples=200, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")

# pytest-xdist's workers start with COLUMNS=80 and LINES=24 that nobody chose; `compaction replay`
# takes COLUMNS as its caller's table width, so the tests run without them (a test that wants a
# width sets COLUMNS itself, as test_replay_cli does)
for _name in ("COLUMNS", "LINES"):
    os.environ.pop(_name, None)


def pytest_configure(config: pytest.Config) -> None:
    """Register the course's plugin unless ``-p`` already did (its own configure runs then)."""
    if not config.pluginmanager.has_plugin(pytest_plugin.NAME):
        config.pluginmanager.register(pytest_plugin, pytest_plugin.NAME)
