"""The SDK floor in pyproject.toml is the first release that has everything the package uses.

The newest SDK features the package uses are cache-miss diagnostics on the non-beta
``client.messages.create`` (``diagnostics``, in SDK 1.9.0 and not in 1.8.0), which
``compact_on_demand.run_diagnosed`` sends on every request, and the tool runner's
``compact_before_next_turn`` (1.7.0) with on-demand compaction (``compaction``, 1.6.0), which
``run_runner`` drives. The floor release, installed from the package registry into a bare venv beside
the package's wheel and its other requirements, runs both on the offline model; the release before it
fails on the first. The releases and their contents were read from the wheels on the registry
(``resources/messages/messages.py`` and ``lib/tools/_beta_runner.py`` of each).
Runs in CI with the rest of ``tests/project`` (uv installs each venv in a few seconds from its cache).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from test_wheel import ROOT, beside_python, clean_env, venv_python

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

FLOOR, BEFORE = "1.9.0", "1.8.0"
USES = """
from compaction.agent.compact_on_demand import run_diagnosed, run_runner
run = run_runner(window=8_000, turns=6, trigger=lambda usage, pending, threshold: True, threshold=0)
assert run.error is None and run.compactions >= 1, run.error
calls, result = run_diagnosed(window=8_000, turns=6)
assert result.error is None and len(calls) == 6, result.error
print("ok", run.compactions, len(calls))
"""


def runtime() -> list[str]:
    """The package's runtime requirements but the SDK, as pyproject.toml lists them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [r for r in project["dependencies"] if Requirement(r).name != "anthropic"]


def sdk_floor() -> str:
    """The version pyproject.toml requires of the SDK (``anthropic>=X``)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (found,) = [r for r in project["dependencies"] if Requirement(r).name == "anthropic"]
    return re.fullmatch(r"anthropic>=([\d.]+)", found).group(1)


def installed_with(version: str, work: Path) -> tuple[Path, dict]:
    """A bare venv holding the package (no deps of its own) and ``anthropic==version``."""
    env = clean_env(work)
    uv = beside_python("uv")
    folder = work / f"venv-{version}"
    venv.create(folder, with_pip=uv is None)
    python = venv_python(folder)
    if uv:
        install = [str(uv), "pip", "install", "-q", "--python", str(python)]
    else:
        install = [str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run([*install, f"anthropic=={version}", *runtime()], check=True, cwd=work, env=env)
    subprocess.run([*install, "--no-deps", str(source(work))], check=True, cwd=work, env=env)
    return python, env


def source(work: Path) -> Path:
    """A copy of what the package is built from, so the checkout gets no build/ folder."""
    copy = work / "source"
    if not copy.is_dir():
        copy.mkdir()
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, copy / name)
        shutil.copytree(
            ROOT / "compaction", copy / "compaction", ignore=shutil.ignore_patterns("__pycache__")
        )
    return copy


def run_uses(python: Path, env: dict, work: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(python), "-c", USES], cwd=work, env=env, capture_output=True, text=True, check=False, timeout=300
    )


def test_pyproject_and_environment_name_the_floor():
    assert sdk_floor() == FLOOR
    assert f"anthropic>={FLOOR}" in (ROOT / "environment.yml").read_text(encoding="utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="the venv layout differs; CI runs on Debian")
def test_the_floor_runs_what_uses_the_newest_features_and_the_release_before_does_not(tmp_path):
    python, env = installed_with(FLOOR, tmp_path)
    works = run_uses(python, env, tmp_path)
    assert works.returncode == 0 and works.stdout.startswith("ok"), works.stderr[-2000:]
    python, env = installed_with(BEFORE, tmp_path)
    fails = run_uses(python, env, tmp_path)
    assert fails.returncode != 0
    assert "diagnostics" in fails.stderr, fails.stderr[-2000:]
