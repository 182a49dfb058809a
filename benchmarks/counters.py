"""Token counters: throughput and error against cl100k on prose, code, JSON and logs.

The texts are made here, deterministically, from the package's own source (code), its prompts and
docstrings (prose), a generated session (JSON) and generated log lines (logs).
"""

from __future__ import annotations

import inspect
import json
import random
import time
from functools import partial
from pathlib import Path

from compaction.core import messages as M
from compaction.core import tokens

from .tables import table


def corpora(size: int = 400_000) -> dict[str, str]:
    """Four kinds of text, each about ``size`` characters."""
    import compaction
    from compaction.layers import summarize

    root = Path(compaction.__file__).parent
    code = "\n".join(p.read_text() for p in sorted(root.rglob("*.py")))
    docs = [inspect.getdoc(m) or "" for m in (tokens, M, summarize)] + [summarize.SUMMARY_PROMPT]
    prose = "\n\n".join(docs)
    rng = random.Random(7)
    session = [
        {
            "role": "assistant",
            "content": [M.tool_use(f"toolu_{i:06d}", "read_file", {"path": f"src/m{i}.py"})],
        }
        for i in range(200)
    ]
    js = json.dumps(session, indent=2)
    levels = ["INFO", "DEBUG", "WARN", "ERROR"]
    logs = "\n".join(
        f"2026-11-29T14:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1000):03d}Z {rng.choice(levels)} "
        f"worker-{rng.randrange(8)} request id={rng.getrandbits(48):012x} "
        f"path=/api/v1/items/{rng.randrange(10**5)} "
        f"status={rng.choice([200, 200, 200, 404, 500])} bytes={rng.randrange(10**6)}"
        for i in range(6000)
    )
    return {k: _repeat(v, size) for k, v in {"prose": prose, "code": code, "JSON": js, "logs": logs}.items()}


def _repeat(text: str, size: int) -> str:
    return (text * (size // max(len(text), 1) + 1))[:size]


def _rate(fn, arg, nbytes: int, repeat: int) -> tuple[int, float]:
    """The result of ``fn(arg)`` and the best throughput over ``repeat`` runs, in MB/s."""
    best = float("inf")
    result = 0
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(arg)
        best = min(best, time.perf_counter() - start)
    return result, nbytes / best / 1e6


def run(quick: bool = False) -> str:
    """Throughput (MB/s) and error of chars/4, tiktoken and the cached counter, per kind of text."""
    size = 100_000 if quick else 400_000
    repeat = 2 if quick else 5
    rows = []
    for kind, text in corpora(size).items():
        chunks = [text[i : i + 4_000] for i in range(0, len(text), 4_000)]
        msgs = [M.user(c) if i % 2 == 0 else M.assistant(c) for i, c in enumerate(chunks)]
        nbytes = len(text.encode())
        exact, tk_rate = _rate(partial(tokens.estimate_tokens, method="tiktoken"), msgs, nbytes, repeat)
        approx, ch_rate = _rate(partial(tokens.estimate_tokens, method="chars"), msgs, nbytes, repeat)
        counter = tokens.TokenCounter("tiktoken")
        counter.count(msgs)  # the first pass fills the cache; later turns pay only for new messages
        _, cached_rate = _rate(counter.count, msgs, nbytes, repeat)
        error = (approx - exact) / exact * 100
        rows.append([kind, len(msgs), exact, approx, f"{error:+.1f}%", tk_rate, ch_rate, cached_rate])
    return table(
        "b. token counters over a message list (MB/s of text; error of chars/4 against cl100k)",
        [
            "text",
            "messages",
            "cl100k tokens",
            "chars/4",
            "error",
            "tiktoken MB/s",
            "chars/4 MB/s",
            "cached MB/s",
        ],
        rows,
    )
