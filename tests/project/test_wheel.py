"""The package as a practitioner installs it: a wheel, no extras, a fresh venv with no notebook stack.

The wheel is built from a copy of what it is made of (pyproject.toml, README.md, compaction/), so the
checkout gets no build/ or egg-info; pip fetches the runtime from the registry it is set up for.
When ``make`` put uv beside this Python, uv builds and installs the same wheel instead (its
metadata decides what comes along either way), in a few CPU-seconds where pip takes about 20. The
installed commands then replay and evaluate a shared SWE-agent session in a small window, so that
the pipeline acts (skipped when ../shared/data is absent).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SESSION = (
    ROOT.parent / "shared" / "data" / "swe-agent-trajectories" / "marshmallow-code__marshmallow-1867-0.traj"
)
WINDOW = "4000"  # tokens: small enough that the pipeline's layers fire on this session
NOTEBOOK_STACK = ("jupyterlab", "notebook", "ipywidgets", "matplotlib", "nbclient", "nbformat", "ipykernel")
PIP = ["--disable-pip-version-check", "--no-input", "-q"]

pytestmark = pytest.mark.skipif(not SESSION.is_file(), reason=f"{SESSION} is absent (../shared/data)")


def clean_env(tmp: Path) -> dict[str, str]:
    """This environment without what would point Python at the checkout or at real Claude."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "COMPACTION_BACKEND", "PYTHONHOME")}
    env.update(TMPDIR=str(tmp), TEMP=str(tmp), TMP=str(tmp))
    return env


def venv_python(folder: Path) -> Path:
    return folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def beside_python(name: str) -> Path | None:
    """A command installed in this Python's own environment (``make`` installs uv there), or None."""
    found = Path(sys.executable).parent / (f"{name}.exe" if os.name == "nt" else name)
    return found if found.is_file() else None


@pytest.fixture(scope="module")
def bare(tmp_path_factory) -> tuple[Path, dict[str, str], Path]:
    """(the fresh venv's python, its environment, a folder to run in) with the wheel installed."""
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "compaction", source / "compaction", ignore=shutil.ignore_patterns("__pycache__"))
    env = clean_env(work)
    uv, pip, dist = beside_python("uv"), [sys.executable, "-m", "pip"], str(work / "dist")
    if uv:
        build = [str(uv), "build", "-q", "--wheel", "-o", dist]
    else:
        build = [*pip, "wheel", *PIP, "--no-deps", "-w", dist]
    subprocess.run([*build, str(source)], check=True, cwd=work, env=env)
    (wheel,) = (work / "dist").glob("compaction-*.whl")
    venv.create(work / "venv", with_pip=False)
    python = venv_python(work / "venv")
    if uv:  # like pip with --no-compile, uv writes no bytecode
        install = [str(uv), "pip", "install", "-q", "--python", str(python)]
    else:
        install = [*pip, "--python", str(python), "install", *PIP, "--no-compile"]
    subprocess.run([*install, str(wheel)], check=True, cwd=work, env=env)
    run_in = work / "run"  # not the checkout: `python -m compaction` must find the installed package
    run_in.mkdir()
    return python, env, run_in


def run(bare, *args: str) -> subprocess.CompletedProcess:
    python, env, cwd = bare
    return subprocess.run([str(python), *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def test_the_bare_install_has_no_notebook_stack_and_uses_the_installed_package(bare):
    probe = "import importlib.util as u, compaction; print([m for m in {!r} if u.find_spec(m)])"
    result = run(bare, "-c", probe.format(NOTEBOOK_STACK) + "; print(compaction.__file__)")
    assert result.returncode == 0, result.stderr
    found, where = result.stdout.splitlines()
    assert found == "[]", f"the base install pulled in {found}"
    assert Path(where).is_relative_to(bare[0].parents[1]), where


def test_the_bare_install_replays_a_shared_session(bare):
    result = run(
        bare, "-m", "compaction", "replay", str(SESSION), "--window", WINDOW, "--strategy", "pipeline"
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert SESSION.name in result.stdout
    assert "pipeline" in result.stdout
    assert "no layer fired" not in result.stdout, "the window should be small enough for the layers to act"


def test_the_bare_install_evaluates_a_shared_session(bare):
    args = [
        "-m",
        "compaction",
        "evaluate",
        "--session",
        str(SESSION),
        "--window",
        WINDOW,
        "--strategy",
        "pipeline",
    ]
    result = run(bare, *args)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert f"{SESSION.stem} (window 4,000;" in result.stdout and "pipeline" in result.stdout, result.stdout
