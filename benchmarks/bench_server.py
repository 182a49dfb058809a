"""The offline server's overhead per request, and how fast the scripted session grows.

Overhead is measured three ways for conversations of 10 and 500 messages: the server's own work
in-process (parse, validate, count, play the scenario), a raw HTTP POST on loopback, and the full
round trip through the real ``anthropic`` SDK. "cold" clears the per-message token cache first, as
for a list the server has never seen; "warm" is the usual agent-loop case, where all but the
newest messages were counted before. The growth table runs the scenario with no compaction.
Run it alone with ``python -m benchmarks.bench_server [--quick]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import statistics
import time

from compaction.agent.backend import connect
from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import assistant, tool_result, tool_use, user
from compaction.offline import PROJECT, OfflineServer
from compaction.offline.server import api

from .tables import table

HEADERS = {"x-compaction-window": "100000000"}


def conversation(n: int) -> list[dict]:
    """A valid list of ``n`` messages (n odd or even): the task, then reads of the project's files."""
    files = sorted(p for p in PROJECT.rglob("*.py") if "__pycache__" not in p.parts)
    messages = [user("Review every file of the project.")]
    i = 0
    while len(messages) < n - 1:
        path = files[i % len(files)]
        body = "\n".join(f"{k:6}\t{line}" for k, line in enumerate(path.read_text().splitlines(), 1))
        use = tool_use(f"toolu_{i:024x}", "read_file", {"path": str(path.relative_to(PROJECT))})
        said = f"Reading the next file. [step {i % 20 + 1}]"  # the scenario's markers, as in a real run
        messages += [assistant(said, use), user(tool_result(use["id"], body))]
        i += 1
    if len(messages) < n:
        messages.append(assistant("Done reading."))
        messages.append(user("Go on."))
    return messages[:n] if messages[:n][-1]["role"] == "user" else messages[: n - 1]


def _median_ms(fn, repeat: int, before=None) -> float:
    return statistics.median(_times_ms(fn, repeat, before))


def _times_ms(fn, repeat: int, before=None) -> list[float]:
    times = []
    for _ in range(repeat):
        if before:
            before()
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def overhead_table(quick: bool = False) -> str:
    """Median milliseconds per request at 10 and 500 messages."""
    repeat = 5 if quick else 25
    rows = []
    with OfflineServer() as server:
        client = connect().with_options(base_url=server.url)
        for n in (10, 500):
            messages = conversation(n)
            body = {"model": "m", "max_tokens": 1024, "messages": messages, "tools": TOOL_DEFINITIONS}
            raw = json.dumps(body).encode()
            conn = http.client.HTTPConnection("127.0.0.1", server.port)

            def post(conn=conn, raw=raw):
                conn.request(
                    "POST", "/v1/messages", body=raw, headers={"content-type": "application/json", **HEADERS}
                )
                conn.getresponse().read()

            def sdk(messages=messages):
                client.messages.create(
                    model="m",
                    max_tokens=1024,
                    messages=messages,
                    tools=TOOL_DEFINITIONS,
                    extra_headers=HEADERS,
                )

            def clear():
                server.tokens = api.TokenCounts()

            warm = _times_ms(lambda body=body: api.create(server.tokens, server.cache, body, HEADERS), repeat)
            cold = _median_ms(
                lambda body=body: api.create(server.tokens, server.cache, body, HEADERS), repeat, before=clear
            )
            rows.append(
                [n, len(raw) // 1024, cold, statistics.median(warm), min(warm), _median_ms(post, repeat)]
                + [_median_ms(sdk, repeat)]
            )
            conn.close()
        client.close()
    header = [
        "messages",
        "request KB",
        "server cold",
        "server warm",
        "warm best",
        "raw HTTP",
        "SDK round trip",
    ]
    title = f"Offline server overhead per request, ms (median of {repeat}; 'best' is the minimum)"
    return table(title, header, rows)


def growth_table(quick: bool = False) -> str:
    """Input tokens of the scripted session by turn, with no compaction."""
    from compaction.agent.loop import new_workspace, run_agent

    turns = 60 if quick else 160
    folder = new_workspace()
    try:
        result = run_agent(connect(context_window=10_000_000), workspace=folder, max_turns=turns)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    marks = [t for t in (1, 10, 30, 60, 100, 150) if t <= len(result.turns)] + [len(result.turns)]
    rows = [
        [t, len(result.turns[t - 1].messages), result.turns[t - 1].input_tokens] for t in dict.fromkeys(marks)
    ]
    return table(
        "Scripted session without compaction (textstats scenario)", ["turn", "messages", "input tokens"], rows
    )


def run(quick: bool = False) -> str:
    """Both tables, as text."""
    return overhead_table(quick) + "\n\n" + growth_table(quick)


def main(argv: list[str] | None = None) -> int:
    """Print the tables."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_server", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repeats, a shorter session")
    print(run(parser.parse_args(argv).quick))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
