"""``prepare()`` per turn while micro clears on every turn, at 1,000 and 10,000 messages.

The session of table a (about 3 MB of tool output over N messages) grows by one tool call and a
result of 2,000 characters per turn; the pipeline is masking (``Micro(keep_recent=10, trigger=0,
clear_at_least=0)``, the evaluation's ``masking 10``): every turn it clears the result that has just
become the eleventh newest, and every result before it is a placeholder already. The counter
anchors on the (simulated) usage after each turn, as in the agent loop. Two runs of the same
turns: the package's micro, which remembers the settled head of the last list (``Scanned``) and
looks only past it, and the same function called without it (``run=``), which walks every result
of the history on every turn, as micro did before. Both give the same lists (checked here).
Deliberately left out: the summary (a pass that replaces the whole list once).
"""

from __future__ import annotations

import statistics
import time

from compaction.core import messages as M
from compaction.layers.micro import Micro, micro_compact
from compaction.pipeline.compactor import Compactor

from .pipeline import session
from .tables import table

RESULT = "\n".join(f"{n:4d}  check_{n} ... ok" for n in range(100))[:2_000]


def _turn(i: int) -> tuple[dict, dict]:
    tid = f"toolu_clear_{i:08d}"
    return (
        M.assistant("Next.", M.tool_use(tid, "bash", {"command": f"python run_tests.py -k case_{i}"})),
        M.user(M.tool_result(tid, RESULT)),
    )


def per_turn(n_messages: int, turns: int, scanned: bool) -> tuple[float, list[dict]]:
    """Median ms of ``prepare()`` per turn, and the last list, with or without micro's settled head."""
    run = micro_compact if scanned else (lambda messages, **options: micro_compact(messages, **options))
    compactor = Compactor(
        [Micro(keep_recent=10, trigger=0.0, clear_at_least=0, run=run)], context_window=10**9
    )
    messages = compactor.prepare(session(n_messages))  # the history: every old result cleared once
    compactor.observe(messages, {"input_tokens": compactor.estimate(messages)})
    times = []
    for i in range(turns):
        messages = [*messages, *_turn(i)]
        start = time.perf_counter()
        messages = compactor.prepare(messages)
        times.append(time.perf_counter() - start)
        compactor.observe(messages, {"input_tokens": compactor.estimate(messages)})
    return statistics.median(times) * 1e3, messages


def run(quick: bool = False) -> str:
    """The table at 1,000 and 10,000 messages."""
    rows = []
    for n in (1_000, 10_000):
        ours, last = per_turn(n, 10 if quick else 40, scanned=True)
        theirs, same = per_turn(n, 10 if quick else 40, scanned=False)
        assert last == same, "micro with and without its settled head gave different lists"
        rows.append([n, ours, theirs, f"{theirs / ours:.1f}x" if ours else "-"])
    return table(
        "a2. prepare() per turn while micro clears every turn (masking, keep 10; median ms)",
        ["messages", "prepare() ms", "whole history ms", "speedup"],
        rows,
    )


if __name__ == "__main__":
    import sys

    print(run("--quick" in sys.argv))
