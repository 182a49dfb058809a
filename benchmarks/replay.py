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


def write_traj(path: Path, turns: int, result_bytes: int = 10_000, seed: int = 0) -> int:
    """A SWE-agent .traj of ``turns`` actions whose ``trajectory`` repeats each observation; its size.

    Written as it is generated (the observations twice from the same seed), so this process stays
    small: a child process starts with its parent's peak memory on record.
    """

    def observations():
        rng = random.Random(seed)
        for i in range(turns):
            lines = [
                f"src/m{i % 97}.py:{n}: total = {rng.randint(0, 10**6)}" for n in range(result_bytes // 32)
            ]
            yield i, "\n".join(lines)

    with open(path, "w", encoding="utf-8") as f:
        f.write('{"environment": "main", "trajectory": [')
        for i, seen in observations():
            step = {"action": f"grep -n total src/m{i % 97}.py", "observation": seen, "thought": f"step {i}"}
            f.write(("," if i else "") + json.dumps(step))
        f.write('], "history": [')
        f.write(
            json.dumps({"role": "user", "content": "Fix the failing tests. Do not change the public API."})
        )
        for i, seen in observations():
            action = {
                "role": "assistant",
                "content": f"Step {i}",
                "action": f"grep -n total src/m{i % 97}.py",
            }
            f.write("," + json.dumps(action) + "," + json.dumps({"role": "user", "content": seen}))
        f.write('], "info": {"exit_status": "submitted"}}')
    return path.stat().st_size


def measure_import(path: str) -> dict:
    """Import ``path`` in this process: seconds, messages, and peak RSS over the process before it."""
    from compaction.importers import load

    with open("/proc/self/statm") as f:  # resident pages now (ru_maxrss may hold the parent's peak)
        before = int(f.read().split()[1]) * resource.getpagesize()
    start = time.perf_counter()
    session = load(path)
    return {
        "messages": len(session.messages),
        "import_s": time.perf_counter() - start,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "base": before,
    }


def in_fresh_process(call: str) -> dict:
    """Run ``benchmarks.replay.<call>`` in a new interpreter and return the dict it prints."""
    code = f"import json; from benchmarks import replay; print(json.dumps(replay.{call}))"
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def import_row(kind: str, turns: int) -> list:
    """One row of the import table: a generated file of ``kind`` (jsonl or traj), measured fresh."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"session.{kind}"
        size = (write_session if kind == "jsonl" else write_traj)(path, turns)
        m = in_fresh_process(f"measure_import({str(path)!r})")
    grown = m["rss"] - m["base"]
    return [
        "Claude Code JSONL" if kind == "jsonl" else "SWE-agent .traj (trajectory repeats history)",
        f"{size / 1e6:.0f} MB",
        m["messages"],
        round(m["import_s"], 1),
        f"{size / 1e6 / m['import_s']:.0f}",
        f"{m['rss'] / 2**20:,.0f} MiB",
        f"{grown / 2**20:,.0f} MiB",
        f"{grown / size:.2f}",
    ]


def import_table(quick: bool = False) -> str:
    """Importing a 100 MB session (10 MB in quick mode): streamed, so memory grows by less than twice it."""
    turns = 1_000 if quick else 10_000
    return table(
        "e2. importing a large session file (a fresh process each; growth / file: memory the import "
        "added at its peak per byte of file; json.load of a document alone adds about 2)",
        ["format", "file", "messages", "import s", "MB/s", "peak memory", "growth", "growth / file"],
        [import_row("jsonl", turns), import_row("traj", turns // 2)],
    )


def measure(path: str, window: int = WINDOW) -> dict:
    """Import and replay ``path`` in this process; seconds, messages and peak RSS as a dict."""
    from compaction.agent.backend import connect
    from compaction.agent.loop import SAMPLE_WINDOW
    from compaction.evaluate.replay.engine import replay
    from compaction.importers import load

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
            source=path,
        )
        done = time.perf_counter()
        saved = sum(p.stat().st_size for p in Path(work).rglob("*") if p.is_file())
    return {
        "messages": len(session.messages),
        "import_s": loaded - start,
        "replay_s": done - loaded,
        "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "outcome": run.outcome,
        "fired": run.fired(),
        "peak": run.peak,
        "saved": saved,
    }


def row(turns: int) -> list:
    """One table row: a generated session of ``turns`` turns, measured in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        size = write_session(path, turns)
        m = in_fresh_process(f"measure({str(path)!r})")
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
        f"{m['saved'] / 1e6:,.0f} MB",
        m["outcome"],
        fired,
        "yes" if ok else "NO",
    ]


def run(quick: bool = False) -> str:
    """The replay table: a 5,000-turn, 50 MB session (500 turns in quick mode)."""
    rows = [row(turns) for turns in ((500,) if quick else (500, 5_000))]
    return (
        import_table(quick)
        + "\n\n"
        + table(
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
                "saved to disk",
                "outcome",
                "layers fired",
                "goal met",
            ],
            rows,
        )
    )
