"""One folder for every temporary file of a course run, removed when the run ends.

A run (``check``, ``execute``, ``lab``, ``test``, a pytest session) makes one folder under
``<system temp>/compaction-course/`` and hands it to the kernels it starts as ``TMPDIR`` (``TEMP``
and ``TMP`` on Windows), so every ``tempfile.mkdtemp`` a chapter or a check makes lands inside it;
the folder is removed when the run ends. A run killed before its end leaves its folder behind: the
next run removes those older than ``STALE_AFTER``. tiktoken's cache is looked up where it was before
(``TIKTOKEN_CACHE_DIR``), so a warm cache stays warm. A run whose outputs are saved (``execute``, a
pytest session's nbval) also gets ``SAVED_RUN``: chapter 00 then reads none of the learner's own
sessions (``compaction.course.own_sessions``), so what is saved is the same on every machine.
Deliberately left out: the package's own commands (``replay``, ``evaluate``), which clean up after
themselves.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

PARENT = "compaction-course"  # under the system temp folder: the one folder the course cleans
STALE_AFTER = 2 * 24 * 3600  # seconds: a run folder this old belongs to a run that was killed
TEMP_VARIABLES = ("TMPDIR", "TEMP", "TMP")  # what tempfile reads, on POSIX and on Windows
OWN_SESSIONS = "COMPACTION_OWN_SESSIONS"  # "off": chapter 00 reads none of the learner's own sessions
SAVED_RUN = {OWN_SESSIONS: "off"}  # the environment a run whose outputs are saved adds


def parent_folder() -> Path:
    """The folder every course run's temporary folder lives in (a run started inside a run: the same one)."""
    temp = Path(tempfile.gettempdir())
    return next((folder for folder in (temp, *temp.parents) if folder.name == PARENT), temp / PARENT)


def remove_stale(parent: Path, now: float | None = None) -> list[Path]:
    """Remove the run folders of ``parent`` older than ``STALE_AFTER``; return them."""
    now = time.time() if now is None else now
    removed = []
    for folder in sorted(parent.glob("run-*")) if parent.is_dir() else []:
        with contextlib.suppress(OSError):
            if now - folder.stat().st_mtime > STALE_AFTER:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
    return removed


def temp_env(folder: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: this process's environment) with the temp variables pointing at ``folder``."""
    env = dict(os.environ if base is None else base)
    if "TIKTOKEN_CACHE_DIR" not in env and "DATA_GYM_CACHE_DIR" not in env:
        # tiktoken's default cache, found again by the kernels
        env["TIKTOKEN_CACHE_DIR"] = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    env.update(dict.fromkeys(TEMP_VARIABLES, str(folder)))
    return env


@contextlib.contextmanager
def run_folder() -> Iterator[Path]:
    """A fresh folder under ``parent_folder()`` for one run, removed with its contents at the end."""
    parent = parent_folder()
    parent.mkdir(exist_ok=True)
    remove_stale(parent)
    folder = Path(tempfile.mkdtemp(prefix="run-", dir=parent))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the parent stays: another run may be starting in it


@contextlib.contextmanager
def this_process_in(folder: Path) -> Iterator[None]:
    """Point this process's ``tempfile`` and environment (so its children's) at ``folder``, then back."""
    saved = {name: os.environ.get(name) for name in (*TEMP_VARIABLES, "TIKTOKEN_CACHE_DIR", *SAVED_RUN)}
    saved_tempdir = tempfile.tempdir
    os.environ.update({**temp_env(folder), **SAVED_RUN})
    tempfile.tempdir = str(folder)
    try:
        yield
    finally:
        tempfile.tempdir = saved_tempdir
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
