"""The command line's start-up: ``compaction replay --help`` and a small shared session, in warm processes.

Each command runs as its own process, several times after a warm-up run (the files it reads are
then in the page cache and its bytecode compiled: a warm process), alternating with the yardstick
``python -c "import json"``, so a drift of the machine's speed hits both; the figure is the median
of each, and the ratio the median of the run-by-run ratios. CPU is user + system seconds of the
process (the OS's own accounting). Goals: ``--help`` within 10x of the yardstick, a replay of a
small shared session (all of replay's default strategies, probes found in it) within 2 s.
Also said: whether the command imported the SDK (``anthropic``) or detect-secrets, from its own
``-X importtime`` log. Deliberately left out: a cold start (the first run after boot, whose
figure is the disk's).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from .tables import table

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
SMALL = DATA / "swe-agent-trajectories" / "BabyEncryption-4.traj"  # 50 KB, 11 turns
YARDSTICK = [sys.executable, "-c", "import json"]
HELP_GOAL, SMALL_GOAL_S = 10.0, 2.0


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``command``, its output thrown away."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    env = {**os.environ, "COMPACTION_BACKEND": "offline"}
    subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, cwd=ROOT, env=env
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def paired(command: list[str], runs: int) -> dict:
    """Medians of ``command`` and of the yardstick run in turn, and of their run-by-run ratios."""
    timed(command), timed(YARDSTICK)  # warm-up
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(timed(command))
        theirs.append(timed(YARDSTICK))
    return {
        "wall": statistics.median(w for w, _ in ours),
        "cpu": statistics.median(c for _, c in ours),
        "yardstick": statistics.median(w for w, _ in theirs),
        "ratio": statistics.median(a[0] / b[0] for a, b in zip(ours, theirs, strict=True)),
        "cpu ratio": statistics.median(a[1] / max(b[1], 1e-3) for a, b in zip(ours, theirs, strict=True)),
    }


def loaded(command: list[str]) -> str:
    """Which of the heavy imports ``command`` made: the SDK, detect-secrets, the notebook stack."""
    log = subprocess.run(
        [sys.executable, "-X", "importtime", *command[1:]], capture_output=True, text=True, cwd=ROOT
    ).stderr
    names = {line.rsplit("|", 1)[-1].strip() for line in log.splitlines() if "|" in line}
    heavy = {
        "anthropic": "SDK",
        "detect_secrets": "detect-secrets",
        "ipywidgets": "widgets",
        "IPython": "IPython",
    }
    found = [label for module, label in heavy.items() if module in names]
    return ", ".join(found) or "none of them"


def run(quick: bool = False) -> str:
    """The start-up table: ``replay --help`` and a small shared session against the yardstick."""
    runs = 3 if quick else 9
    cli = [sys.executable, "-m", "compaction", "replay"]
    commands = [("compaction replay --help", [*cli, "--help"], f"within {HELP_GOAL:.0f}x", None)]
    if SMALL.exists():
        label = f"compaction replay {SMALL.name} (4 strategies)"
        commands.append((label, [*cli, str(SMALL)], f"within {SMALL_GOAL_S:.0f} s", SMALL_GOAL_S))
    rows = []
    for label, command, goal, seconds in commands:
        m = paired(command, runs)
        met = m["wall"] < seconds if seconds else m["ratio"] <= HELP_GOAL
        rows.append(
            [
                label,
                m["wall"],
                m["cpu"],
                m["yardstick"],
                f"{m['ratio']:.1f}x",
                loaded(command),
                goal,
                "yes" if met else "NO",
            ]
        )
    return table(
        f'f. the command line, warm (median of {runs} runs each, in turn with python -c "import json")',
        ["command", "wall s", "cpu s", "import json s", "ratio", "heavy imports", "goal", "met"],
        rows,
    )


if __name__ == "__main__":
    print(run("--quick" in sys.argv))
