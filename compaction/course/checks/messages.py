"""Checks for chapter 01 (messages and tokens): pairing errors, tool-result share, anchored counts.

Each check compares the learner's function with the package's answer on the course sessions and on
lists broken on purpose (text put before results, an orphan result, a duplicate, an unanswered
call). ``handmade_session`` is a small coding session written by hand, used when the offline agent
is not available. Deliberately left out: the shape rules (roles, block types), which ``validate``
covers and the chapter shows rather than asks for.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.agent import sample_session
from compaction.course.checks import CheckReport, run_cases
from compaction.messages import (
    InvalidConversation,
    assistant,
    has_tool_use,
    is_tool_result_message,
    text,
    tool_result,
    tool_use,
    user,
    validate,
)
from compaction.tokens import TokenCounter, estimate_tokens, message_tokens

PAIRING_RULES = (
    "tool_result_not_first",
    "orphan_tool_result",
    "duplicate_tool_result",
    "tool_use_unanswered",
)

CALC = "def add(a, b):\n    return a - b\n\n\ndef mean(values):\n    return sum(values) / len(values)\n"


def _numbered(source: str) -> str:
    return "\n".join(f"{i:6d}\t{line}" for i, line in enumerate(source.splitlines(), 1))


def handmade_session() -> list[dict]:
    """A short coding session: list, read, a failing test run (an error result), edit, pass."""
    return [
        user("The tests of calc.py fail. Find the bug and fix it."),
        assistant("Let me look at the project.", tool_use("toolu_01", "glob", {"pattern": "**/*.py"})),
        user(tool_result("toolu_01", "calc.py\ntests/test_calc.py\nrun_tests.py")),
        assistant(
            tool_use("toolu_02", "read_file", {"path": "calc.py"}),
            tool_use("toolu_03", "bash", {"command": "python run_tests.py"}),
        ),
        user(
            tool_result("toolu_02", _numbered(CALC)),
            tool_result(
                "toolu_03",
                "tests/test_calc.py::test_add FAILED\n  assert add(2, 3) == 5\n  AssertionError: -1 != 5\n"
                "1 failed, 1 passed",
                is_error=True,
            ),
        ),
        assistant(
            "`add` subtracts. Fixing it.",
            tool_use("toolu_04", "edit_file", {"path": "calc.py", "old_text": "a - b", "new_text": "a + b"}),
        ),
        user(tool_result("toolu_04", "calc.py: 1 replacement")),
        assistant(tool_use("toolu_05", "bash", {"command": "python run_tests.py"})),
        user(tool_result("toolu_05", "2 passed")),
        assistant("Fixed: `add` in calc.py returned a - b; it now returns a + b and both tests pass."),
    ]


def course_sessions() -> list[list[dict]]:
    """The sessions the checks run on: the offline agent's sample session and the handmade one."""
    return [sample_session(), handmade_session()]


# ---------------------------------------------------------------- package answers


def pairing_error_reference(messages: list[dict]) -> tuple[int, str] | None:
    """The package's answer: (index, rule) of validate's first pairing error, else None."""
    try:
        validate(messages)
    except InvalidConversation as exc:
        if exc.rule in PAIRING_RULES:
            return (exc.index, exc.rule)
        raise ValueError(f"not a pairing problem: {exc}") from None
    return None


def tool_result_share_reference(messages: list[dict], method: str = "chars") -> float:
    """The package's answer: tokens of tool-result messages over all tokens (0.0 for no tokens)."""
    total = estimate_tokens(messages, method)
    part = sum(message_tokens(m, method) for m in messages if is_tool_result_message(m))
    return part / total if total else 0.0


def anchored_estimate_reference(prev_usage_tokens: int, sent: list, messages: list, method="chars") -> int:
    """The package's answer: what TokenCounter counts after observing ``sent``."""
    counter = TokenCounter(method)
    counter.observe(sent, {"input_tokens": prev_usage_tokens})
    return counter.count(messages)


# ---------------------------------------------------------------- broken on purpose


def broken_lists(session: list[dict]) -> dict[str, list[list[dict]]]:
    """Kind of break -> lists made from ``session`` that break one pairing rule each."""
    found: dict[str, list[list[dict]]] = {"text before results": [], "orphan result": []}
    found |= {"duplicate result": [], "unanswered tool_use": [], "unanswered at the end": []}
    for i, message in enumerate(session):
        if is_tool_result_message(message):
            content = message["content"]
            found["text before results"].append(_with(session, i, [text("(a reminder)"), *content]))
            orphan = [{**content[0], "tool_use_id": "toolu_unknown"}, *content[1:]]
            found["orphan result"].append(_with(session, i, orphan))
            found["duplicate result"].append(_with(session, i, [content[0], *content]))
            last = max(j for j, b in enumerate(content) if b.get("type") == "tool_result")
            found["unanswered tool_use"].append(
                _with(session, i, content[:last] + content[last + 1 :] or [text("ok")])
            )
        elif has_tool_use(message):
            found["unanswered at the end"].append(copy.deepcopy(session[: i + 1]))
    return found


def _with(session: list[dict], i: int, content: list) -> list[dict]:
    out = copy.deepcopy(session)
    out[i] = {"role": "user", "content": copy.deepcopy(content)}
    return out


def _compare(fn: Callable, reference: Callable, calls: list[tuple], *, close: bool = False) -> None:
    for args in calls:
        got, want = fn(*copy.deepcopy(args)), reference(*args)
        same = abs(got - want) < 1e-9 if close and isinstance(got, (int, float)) else got == want
        assert same, f"expected {want!r}, got {got!r} (case {calls.index(args) + 1} of {len(calls)})"


# ---------------------------------------------------------------- the checks


def check_pairing_error(pairing_error: Callable) -> CheckReport:
    """Exercise 1: the first pairing problem as (index, rule), like validate, or None."""
    sessions = course_sessions()
    cases = [
        (
            f"course session {k + 1} is sound",
            lambda s=s: _compare(pairing_error, pairing_error_reference, [(s,)]),
        )
        for k, s in enumerate(sessions)
    ]
    kinds = {}
    for s in sessions:
        for kind, lists in broken_lists(s).items():
            kinds.setdefault(kind, []).extend((b,) for b in lists)
    for kind, calls in kinds.items():
        cases.append((kind, lambda c=calls: _compare(pairing_error, pairing_error_reference, c)))
    return run_cases("pairing_error", cases)


def check_tool_result_share(tool_result_share: Callable) -> CheckReport:
    """Exercise 2: the share of tokens in tool-result messages, for both estimates."""
    sessions = course_sessions()
    ref = tool_result_share_reference
    cases = [
        (
            f"course session {k + 1}, method={m!r}",
            lambda s=s, m=m: _compare(tool_result_share, ref, [(s, m)], close=True),
        )
        for k, s in enumerate(sessions)
        for m in ("chars", "tiktoken")
    ]
    cases.append(
        ("no tool results is 0.0", lambda: _compare(tool_result_share, ref, [([user("hi")], "chars")]))
    )
    cases.append(("an empty list is 0.0", lambda: _compare(tool_result_share, ref, [([], "chars")])))
    return run_cases("tool_result_share", cases)


def check_anchored_estimate(anchored_estimate: Callable) -> CheckReport:
    """Exercise 3: the API's last figure plus an estimate of what was appended, if the prefix holds."""
    ref = anchored_estimate_reference
    cases = []
    for k, s in enumerate(course_sessions()):
        half = len(s) // 2
        grown = [(1234, s[:half], s, m) for m in ("chars", "tiktoken")]
        first = next(i for i, m in enumerate(s) if is_tool_result_message(m))  # changed below the anchor
        changed = _with(
            s, first, [{**s[first]["content"][0], "content": "[cleared]"}, *s[first]["content"][1:]]
        )
        cases += [
            (
                f"session {k + 1}: appended after the anchor",
                lambda c=grown: _compare(anchored_estimate, ref, c),
            ),
            (
                f"session {k + 1}: nothing appended",
                lambda s=s: _compare(anchored_estimate, ref, [(999, s, s)]),
            ),
            (
                f"session {k + 1}: a changed prefix drops the anchor",
                lambda s=s, c=changed, h=half: _compare(anchored_estimate, ref, [(500, s[:h], c)]),
            ),
            (
                f"session {k + 1}: a shorter list drops the anchor",
                lambda s=s, h=half: _compare(anchored_estimate, ref, [(500, s, s[:h])]),
            ),
        ]
    cases.append(
        ("nothing sent yet", lambda: _compare(anchored_estimate, ref, [(0, [], handmade_session())]))
    )
    return run_cases("anchored_estimate", cases)
