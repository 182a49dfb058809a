"""Checks for chapter 01 (messages): the strict form, and two repairs a harness needs.

``check_first_problem`` runs the chapter's own function: the first (index, rule) that breaks the
strict form, as ``validate`` names it, on the course sessions and on lists broken on purpose (the
first message from the assistant, two user messages in a row, text put before results, an orphan
result, an unanswered call in the middle and at the end). The exercises' checks are differential:
``merge_same_role`` (what the API does with two same-role messages, done so results stay first) and
``answer_unanswered`` (error results for calls that never ran) must give the reference's list, and
the output must pass ``validate``. ``handmade_session`` is a small coding session written by hand,
checked beside the offline agent's session. Deliberately left out: the shape rules (block types,
empty content, unique ids), which the package's ``validate`` adds.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.agent.loop import sample_session
from compaction.core.messages import (
    RULES,
    InvalidConversation,
    assistant,
    blocks,
    has_tool_use,
    is_tool_result_message,
    text,
    tool_result,
    tool_use,
    tool_use_blocks,
    user,
    validate,
)
from compaction.course.checks import CheckReport, assert_same_messages, run_cases
from compaction.presentation.language import say

# the rules the chapter's first_problem covers, in the order validate checks them
FORM_RULES = (
    "first_not_user",
    "roles_not_alternating",
    "orphan_tool_result",
    "tool_result_not_first",
    "tool_use_unanswered",
)
INTERRUPTED = "[interrupted: this tool call never ran]"

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


def changed_at(before: list, after: list) -> str:
    """Where a list a function was given no longer equals its copy: the message, block and field."""
    if len(before) != len(after):
        return say("it held {before} messages and now holds {after}", before=len(before), after=len(after))
    for i, (b, a) in enumerate(zip(before, after, strict=True)):
        if a == b:
            continue
        if not isinstance(a, dict) or not isinstance(b, dict):
            return say("message {i} was replaced", i=i)
        bc, ac = b.get("content"), a.get("content")
        if isinstance(bc, list) and isinstance(ac, list) and len(bc) == len(ac):
            for j, (x, y) in enumerate(zip(bc, ac, strict=True)):
                if x != y and isinstance(x, dict) and isinstance(y, dict):
                    key = next(k for k in [*x, *y] if x.get(k) != y.get(k))
                    ident = x.get("id") or x.get("tool_use_id")
                    label = f"{x.get('type')} {ident}" if ident else x.get("type")
                    return say(
                        "message {i}, block {j} ({label}): `{key}` changed", i=i, j=j, label=label, key=key
                    )
        key = next((k for k in [*b, *a] if b.get(k) != a.get(k)), "content")
        return say("message {i}: `{key}` changed", i=i, key=key)
    return say("somewhere")


def assert_unchanged(given: list, before: list, where: str, advice: str | None = None) -> None:
    """Raise AssertionError naming where ``given`` no longer equals ``before``, its copy."""
    if given != before:
        raise AssertionError(
            say(
                "{where}: the input list was changed ({at}); {advice}",
                where=where,
                at=changed_at(before, given),
                advice=say("build a new list instead") if advice is None else advice,
            )
        )


# ---------------------------------------------------------------- references


def first_problem_reference(messages: list[dict]) -> tuple[int, str] | None:
    """The package's answer: (index, rule) of validate's first error, else None."""
    try:
        validate(messages)
    except InvalidConversation as exc:
        return (exc.index, exc.rule)
    return None


def merge_same_role_reference(messages: list[dict]) -> list[dict]:
    """Merge each run of same-role messages into one; in a user message, tool_result blocks first."""
    out: list[dict] = []
    for message in messages:
        if out and out[-1]["role"] == message["role"]:
            merged = blocks(out[-1]) + blocks(message)
            results = [b for b in merged if b.get("type") == "tool_result"]
            others = [b for b in merged if b.get("type") != "tool_result"]
            out[-1] = {**out[-1], "content": results + others}
        else:
            out.append(message)
    return out


def answer_unanswered_reference(messages: list[dict], note: str = INTERRUPTED) -> list[dict]:
    """Answer every tool_use left without a result with an error result, placed where the API wants it."""
    out: list[dict] = []
    asked: list[str] = []  # the tool_use ids of the message just before
    for message in messages:
        if asked:
            is_user = message["role"] == "user"
            answered = {b.get("tool_use_id") for b in blocks(message)} if is_user else set()
            missing = [tool_result(i, note, is_error=True) for i in asked if i not in answered]
            if missing and is_user:
                content = blocks(message)
                n = next((j for j, b in enumerate(content) if b.get("type") != "tool_result"), len(content))
                message = {**message, "content": content[:n] + missing + content[n:]}
            elif missing:
                out.append(user(*missing))
        out.append(message)
        asked = [b["id"] for b in tool_use_blocks(message)] if message["role"] == "assistant" else []
    if asked:
        out.append(user(*(tool_result(i, note, is_error=True) for i in asked)))
    return out


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


def form_breaks(session: list[dict]) -> dict[str, list[list[dict]]]:
    """Kind of break -> lists that break the rules of the chapter's first_problem (no duplicates)."""
    found = {k: v for k, v in broken_lists(session).items() if k != "duplicate result"}
    found["first message from the assistant"] = [session[1:]]
    placeholder = user("[12 messages snipped]")
    found["two user messages in a row"] = [
        [*session[: i + 1], placeholder, *session[i + 1 :]]
        for i, m in enumerate(session[:-1])
        if is_tool_result_message(m)
    ][:5]
    # rule order: text before a result that answers nothing is an orphan, not a misplaced result
    found["orphan behind text: orphan first"] = [
        _with(session, i, [text("(a reminder)"), {**m["content"][0], "tool_use_id": "toolu_unknown"}])
        for i, m in enumerate(session)
        if is_tool_result_message(m)
    ][:5]
    return found


def _with(session: list[dict], i: int, content: list) -> list[dict]:
    out = copy.deepcopy(session)
    out[i] = {"role": "user", "content": copy.deepcopy(content)}
    return out


SESSION_NAMES = ("the sample session", "the handmade session")

Labelled = list[tuple[str, list[dict]]]  # (how the list was made, the list)


def _interrupted(session: list[dict]) -> dict[str, Labelled]:
    """Kind -> lists where some calls never got their results: at the end, user text, one lost, text."""
    found: dict[str, Labelled] = {"at the end": [], "user text": [], "partial": [], "text": []}
    for i, message in enumerate(session):
        if not has_tool_use(message) or i + 1 >= len(session):
            continue
        results = session[i + 1]["content"]
        found["at the end"].append((f"cut after message {i}", copy.deepcopy(session[: i + 1])))
        typed = [
            *copy.deepcopy(session[: i + 1]),
            user("Stop, run the linter first."),
            *session[i + 2 : i + 3],
        ]
        found["user text"].append(
            (f"user text instead of the results in message {i + 1}", copy.deepcopy(typed))
        )
        if len(results) > 1:  # one of two parallel calls lost
            found["partial"].append(
                (f"first result of message {i + 1} lost", _with(session, i + 1, results[1:]))
            )
        esc = [*results[:-1], text("(the user pressed Esc)")]
        found["text"].append((f"last result of message {i + 1} replaced by text", _with(session, i + 1, esc)))
    return found


def repeated_messages() -> Labelled:
    """Lists in which an equal message appears twice, so only its position tells the two apart."""
    call = assistant(tool_use("toolu_r1", "bash", {"command": "python run_tests.py"}))
    again = [
        user("Run the tests."),
        call,
        user(tool_result("toolu_r1", "2 passed")),
        assistant("Once more, to be sure."),
        user("Go on."),
        copy.deepcopy(call),
        user("Stop, that is enough."),
    ]
    go_on = [
        user("Fix the bug in calc.py."),
        assistant("Shall I start?"),
        user("Go on."),
        assistant(tool_use("toolu_r2", "glob", {"pattern": "*.py"})),
        user("Go on."),
    ]
    return [
        ("the same call sent again at message 5 (it reuses toolu_r1), unanswered there", again),
        ("'Go on.' typed at messages 2 and 4, the call of message 3 unanswered", go_on),
    ]


def _same_role_runs(session: list[dict]) -> dict[str, Labelled]:
    """Kind -> lists with one run of same-role messages (placeholder, reminder, three, assistant split)."""
    found: dict[str, Labelled] = {
        "placeholder": [],
        "reminder": [],
        "three in a row": [],
        "assistant split": [],
    }
    for i, message in enumerate(session):
        if is_tool_result_message(message):
            found["placeholder"].append(
                (
                    f"placeholder inserted before message {i}",
                    [*session[:i], user("[12 messages snipped]"), *session[i:]],
                )
            )
            found["reminder"].append(
                (
                    f"reminder inserted after message {i}",
                    [*session[: i + 1], user("Reminder: keep answers short."), *session[i + 1 :]],
                )
            )
            found["three in a row"].append(
                (
                    f"two user messages inserted before message {i}",
                    [*session[:i], user("a"), user("b"), *session[i:]],
                )
            )
        elif message["role"] == "assistant" and i > 0:
            found["assistant split"].append(
                (
                    f"assistant text inserted before message {i}",
                    [*session[:i], assistant("Thinking aloud."), *session[i:]],
                )
            )
    return {kind: lists[:: max(1, len(lists) // 8)] for kind, lists in found.items()}


def _labelled(make: Callable[[list[dict]], dict[str, Labelled]], kind: str) -> Labelled:
    """The lists of one kind from every course session, each label naming its session."""
    return [
        (f"{name}, {how}", given)
        for name, session in zip(SESSION_NAMES, course_sessions(), strict=True)
        for how, given in make(session)[kind]
    ]


def _compare(fn: Callable, reference: Callable, calls: list[tuple]) -> None:
    for k, args in enumerate(calls, start=1):
        got, want = fn(*copy.deepcopy(args)), reference(*args)
        if got != want and not (isinstance(got, (tuple, list)) and tuple(got) == want):
            why = f" ({RULES[want[1]]})" if want else say(" (the list is sound)")
            raise AssertionError(
                say(
                    "list {k} of the {n} this row tries: expected {want}{why}, got {got}",
                    k=k,
                    n=len(calls),
                    want=repr(want),
                    why=why,
                    got=repr(got),
                )
            )


def _unanswered_twin(got: list, expected: list) -> tuple[int, int, int] | None:
    """(d, i, j): ``got`` first differs at message d, the answer to message i, which equals an earlier j."""
    pairs = enumerate(zip(got, expected, strict=False))
    d = next((n for n, (a, b) in pairs if a != b), min(len(got), len(expected)))
    if not 1 <= d < min(len(got), len(expected)) or not tool_use_blocks(expected[d - 1]):
        return None
    ids = {b["id"] for b in tool_use_blocks(expected[d - 1])}

    def answers(message: dict) -> set:
        return {b.get("tool_use_id") for b in blocks(message) if b.get("type") == "tool_result"} & ids

    j = next((n for n, message in enumerate(expected[: d - 1]) if message == expected[d - 1]), None)
    if j is None or answers(got[d]) == ids or answers(got[j + 1]) != ids:
        return None
    return d, d - 1, j


def _same_list(fn: Callable, reference: Callable, lists: Labelled, kind: str, twins: bool = False) -> None:
    """Each list through ``fn`` and ``reference``: the same messages, the input untouched, the form kept.

    With ``twins``, a call left unanswered at its own place names the cause: the equal earlier message.
    """
    for k, (how, given) in enumerate(lists, start=1):
        where = say(
            "list {k} of the {n} this row tries ({kind}: {how})", k=k, n=len(lists), kind=kind, how=how
        )
        before = copy.deepcopy(given)
        got = fn(given)
        assert_unchanged(given, before, where)
        problem = first_problem_reference(got) if isinstance(got, list) else None
        assert problem is None or problem[1] not in FORM_RULES, say(
            "{where}: the returned list breaks {rule} at message {i}: {text}",
            where=where,
            rule=repr(problem[1]),
            i=problem[0],
            text=RULES[problem[1]],
        ) + (
            say(", so the results must come before the text") if problem[1] == "tool_result_not_first" else ""
        )
        expected = reference(before)
        twin = _unanswered_twin(got, expected) if twins and isinstance(got, list) else None
        assert twin is None, say(
            "{where}: message {d} lacks the results for the calls of message {i} ({ids}); message {i} "
            "is equal to the earlier message {j}, whose calls message {j1} answers: message {i} was taken "
            "for it",
            where=where,
            d=twin[0],
            i=twin[1],
            j=twin[2],
            j1=twin[2] + 1,
            ids=", ".join(b["id"] for b in tool_use_blocks(expected[twin[1]])),
        )
        assert_same_messages(got, expected, where)


# ---------------------------------------------------------------- the checks


def check_first_problem(first_problem: Callable) -> CheckReport:
    """Chapter 01: the first (index, rule) breaking the strict form, like validate, or None."""
    sessions = course_sessions()
    cases = [
        (
            f"course session {k + 1} is sound",
            lambda s=s: _compare(first_problem, first_problem_reference, [(s,)]),
        )
        for k, s in enumerate(sessions)
    ]
    kinds: dict[str, list[tuple]] = {}
    for s in sessions:
        for kind, lists in form_breaks(s).items():
            kinds.setdefault(kind, []).extend((b,) for b in lists)
    for kind, calls in kinds.items():
        cases.append((kind, lambda c=calls: _compare(first_problem, first_problem_reference, c)))
    cases.append(
        (
            "a single user message is sound",
            lambda: _compare(first_problem, first_problem_reference, [([user("hi")],)]),
        )
    )
    return run_cases("first_problem", cases)


def check_merge_same_role(merge_same_role: Callable) -> CheckReport:
    """Exercise 1: one message per run of same-role messages, tool results first, input untouched."""
    ref = merge_same_role_reference
    cases = [
        (
            f"course session {k + 1} comes back equal",
            lambda s=s, name=name: _same_list(merge_same_role, ref, [(name, s)], "nothing to merge"),
        )
        for k, (name, s) in enumerate(zip(SESSION_NAMES, course_sessions(), strict=True))
    ]
    named = {
        "a placeholder before results": "placeholder",
        "a reminder after results": "reminder",
        "three in a row": "three in a row",
        "an assistant message split in two": "assistant split",
    }
    cases += [
        (case, lambda kind=kind: _same_list(merge_same_role, ref, _labelled(_same_role_runs, kind), kind))
        for case, kind in named.items()
    ]
    cases += [
        (
            "a single message",
            lambda: _same_list(merge_same_role, ref, [("[user('hi')]", [user("hi")])], "single"),
        ),
        ("an empty list", lambda: _same_list(merge_same_role, ref, [("[]", [])], "empty")),
    ]
    return run_cases("merge_same_role", cases)


def check_answer_unanswered(answer_unanswered: Callable) -> CheckReport:
    """Exercise 2: every call without a result gets an error result where the API expects it."""
    ref = answer_unanswered_reference
    sessions = course_sessions()
    cases = [
        (
            f"course session {k + 1} comes back equal",
            lambda s=s, name=name: _same_list(answer_unanswered, ref, [(name, s)], "nothing unanswered"),
        )
        for k, (name, s) in enumerate(zip(SESSION_NAMES, sessions, strict=True))
    ]
    named = {
        "crashed while the tools ran": "at the end",
        "the user typed instead": "user text",
        "one of several results lost": "partial",
        "text where a result belongs": "text",
    }
    cases += [
        (case, lambda kind=kind: _same_list(answer_unanswered, ref, _labelled(_interrupted, kind), kind))
        for case, kind in named.items()
    ]
    cases.append(
        (
            "an equal message at two places",
            lambda: _same_list(
                answer_unanswered, ref, repeated_messages(), say("an equal message earlier"), twins=True
            ),
        )
    )
    cases.append(
        (
            "a single message",
            lambda: _same_list(answer_unanswered, ref, [("[user('hi')]", [user("hi")])], "single"),
        )
    )
    return run_cases("answer_unanswered", cases)
