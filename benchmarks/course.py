"""The course itself: each notebook's execution time, and the whole strict nbval run.

Notebooks run with nbclient in their own folder, as nbval runs them, one after the other; their sum
is a row. The nbval run is the part of ``make test`` that checks notebooks, with the same options
(two pytest-xdist processes, kernels forked warm), timed from outside. Quick mode times the first
two chapters only.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from compaction.course.commands import notebooks as course_notebooks
from compaction.course.commands import offline_env, pytest_command
from compaction.course.notebooks import run_notebook
from compaction.course.scratch import run_folder
from compaction.course.warm_kernels import warm_kernels

from .tables import table

ROOT = Path(__file__).resolve().parents[1]
GOAL_NOTEBOOK_S = 30.0
GOAL_NBVAL_S = 180.0
WORKERS = 2  # as make test runs it


def notebooks() -> list[Path]:
    """Every chapter and solution notebook nbval checks (both editions), in course order."""
    return [ROOT / name for name in course_notebooks(ROOT)]


def time_notebook(path: Path) -> float:
    """Seconds to execute one notebook from a fresh kernel."""
    start = time.perf_counter()
    run_notebook(path)
    return time.perf_counter() - start


def time_nbval(paths: list[Path]) -> tuple[float, int]:
    """Seconds for the strict nbval run over ``paths`` as ``make test`` runs it, and its exit code.

    As there, in a run folder with the kernels forked warm (``compaction.course.warm_kernels``); the
    rows above start each kernel the ordinary way, as a learner's JupyterLab does.
    """
    cmd = pytest_command(WORKERS, [str(p.relative_to(ROOT)) for p in paths], nbval=True)
    start = time.perf_counter()
    with run_folder() as folder, warm_kernels(folder, offline_env(folder)) as env:
        code = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, check=False).returncode
    return time.perf_counter() - start, code


def run(quick: bool = False) -> str:
    """The table: seconds per notebook against the 30 s goal, then the whole nbval run."""
    paths = notebooks()
    timed = [p for p in paths if p.parent.name == "notebooks"][:2] if quick else paths
    rows = []
    for path in timed:
        try:
            seconds = time_notebook(path)
        except Exception as exc:  # noqa: BLE001 - a broken notebook is a row, not the end of the figures
            rows.append([str(path.relative_to(ROOT)), "-", f"FAILED: {type(exc).__name__}"])
            continue
        rows.append([str(path.relative_to(ROOT)), seconds, "ok" if seconds < GOAL_NOTEBOOK_S else "SLOW"])
    total = sum(row[1] for row in rows if isinstance(row[1], float))
    rows.append([f"all {len(rows)} notebooks, one after the other", total, "sum of the rows above"])
    if quick:
        rows.append([f"strict nbval over {len(paths)} notebooks", "-", "not run with --quick"])
    else:
        seconds, code = time_nbval(paths)
        verdict = ("ok" if seconds < GOAL_NBVAL_S else "SLOW") + ("" if code == 0 else f", exit {code}")
        rows.append([f"strict nbval over {len(paths)} notebooks, {WORKERS} processes", seconds, verdict])
    return table(
        f"d. the course (seconds; goals: {GOAL_NOTEBOOK_S:.0f} s a notebook, {GOAL_NBVAL_S:.0f} s for nbval)",
        ["notebook", "seconds", "verdict"],
        rows,
    )
