"""Checks for chapter 15 (replay): a Claude Code importer, a ShareGPT importer, where a fact was lost.

All three are differential. ``check_claude_code_importer`` compares the learner's importer with
``importers.load`` on the course's own session files, written as Claude Code 2.x writes them
(split assistant records, parallel results, hooks' progress records and a local command on the
chain, a rewound branch). ``check_sharegpt_importer`` compares with ``sharegpt_reference`` on small
conversations that cover each rule of the format's description. ``check_lost_at`` compares with
the replay engine's own accounting (``replay(..., probes=...).lost``) on the course's session.
Deliberately left out: malformed files, which the package's importers report and the chapter shows.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW, sample_session
from compaction.core.messages import blocks, text, tool_result, tool_use
from compaction.course.checks import CheckReport, explain_difference, run_cases
from compaction.evaluate.probes import Probe
from compaction.evaluate.replay.engine import replay
from compaction.evaluate.replay.sample import claude_code_records
from compaction.importers import load, normalize

CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.S)
RESPONSE = re.compile(r"<tool_response>(.*?)</tool_response>", re.S)
LOST_WINDOW = 8_000


# ---------------------------------------------------------------- exercise 0 (the chapter): Claude Code


def _first_difference(got: list, want: list) -> str:
    if not isinstance(got, list):
        return f"expected a list of messages, got {type(got).__name__}"
    at = next((i for i, (a, b) in enumerate(zip(got, want, strict=False)) if a != b), len(got))
    return f"{explain_difference(got, want)}{_renamed(got[: at + 1])}"


def _renamed(messages: list) -> str:
    """A hint when an id looks renamed by ``normalize`` because it repeated (``call_0`` -> ``call_0_2``)."""
    ids = [
        b.get("id") for m in messages if isinstance(m, dict) for b in blocks(m) if b.get("type") == "tool_use"
    ]
    for n, use_id in enumerate(ids):
        base, _, number = str(use_id).rpartition("_")
        if number.isdigit() and base in ids[:n]:
            return f" (id {base!r} repeated, so normalize renamed it {use_id!r}: ids must be unique)"
    return ""


def _same_as_load(fn: Callable, records: list[dict]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "session.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        want = load(path).messages
        got = fn(path)
        assert got == want, _first_difference(got, want)


def check_claude_code_importer(fn: Callable) -> CheckReport:
    """The chapter's importer: ``fn(path)`` equals ``importers.load(path).messages`` on the course files."""
    long, short = sample_session(80), sample_session(30)
    cases = [
        (
            "split records, and records on the chain that are no messages",
            lambda: _same_as_load(fn, claude_code_records(short)),
        ),
        ("parallel results of the 80-turn session", lambda: _same_as_load(fn, claude_code_records(long))),
        (
            "a rewound branch is not replayed",
            lambda: _same_as_load(fn, claude_code_records(long, rewind_at=40)),
        ),
        (
            "a branch rewound at the first reply",
            lambda: _same_as_load(fn, claude_code_records(short, rewind_at=1)),
        ),
    ]
    return run_cases("import_claude_code", cases)


# ---------------------------------------------------------------- exercise 1: ShareGPT


def sharegpt_reference(data: dict) -> list[dict]:
    """A ShareGPT-style conversation (``from``/``value``, ``<tool_call>`` tags) as a strict list."""
    raw: list[dict] = []
    calls = 0
    pending: list[str] = []  # ids of the calls of the last gpt turn
    for turn in data["conversations"]:
        who, value = turn["from"], turn["value"]
        if who == "human":
            raw.append({"role": "user", "content": [text(value)]})
        elif who == "gpt":
            said = CALL.sub("", value).strip()
            content = [text(said)] if said else []
            pending = []
            for body in CALL.findall(value):
                call = json.loads(body)
                pending.append(f"call_{calls}")
                content.append(tool_use(f"call_{calls}", call["name"], call.get("arguments", {})))
                calls += 1
            raw.append({"role": "assistant", "content": content})
        elif who == "tool":
            answers = [r.strip() for r in RESPONSE.findall(value)]
            raw.append(
                {
                    "role": "user",
                    "content": [tool_result(i, a) for i, a in zip(pending, answers, strict=False)],
                }
            )
    return normalize(raw)


def _gpt(said: str, *calls: tuple[str, dict]) -> dict:
    tags = "".join(f"\n<tool_call>{json.dumps({'name': n, 'arguments': a})}</tool_call>" for n, a in calls)
    return {"from": "gpt", "value": said + tags}


def _tool(*outputs: str) -> dict:
    return {"from": "tool", "value": "".join(f"<tool_response>\n{o}\n</tool_response>" for o in outputs)}


SHAREGPT_CASES = {
    "plain chat": {
        "conversations": [{"from": "human", "value": "What is 2 + 2?"}, {"from": "gpt", "value": "4"}]
    },
    "the system turn is not a message": {
        "conversations": [
            {"from": "system", "value": "You are terse."},
            {"from": "human", "value": "hi"},
            {"from": "gpt", "value": "hello"},
        ]
    },
    "a call and its response": {
        "conversations": [
            {"from": "human", "value": "List the files."},
            _gpt("Listing.", ("bash", {"command": "ls"})),
            _tool("a.py\nb.py"),
            {"from": "gpt", "value": "Two files."},
        ]
    },
    "two calls in one turn, text around them": {
        "conversations": [
            {"from": "human", "value": "Read both."},
            {
                "from": "gpt",
                "value": 'First a.py, <tool_call>{"name": "read", "arguments": {"path": "a.py"}}'
                '</tool_call> then b.py <tool_call>{"name": "read", "arguments": '
                '{"path": "b.py"}}</tool_call>',
            },
            _tool("A", "B"),
            {"from": "gpt", "value": "Read."},
        ]
    },
    "ids count over the whole conversation": {
        "conversations": [
            {"from": "human", "value": "Go."},
            _gpt("", ("ls", {})),
            _tool("x"),
            _gpt("again", ("ls", {})),
            _tool("y"),
            {"from": "gpt", "value": "done"},
        ]
    },
    "a call the conversation never answered": {
        "conversations": [
            {"from": "human", "value": "Run it."},
            _gpt("Running.", ("bash", {"command": "make"})),
        ]
    },
}


def _same_as_sharegpt(fn: Callable, data: dict) -> None:
    want = sharegpt_reference(data)
    got = fn(json.loads(json.dumps(data)))
    assert got == want, _first_difference(got, want)


def check_sharegpt_importer(fn: Callable) -> CheckReport:
    """Exercise 1: ``fn(data)`` equals ``sharegpt_reference(data)`` on a case for each rule."""
    cases = [(name, lambda d=d: _same_as_sharegpt(fn, d)) for name, d in SHAREGPT_CASES.items()]
    return run_cases("from_sharegpt", cases)


# ---------------------------------------------------------------- exercise 2: where a fact was lost


@lru_cache(maxsize=1)
def _client() -> Any:
    return connect(context_window=SAMPLE_WINDOW)


def lost_at_reference(
    session: list[dict], strategy: str, fact: str, *, window: int
) -> tuple[int, str] | None:
    """(turn, pass) after which ``fact`` was gone for good from what ``strategy`` sent; None if never."""
    with tempfile.TemporaryDirectory() as tmp:
        run = replay(
            session,
            strategy,
            window=window,
            workdir=Path(tmp),
            client=_client(),
            probes=[Probe("fact", "recall", "?", (fact,))],
        )
    return run.lost.get("fact")


def lost_at_cases() -> list[tuple[str, str, str]]:
    """(name, strategy, fact) on the course's 80-turn session."""
    return [
        ("masking 3: an early test failure", "masking 3", "FAILED tests/test_counts.py"),
        ("summary only: a line of a file read early", "summary only", "def word_count"),
        ("pipeline: a line of a file read early", "pipeline", "def word_count"),
        ("masking 3: the task is never lost", "masking 3", "lexical_diversity(tokens)"),
        ("a fact the session never held", "pipeline", "this text is in no message"),
    ]


@lru_cache(maxsize=16)
def _engine_answer(strategy: str, fact: str) -> tuple[int, str] | None:
    return lost_at_reference(sample_session(80), strategy, fact, window=LOST_WINDOW)


def _same_as_engine(fn: Callable, strategy: str, fact: str) -> None:
    session = sample_session(80)
    want = _engine_answer(strategy, fact)
    got = fn(session, strategy, fact, window=LOST_WINDOW)
    got = tuple(got) if isinstance(got, list) else got
    hint = ""
    if isinstance(got, tuple) and want and len(got) == 2 and got == (want[0] - 1, want[1]):
        hint = (
            f" (turn {got[0]} is one turn early, with the same pass: an off-by-one in the turn number; "
            "the first turn of the session is turn 1)"
        )
    elif isinstance(got, tuple) and want and got and isinstance(got[0], int) and got[0] < want[0]:
        hint = " (a fact can come back and leave again: give the last pass that dropped it)"
    assert got == want, f"{strategy}, {fact!r}: expected {want}, got {got}{hint}"


def check_lost_at(fn: Callable) -> CheckReport:
    """Exercise 2: ``fn(session, strategy, fact, window=...)`` agrees with the replay engine."""
    cases = [(name, lambda s=s, f=f: _same_as_engine(fn, s, f)) for name, s, f in lost_at_cases()]
    return run_cases("lost_at", cases)
