"""Replaying a long recorded session: import, then the default pipeline turn by turn.

A Claude Code session file of 5,000 turns and about 50 MB is generated (a task, then one tool call
and one distinct result of about 10 KB per turn: source listings, test logs, grep output). In a
fresh process, ``importers.load`` reads it line by line and ``replay.engine.replay`` runs it
through the default pipeline in a 200,000-token window with the offline summarizer, as
``compaction replay`` does. The figures: seconds and messages per second for each step, and the
process's peak resident memory. Goal: under 60 s and under 1 GiB for the whole replay.
"""

from __future__ import annotations

import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .tables import table

GOAL_S = 60.0
GOAL_BYTES = 1 << 30
WINDOW = 200_000


def write_session(path: Path, turns: int, result_bytes: int = 10_000, seed: int = 0) -> int:
    """A Claude Code session file of ``turns`` tool calls with results of ~``result_bytes``; its size."""
    rng = random.Random(seed)
    words = "value index parser token window result error total count file line module test".split()
    parent = None
    with open(path, "w", encoding="utf-8") as f:

        def put(kind: str, content, n: int) -> None:
            nonlocal parent
            record = {
                "type": kind,
                "uuid": f"r{n}",
                "parentUuid": parent,
                "message": {"role": kind, "content": content},
            }
            f.write(json.dumps(record) + "\n")
            parent = f"r{n}"

        put("user", "Fix the failing tests in the parser package. Do not change the public API.", 0)
        for i in range(turns):
            lines, size = [], 0
            while size < result_bytes:
                said = " ".join(rng.choices(words, k=8))
                line = f"src/m{i % 97}.py:{len(lines) + 1}: {said} = {rng.randint(0, 10**6)}"
                lines.append(line)
                size += len(line) + 1
            call = {
                "type": "tool_use",
                "id": f"toolu_{i:06d}",
                "name": "Bash",
                "input": {"command": f"grep -n {words[i % 13]} src"},
            }
            put("assistant", [{"type": "text", "text": f"Step {i}: searching."}, call], 2 * i + 1)
            put(
                "user",
                [{"type": "tool_result", "tool_use_id": f"toolu_{i:06d}", "content": "\n".join(lines)}],
                2 * i + 2,
            )
    return path.stat().st_size


def measure(path: str, window: int = WINDOW) -> dict:
    """Import and replay ``path`` in this process; seconds, messages and peak RSS as a dict."""
    from compaction.agent import SAMPLE_WINDOW
    from compaction.backend import connect
    from compaction.importers import load
    from compaction.replay.engine import replay

    start = time.perf_counter()
    session = load(path)
    loaded = time.perf_counter()
    with tempfile.TemporaryDirectory() as work:
        run = replay(
            session.messages,
            "pipeline",
            window=window,
            workdir=Path(work),
            client=connect(context_window=SAMPLE_WINDOW),
        )
    done = time.perf_counter()
    return {
        "messages": len(session.messages),
        "import_s": loaded - start,
        "replay_s": done - loaded,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "outcome": run.outcome,
        "fired": run.fired(),
        "peak": run.peak,
    }


def row(turns: int) -> list:
    """One table row: a generated session of ``turns`` turns, measured in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        size = write_session(path, turns)
        code = (
            f"import json; from benchmarks.replay import measure; print(json.dumps(measure({str(path)!r})))"
        )
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parents[1],
        )
    m = json.loads(out.stdout.strip().splitlines()[-1])
    total = m["import_s"] + m["replay_s"]
    fired = ", ".join(f"{k} {v}" for k, v in m["fired"].items())
    ok = total < GOAL_S and m["rss"] < GOAL_BYTES
    return [
        f"{turns:,}",
        f"{size / 1e6:.0f} MB",
        m["messages"],
        round(m["import_s"], 1),
        round(m["messages"] / m["replay_s"]),
        round(total, 1),
        f"{m['rss'] / 2**20:,.0f} MiB",
        m["outcome"],
        fired,
        "yes" if ok else "NO",
    ]


def run(quick: bool = False) -> str:
    """The replay table: a 5,000-turn, 50 MB session (500 turns in quick mode)."""
    rows = [row(turns) for turns in ((500,) if quick else (500, 5_000))]
    return table(
        f"e. replaying a long session through the default pipeline (window {WINDOW:,}; "
        f"goal: under {GOAL_S:.0f} s and 1 GiB)",
        [
            "turns",
            "file",
            "messages",
            "import s",
            "replay msg/s",
            "total s",
            "peak memory",
            "outcome",
            "layers fired",
            "goal met",
        ],
        rows,
    )
