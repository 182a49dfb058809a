"""The course's two commands without make: ``lab`` opens JupyterLab at chapter 00, ``test`` checks
every lesson (``make lab`` and ``make test`` call these).

``lab`` opens the English chapter 00 or, for ``ja`` (``--lang ja``, else ``COMPACTION_LANG``, else a
Japanese locale), the Japanese edition's ``ja/notebooks/00_welcome.ipynb``, with JupyterLab's own
menus and dialogs in the edition's language (``.jupyter/lab-settings/<language>/overrides.json``:
defaults for that server only, so the user's settings for other projects stay as they are).

``test`` is ruff, then one pytest run over ``tests/`` and, with nbval's strict output comparison,
every notebook of ``notebooks/`` and ``solutions/`` and of the Japanese edition's ``ja/notebooks/``
and ``ja/solutions/``, on ``workers`` pytest-xdist processes:
``--dist loadfile`` keeps a notebook's cells in one kernel and a test module's fixtures on one
worker. Both always use the offline model. Both run in the course's
folder (the one holding ``notebooks/`` and ``pyproject.toml``), with their temporary files in one
run folder (``compaction.course.scratch``); ``test``'s kernels are forked from one process that has
imported the SDK (``compaction.course.warm_kernels``). Deliberately left out: creating ``.venv`` and
installing the package, which make does, and the README shows for a machine without make.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import zmq

from compaction.course.scratch import run_folder, temp_env
from compaction.course.warm_kernels import warm_kernels
from compaction.presentation.language import LANGUAGES, VARIABLE, locale_language

LAB_CONFIG = Path(".jupyter") / "jupyter_lab_config.py"
LAB_SETTINGS = Path(".jupyter") / "lab-settings"  # <language>/overrides.json: JupyterLab's defaults
FIRST_CHAPTER = "notebooks/00_welcome.ipynb"
FIRST_CHAPTERS = {"en": FIRST_CHAPTER, "ja": "ja/notebooks/00_welcome.ipynb"}  # language -> chapter 00
SANITIZE = Path("tests") / "nbval_sanitize.cfg"
NOTEBOOK_FOLDERS = ("notebooks", "solutions", "ja/notebooks", "ja/solutions")
# solved notebooks -> the exercises build-exercises writes from them, one pair per edition
EXERCISE_FOLDERS = (("solutions", "exercises"), ("ja/solutions", "ja/exercises"))
PLUGIN = "compaction.course.pytest_plugin"  # the run folder, failing notebooks' diffs
TOOLS = {"ruff": "ruff", "pytest": "pytest", "xdist": "pytest-xdist", "nbval": "nbval"}  # module -> package


class CourseError(Exception):
    """The command cannot run here: the message says why and what to do."""


def course_root(start: Path | None = None) -> Path:
    """The course's folder: ``start`` (default: the current folder) when it holds the course."""
    root = Path.cwd() if start is None else start
    if not (root / "pyproject.toml").is_file() or not (root / "notebooks").is_dir():
        raise CourseError(f"{root} is not the course's folder (no pyproject.toml and notebooks/): cd into it")
    return root


def offline_env(folder: Path) -> dict[str, str]:
    """The environment of a course run: the offline model, temporary files in ``folder``."""
    env = temp_env(folder)
    env.pop("COMPACTION_BACKEND", None)  # tests and notebooks always use the offline model
    return env


def missing_tools() -> list[str]:
    """The test tools this Python cannot import, by package name."""
    return [package for module, package in TOOLS.items() if importlib.util.find_spec(module) is None]


def notebooks(root: Path) -> list[str]:
    """Every chapter and solved exercise nbval checks, relative to ``root``, in course order."""
    return [str(p.relative_to(root)) for f in NOTEBOOK_FOLDERS for p in sorted((root / f).glob("*.ipynb"))]


def pytest_command(workers: int, paths: Sequence[str], nbval: bool) -> list[str]:
    """pytest over ``paths`` on ``workers`` processes; strict nbval for the notebooks among them."""
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-p",
        PLUGIN,
        "-rs",
        "-n",
        str(workers),
    ]
    command += ["--dist", "loadfile", *paths]
    return command + (["--nbval", "--nbval-sanitize-with", str(SANITIZE)] if nbval else [])


def test_commands(root: Path, workers: int) -> list[list[str]]:
    """The commands ``test`` runs, in order: ruff, then pytest over the tests and the notebooks."""
    found = notebooks(root)
    return [
        [sys.executable, "-m", "ruff", "check", "."],
        pytest_command(workers, ["tests", *found], bool(found)),
    ]


def run_tests(root: Path, workers: int = 2) -> int:
    """Ruff, then pytest and strict nbval; the first non-zero exit code, or 0."""
    missing = missing_tools()
    if missing:
        raise CourseError(f"missing test tools {', '.join(missing)}: pip install -e '.[course,test]'")
    with run_folder() as folder, warm_kernels(folder, offline_env(folder)) as env:
        for command in test_commands(root, workers):
            code = subprocess.run(command, cwd=root, env=env, check=False).returncode
            if code:
                return code
    return 0


def lab_language(chosen: str | None = None, environ: dict[str, str] | None = None) -> str:
    """The edition ``lab`` opens: ``chosen``, else ``COMPACTION_LANG``, else the locale's, else English."""
    environ = dict(os.environ) if environ is None else environ
    value = chosen or environ.get(VARIABLE) or locale_language(environ) or "en"
    if value not in LANGUAGES:
        where = "--lang" if chosen else f"the {VARIABLE} variable"
        raise CourseError(f"{where}: unknown language {value!r}; use one of {', '.join(LANGUAGES)}")
    return value


def lab_settings(root: Path, language: str) -> Path:
    """The folder of JupyterLab's setting defaults for an edition (its ``overrides.json``)."""
    return root / LAB_SETTINGS / language


def lab_command(root: Path, lab_args: Sequence[str] = (), language: str = "en") -> list[str]:
    """JupyterLab with the course's config in ``language``, kernels on an encrypted channel, at chapter 00."""
    command = [sys.executable, "-m", "jupyterlab", f"--config={root / LAB_CONFIG}"]
    command.append(f"--LabApp.app_settings_dir={lab_settings(root, language)}")  # a flag of lab_args wins
    if zmq.has("curve"):  # the kernel then has no reason to warn about plain TCP
        command.append("--KernelManager.transport_encryption=auto")
    return [*command, *lab_args, FIRST_CHAPTERS[language]]


def run_lab(root: Path, lab_args: Sequence[str] = (), language: str = "en") -> int:
    """Serve the course until JupyterLab stops; its exit code."""
    if importlib.util.find_spec("jupyterlab") is None:
        raise CourseError("JupyterLab is not installed: pip install -e '.[course]'")
    with run_folder() as folder:
        command = lab_command(root, lab_args, language)
        server = subprocess.Popen(command, cwd=root, env=temp_env(folder))
        try:
            return server.wait()
        except KeyboardInterrupt:  # stop the server (and its kernels) before the folder goes
            server.terminate()
            return server.wait()


def default_workers() -> int:
    """One pytest process more than there are cores: a worker waiting on its kernel leaves a core idle."""
    return (os.cpu_count() or 1) + 1
