"""Shared pytest setup: hypothesis profiles (``ci`` when CI=true, else ``dev``)."""

from __future__ import annotations

import os

from hypothesis import settings

# ci: thorough and never flaky on a slow runner; dev: quick enough to run on every save
settings.register_profile("ci", max_examples=500, deadline=None)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI", "").lower() == "true" else "dev")
