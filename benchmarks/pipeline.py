"""Pipeline overhead per turn in steady state, against a seed-style baseline measured in the same run.

A session of N messages (about 3 MB of tool output in all) grows by one assistant tool call and
one tool result per turn. Each turn the pipeline prepares the list, the "API" answers with the
usage the counter would report, and the counter anchors on it, as in the agent loop. Nothing needs
compacting (large window, no snip), so the figure is the price of deciding that, every turn.

The baseline does what the teaching code in the design documents does each turn: sum the newest
results, count the messages, walk every tool result for micro-compaction, and estimate the size by
serialising the whole list (``len(str(messages)) / 4``).
"""

from __future__ import annotations

import statistics
import tempfile
import time

from compaction.core import messages as M
from compaction.core.store import OutputStore
from compaction.pipeline.compactor import Compactor

from .tables import table

OUTPUT_BYTES = 3_000_000


def session(n_messages: int, output_bytes: int = OUTPUT_BYTES) -> list[dict]:
    """A valid session of ``n_messages`` with ``output_bytes`` of tool output spread over its results."""
    pairs = (n_messages - 1) // 2
    size = max(200, output_bytes // max(pairs, 1))
    out: list[dict] = [M.user("Find and fix the failing tests in this project.")]
    for i in range(pairs):
        out.append(
            M.assistant(f"Step {i}.", M.tool_use(f"toolu_{i:08d}", "read_file", {"path": f"src/m{i}.py"}))
        )
        out.append(M.user(M.tool_result(f"toolu_{i:08d}", _output(i, size))))
    return out


def _output(i: int, size: int) -> str:
    line = f"{i:6d}\tdef function_{i}(value):  # returns value squared\n"
    return (line * (size // len(line) + 1))[:size]


def _turn(i: int) -> tuple[dict, dict]:
    tid = f"toolu_new_{i:08d}"
    return (
        M.assistant("Next.", M.tool_use(tid, "bash", {"command": "python run_tests.py"})),
        M.user(M.tool_result(tid, "12 passed, 0 failed")),
    )


def seed_style_prepare(messages: list[dict]) -> int:
    """The baseline: every pass looks at the whole list again; returns the size estimate."""
    last = messages[-1]
    blocks = [b for b in last["content"] if isinstance(b, dict) and b.get("type") == "tool_result"]
    total = sum(len(str(b.get("content", ""))) for b in blocks)
    _ = total > 200_000 or len(messages) > 10**9
    results = [
        b
        for m in messages
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    _ = [len(str(b.get("content", ""))) > 120 for b in results[:-3]]
    return len(str(messages)) // 4


def per_turn(n_messages: int, turns: int) -> tuple[float, float]:
    """Median milliseconds per turn: (pipeline, seed-style baseline) on a session of ``n_messages``."""
    base = session(n_messages)
    with tempfile.TemporaryDirectory() as tmp:
        compactor = Compactor(
            store=OutputStore(tmp), context_window=10**9, max_messages=10**9, summarize=False
        )
        messages = compactor.prepare(base)
        compactor.observe(messages, {"input_tokens": compactor.estimate(messages)})
        ours, theirs = [], []
        for i in range(turns):
            messages = [*messages, *_turn(i)]
            start = time.perf_counter()
            sent = compactor.prepare(messages)
            ours.append(time.perf_counter() - start)
            compactor.observe(sent, {"input_tokens": compactor.estimate(sent)})
            messages = sent
            start = time.perf_counter()
            seed_style_prepare(messages)
            theirs.append(time.perf_counter() - start)
    return statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3


def run(quick: bool = False) -> tuple[str, float]:
    """The table for 100, 1,000 and 10,000 messages, and the speedup at 1,000."""
    rows, speedup = [], 0.0
    for n in (100, 1_000, 10_000):
        ours, theirs = per_turn(n, 10 if quick else 40)
        ratio = theirs / ours if ours else float("inf")
        if n == 1_000:
            speedup = ratio
        rows.append([n, f"{OUTPUT_BYTES / 1e6:.0f} MB", ours, theirs, f"{ratio:.1f}x"])
    text = table(
        "a. pipeline overhead per turn, steady state (median ms; nothing to compact)",
        ["messages", "tool output", "prepare() ms", "seed-style ms", "speedup"],
        rows,
    )
    return text, speedup
