"""Checks for chapter 14 (the API's own context management): cache breaks, budgets, predictions.

``check_cache_breaks`` is differential against ``server_side.cache_breaks`` on recorded and
handmade ledgers. ``check_edits_for_budget`` runs the offline agent under the learner's edits and
holds the session to a budget of cache breaks without overflowing. ``check_predict_cleared``
compares a prediction of ``cleared_tool_uses`` with what the offline server reports.
``check_client_keeps`` is differential against ``server_side.client_keeps``.
Deliberately left out: predictions of ``cleared_input_tokens``, which need the server's counter.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.backend import connect
from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions, handmade_session
from compaction.messages import assistant, text, tool_result, tool_use, user
from compaction.server_side import cache_breaks, client_keeps, run_session

WINDOW = 8_000
TURNS = 50
TOOLS = [
    {"name": name, "description": f"The {name} tool.", "input_schema": {"type": "object"}}
    for name in ("read_file", "bash", "grep")
]
CONTEXT_BETA = "context-management-2025-06-27"


# ---------------------------------------------------------------- cache breaks


LEDGERS = [  # (name, sent per call, read per call)
    ("no calls", [], []),
    ("one call", [5000], [0]),
    ("all appended", [1000, 1500, 2100], [0, 1000, 1500]),
    ("read exactly what was sent is no break", [2000, 2600], [0, 2000]),
    ("one token less is a break", [2000, 2600], [0, 1999]),
    ("a cleared round in the middle", [4000, 4500, 2600, 3100, 3600], [0, 4000, 1200, 2600, 3100]),
    ("an expired cache reads nothing", [3000, 3400, 3800], [0, 3000, 0]),
]


def _same_breaks(fn: Callable, sent: list, read: list) -> None:
    got = fn(list(sent), list(read))
    want = cache_breaks(sent, read)
    assert list(got) == want, f"calls {want} broke the cache, not {list(got)} (sent {sent}, read {read})"


def check_cache_breaks(fn: Callable, recorded: list[tuple[list, list]] = ()) -> CheckReport:
    """The chapter's function: the calls that read less than the call before them sent."""
    cases = [(name, lambda s=s, r=r: _same_breaks(fn, s, r)) for name, s, r in LEDGERS]
    cases += [
        (f"a recorded session of {len(s)} calls", lambda s=s, r=r: _same_breaks(fn, s, r))
        for s, r in recorded
    ]
    return run_cases("cache_breaks", cases)


# ---------------------------------------------------------------- a budget of cache breaks


def _within_budget(fn: Callable, budget: int) -> None:
    edits = fn(WINDOW, budget)
    assert isinstance(edits, list) and edits, "return a list of edits (dicts), at least one"
    kinds = {e.get("type") for e in edits}
    assert kinds == {"clear_tool_uses_20250919"}, f"use clear_tool_uses_20250919 only, not {sorted(kinds)}"
    ledger, result = run_session(edits, window=WINDOW, turns=TURNS)
    assert result.error is None, f"the session ended early at call {len(ledger.sent)}: {result.error}"
    breaks = ledger.cache_breaks()
    assert len(breaks) <= budget, f"{len(breaks)} cache breaks (calls {breaks}), budget {budget}"
    assert sum(ledger.cleared) > 0, "nothing was ever cleared"


def check_edits_for_budget(fn: Callable) -> CheckReport:
    """Exercise 1: a 50-call session in an 8,000-token window, at most ``budget`` cache breaks."""
    cases = [(f"budget of {b} breaks", lambda b=b: _within_budget(fn, b)) for b in (8, 6)]
    return run_cases("edits_for_budget", cases)


# ---------------------------------------------------------------- predicting applied_edits


def review_session(n: int, names: tuple[str, ...] = ("read_file",)) -> list[dict]:
    """A task, then ``n`` turns of one tool call each (cycling ``names``), each answered."""
    messages = [user("Review the project, one file at a time.")]
    for k in range(n):
        use_id = f"toolu_r{k:02d}"
        call = tool_use(use_id, names[k % len(names)], {"path": f"pkg/m{k}.py"})
        messages.append(assistant(text(f"Looking at pkg/m{k}.py."), call))
        messages.append(user(tool_result(use_id, f"line {k}\n" * 60)))
    return messages


def by_uses(trigger: int, keep: int, exclude: tuple[str, ...] = ()) -> dict:
    """A clear_tool_uses edit triggered by the number of tool uses."""
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "tool_uses", "value": trigger},
        "keep": {"type": "tool_uses", "value": keep},
    }
    if exclude:
        edit["exclude_tools"] = list(exclude)
    return edit


PREDICTIONS = [  # (name, session size, tools cycled, edit)
    ("below the trigger", 6, ("read_file",), by_uses(6, 2)),
    ("one above the trigger", 7, ("read_file",), by_uses(6, 2)),
    ("keep 0", 5, ("read_file",), by_uses(3, 0)),
    ("two rounds", 10, ("read_file",), by_uses(4, 2)),
    ("rounds leave the newest uncleared", 12, ("read_file",), by_uses(5, 1)),
    ("excluded tools are never cleared", 12, ("read_file", "bash"), by_uses(5, 1, ("bash",))),
    (
        "excluded tools still count toward the trigger",
        9,
        ("read_file", "bash", "grep"),
        by_uses(4, 1, ("grep",)),
    ),
    ("keep above the trigger", 8, ("read_file",), by_uses(3, 5)),
]


def server_cleared(messages: list, edit: dict) -> int:
    """What the offline server reports as ``cleared_tool_uses`` for ``edit`` on ``messages``."""
    answer = connect(context_window=200_000).beta.messages.create(
        model="offline",
        max_tokens=64,
        messages=messages,
        tools=TOOLS,
        betas=[CONTEXT_BETA],
        context_management={"edits": [edit]},
    )
    applied = answer.context_management.applied_edits
    return applied[0].cleared_tool_uses if applied else 0


def _predicted(fn: Callable, n: int, names: tuple, edit: dict) -> None:
    session = review_session(n, names)
    got = fn(copy.deepcopy(session), copy.deepcopy(edit))
    want = server_cleared(session, edit)
    assert got == want, (
        f"{n} tool uses, {edit['trigger']}, keep {edit['keep']['value']}: the server clears {want}, not {got}"
    )


def check_predict_cleared(fn: Callable) -> CheckReport:
    """Exercise 2: ``cleared_tool_uses`` as the offline server reports it, before asking it."""
    cases = [(name, lambda n=n, t=t, e=e: _predicted(fn, n, t, e)) for name, n, t, e in PREDICTIONS]
    return run_cases("predict_cleared", cases)


# ---------------------------------------------------------------- what the client keeps


def _keeps_the_same(fn: Callable, session: list) -> None:
    given = copy.deepcopy(session)
    got = fn(given)
    want = client_keeps(session)
    assert given == session, "the input list was changed"
    assert isinstance(got, dict) and set(got) == set(want), f"return a dict with keys {sorted(want)}"
    for key in want:
        assert got[key] == want[key], f"{key}: expected {want[key]!r}, got {got[key]!r}"


def mixed_session() -> list[dict]:
    """Text after results, a string message, a file edited twice, a file written."""
    session = handmade_session()
    session[-1] = assistant(
        "Now the docs.",
        tool_use("toolu_06", "edit_file", {"path": "calc.py", "old_text": "+", "new_text": "+ "}),
        tool_use("toolu_07", "write_file", {"path": "NOTES.md", "content": "add fixed"}),
    )
    session.append(
        user(tool_result("toolu_06", "ok"), tool_result("toolu_07", "ok"), text("Keep the API stable."))
    )
    session.append(assistant("Understood."))
    session.append(user("Also: never touch tests/."))
    return session


def check_client_keeps(fn: Callable) -> CheckReport:
    """Exercise 3: the user's own words and the files changed, as ``server_side.client_keeps`` finds them."""
    sessions = [
        ("the handmade session", handmade_session()),
        ("text after results, a string turn", mixed_session()),
    ]
    sessions += [(f"course session {k + 1}", s) for k, s in enumerate(course_sessions())]
    cases = [(name, lambda s=s: _keeps_the_same(fn, s)) for name, s in sessions]
    return run_cases("client_keeps", cases)
