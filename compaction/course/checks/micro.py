"""Checks for chapter 05 (micro): the chapter's micro, a micro that keeps files being edited, and a
prediction of the cache breaks micro causes.

``check_micro`` runs the chapter's function with the package's note (``note=cleared_placeholder``),
so the result must be exactly the package's ``micro_compact`` on the course's sessions for several
settings (``keep_recent`` 0, a ``min_chars`` boundary), plus a list holding a persisted-output marker
and one holding an earlier placeholder; the input must stay untouched. Given the learner's own note
function, it also checks that each note is one short line that starts with ``CLEARED_HEAD`` and
names what to run again. ``check_micro_keeping_edited`` is differential against the reference here.
``check_predicted_breaks`` compares a formula with what ``cache_breaks`` measures on sessions built
for it (two parallel reads a turn, a case the chapter does not count). Deliberately left out:
``exclude_tools``, which the chapter shows with the package.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.core.messages import (
    assistant,
    result_chars,
    tool_inputs,
    tool_names,
    tool_result,
    tool_use,
    user,
)
from compaction.core.placeholders import CLEARED_HEAD, cleared_placeholder, is_cleared, is_persisted_marker
from compaction.course.checks import CheckReport, assert_same_messages, run_cases
from compaction.course.checks.messages import assert_unchanged, course_sessions
from compaction.layers.micro import micro_compact
from compaction.layers.prompt_cache import cache_breaks
from compaction.presentation.language import say

ANSWERS = ("measured_breaks",)  # what an exercise computes: kept out of for_exercise("micro")

SETTINGS = [(3, 120), (1, 120), (0, 0), (5, 50), (10, 120), (3, 2_000)]
CALLS = [
    ("read_file", {"path": "src/app/config.py"}, "src/app/config.py"),
    ("bash", {"command": "python run_tests.py -k parser"}, "python run_tests.py -k parser"),
    ("glob", {"pattern": "tests/**/*.py"}, "tests/**/*.py"),
    ("edit_file", {"path": "a.py", "old_text": "x", "new_text": "y"}, "edit_file"),
]


def with_marker_and_placeholder(session: list[dict]) -> list[dict]:
    """The session with its first result turned into a persisted marker and its second into a placeholder."""
    out = copy.deepcopy(session)
    spots = [
        (i, j)
        for i, m in enumerate(out)
        if m["role"] == "user" and isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b.get("type") == "tool_result"
    ]
    (i, j), (k, n) = spots[0], spots[1]
    out[i]["content"][j]["content"] = (
        "<persisted-output>\nOutput too large (90,000 characters). Full output saved to: "
        ".task_outputs/tool-results/x.txt\nRead that file to see all of it. Preview (first 300 characters):\n"
        + "p" * 300
        + "\n</persisted-output>"
    )
    out[k]["content"][n]["content"] = cleared_placeholder("glob", {"pattern": "**/*.py"})
    return out


def _same(fn: Callable, name: str, messages: list[dict], keep_recent: int, min_chars: int) -> None:
    given = copy.deepcopy(messages)
    got = fn(given, keep_recent=keep_recent, min_chars=min_chars, note=cleared_placeholder)
    where = f"{name}, keep_recent={keep_recent}, min_chars={min_chars}"
    assert_unchanged(given, messages, where, say("build new messages instead"))
    assert_same_messages(got, micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars), where)


def _note(note_for: Callable, name: str, tool_input: dict, expected: str) -> None:
    note = note_for(name, dict(tool_input))
    assert isinstance(note, str), say(
        "note_for({name}): return a string, got {kind}", name=repr(name), kind=type(note).__name__
    )
    assert note.startswith(CLEARED_HEAD), say(
        "note_for({name}): start with {head}: {start}",
        name=repr(name),
        head=repr(CLEARED_HEAD),
        start=repr(note[:60]),
    )
    assert "\n" not in note and len(note) <= 300, say(
        "note_for({name}): one line of at most 300 characters", name=repr(name)
    )
    assert expected in note, say(
        "note_for({name}): name {expected} so the model knows what to re-run",
        name=repr(name),
        expected=repr(expected),
    )


def check_micro(micro: Callable, note_for: Callable | None = None) -> CheckReport:
    """Chapter 05: with the package's note, exactly micro_compact; the learner's note says what to re-run."""
    cases = []
    for k, session in enumerate(course_sessions(), start=1):
        longest = (
            max(
                result_chars(b)
                for m in session
                for b in m["content"]
                if isinstance(b, dict) and b.get("type") == "tool_result"
            )
            if any(m["role"] == "user" for m in session)
            else 0
        )
        settings = [*SETTINGS, (0, longest)]  # a result of exactly min_chars is cleared (<, not <=)
        cases.append(
            (
                f"session {k}, {len(settings)} settings",
                lambda s=session, k=k, x=settings: [_same(micro, f"session {k}", s, *y) for y in x],
            )
        )
    marked = with_marker_and_placeholder(course_sessions()[0])
    cases.append(
        (
            "a marker and a placeholder stay as they are",
            lambda: _same(micro, "session 1 with a marker", marked, 0, 0),
        )
    )
    cases.append(("a single message", lambda: _same(micro, "single", [user("hi")], 3, 120)))
    if note_for is not None:
        cases += [
            (
                say("note for {name} names {expected}", name=name, expected=repr(expected)),
                lambda n=name, i=i, e=expected: _note(note_for, n, i, e),
            )
            for name, i, expected in CALLS
        ]
        cases.append(
            (
                say("a 10,000-character command: one short line"),
                lambda: _note(note_for, "bash", {"command": "echo start\n" + "x" * 10_000}, "echo start"),
            )
        )
    return run_cases("micro", cases)


# ---------------------------------------------------------------- exercise 1: files being edited


def edited_paths(messages: list[dict], recent_turns: int) -> set[str]:
    """Paths of edit_file calls in the last ``recent_turns`` assistant messages."""
    asked = [m for m in messages if m["role"] == "assistant"][-recent_turns:] if recent_turns > 0 else []
    return {
        b["input"].get("path")
        for m in asked
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_use" and b.get("name") == "edit_file"
    }


def micro_keeping_edited_reference(
    messages: list[dict], keep_recent: int = 3, min_chars: int = 120, recent_turns: int = 5
) -> list[dict]:
    """micro_compact, except read_file results of a path edited in the last recent_turns turns stay."""
    editing = edited_paths(messages, recent_turns)
    names, inputs = tool_names(messages), tool_inputs(messages)
    spots = [
        (i, j)
        for i, m in enumerate(messages)
        if m["role"] == "user" and isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b.get("type") == "tool_result"
    ]
    out = list(messages)
    for i, j in spots[: max(0, len(spots) - keep_recent)]:
        block = messages[i]["content"][j]
        use_id, content = block["tool_use_id"], block["content"]
        name, tool_input = names.get(use_id), inputs.get(use_id, {})
        if result_chars(block) < min_chars or is_cleared(content) or is_persisted_marker(content):
            continue
        if name == "read_file" and tool_input.get("path") in editing:
            continue
        note = cleared_placeholder(name, tool_input)
        if len(note) >= result_chars(block):
            continue
        if out[i] is messages[i]:
            out[i] = {**messages[i], "content": list(messages[i]["content"])}
        out[i]["content"][j] = {**block, "content": note}
    return out


def why_kept_or_cleared(
    got: object, want: list[dict], messages: list[dict], recent_turns: int, min_chars: int | None = None
) -> str:
    """Name the first tool result kept where it should be cleared, or the reverse, and the reason."""
    if not isinstance(got, list) or len(got) != len(want):
        return ""
    names, inputs = tool_names(messages), tool_inputs(messages)
    editing = edited_paths(messages, recent_turns)
    turns = (
        say("the last {n} assistant turn", n=recent_turns)
        if recent_turns == 1
        else say("the last {n} assistant turns", n=recent_turns)
    )
    for i, (mine, theirs) in enumerate(zip(got, want, strict=True)):
        if not (isinstance(mine, dict) and isinstance(mine.get("content"), list)):
            continue
        if not isinstance(theirs.get("content"), list) or len(mine["content"]) != len(theirs["content"]):
            continue
        for b, w in zip(mine["content"], theirs["content"], strict=True):
            if not (isinstance(b, dict) and w.get("type") == "tool_result") or b == w:
                continue
            use_id = w["tool_use_id"]
            name, path = names.get(use_id), inputs.get(use_id, {}).get("path")
            what = (
                say(
                    "the {name} result {use_id} (message {i}) of {path}",
                    name=name,
                    use_id=repr(use_id),
                    i=i,
                    path=repr(path),
                )
                if path
                else say("the {name} result {use_id} (message {i})", name=name, use_id=repr(use_id), i=i)
            )
            if is_cleared(w["content"]) and min_chars is not None and result_chars(b) == min_chars:
                return say(
                    " Why: {what} should be cleared: it is exactly min_chars={min_chars} characters long, "
                    "and only a result shorter than min_chars stays whole (<, not <=).",
                    what=what,
                    min_chars=min_chars,
                )
            if is_cleared(w["content"]):
                reason = (
                    say("{path} is not edited in {turns}", path=repr(path), turns=turns)
                    if name == "read_file" and recent_turns > 0
                    else say("with recent_turns=0 no edit keeps a result")
                    if name == "read_file"
                    else say("only read_file results are kept for an edit")
                )
                return say(
                    " Why: {what} should be cleared: it is old, and {reason}.", what=what, reason=reason
                )
            if name == "read_file" and path in editing:
                return say(
                    " Why: {what} should stay whole: an edit_file of {path} is in {turns}.",
                    what=what,
                    path=repr(path),
                    turns=turns,
                )
            return say(
                " Why: {what} should stay as it is: among the newest, short, a note or a marker.", what=what
            )
    return ""


def _edited(fn: Callable, name: str, messages: list[dict], **kwargs) -> None:
    given = copy.deepcopy(messages)
    got = fn(given, **kwargs)
    where = f"{name}, " + ", ".join(f"{k}={v}" for k, v in kwargs.items())
    assert_unchanged(given, messages, where, say("build new messages instead"))
    want = micro_keeping_edited_reference(messages, **kwargs)
    try:
        assert_same_messages(got, want, where)
    except AssertionError as exc:
        why = why_kept_or_cleared(got, want, messages, kwargs["recent_turns"], kwargs.get("min_chars"))
        raise AssertionError(f"{exc}{why}") from None


def exact_min_chars(messages: list[dict], keep_recent: int, recent_turns: int) -> int:
    """The size of the smallest result the reference clears: with min_chars at it, it is still cleared."""
    cleared = micro_keeping_edited_reference(messages, keep_recent, 0, recent_turns)
    return min(
        result_chars(b)
        for m, n in zip(messages, cleared, strict=True)
        if m is not n
        for b, c in zip(m["content"], n["content"], strict=True)
        if b != c
    )


def check_micro_keeping_edited(micro_keeping_edited: Callable) -> CheckReport:
    """Exercise 1: old results cleared, except reads of files edited in the last few turns."""
    fn = micro_keeping_edited
    first = course_sessions()[0]
    exact = exact_min_chars(first, 2, 5)
    cases = [
        (
            f"a result of exactly min_chars={exact} is cleared (<, not <=)",
            lambda: _edited(fn, "session 1", first, keep_recent=2, min_chars=exact, recent_turns=5),
        )
    ]
    for k, session in enumerate(course_sessions(), start=1):
        prefixes = [session[:n] for n in range(9, len(session) + 1, 6)]
        for recent in (5, 1, 0):
            cases.append(
                (
                    f"session {k}, growing, recent_turns={recent}",
                    lambda ps=prefixes, k=k, r=recent: [
                        _edited(fn, f"session {k}, {len(p)} messages", p, keep_recent=2, recent_turns=r)
                        for p in ps
                    ],
                )
            )
    return run_cases("micro_keeping_edited", cases)


# ---------------------------------------------------------------- exercise 2: predict the breaks


def two_results_per_turn(turns: int) -> list[list[dict]]:
    """The requests of a session reading two large files a turn, in parallel: request r holds 2r results."""
    messages, requests = [user("Read every module, two at a time.")], []
    for t in range(turns):
        ids = [f"toolu_{t:03d}a", f"toolu_{t:03d}b"]
        calls = [tool_use(i, "read_file", {"path": f"m{t}{i[-1]}.py"}) for i in ids]
        messages = [*messages, assistant(*calls)]
        messages = [*messages, user(*(tool_result(i, f"line {t}\n" * 200) for i in ids))]
        requests.append(messages)
    return requests


def measured_breaks(turns: int, keep_recent: int) -> int:
    """Cache breaks when micro_compact(keep_recent) runs before each of the session's calls."""
    sent = [micro_compact(r, keep_recent=keep_recent, min_chars=0) for r in two_results_per_turn(turns)]
    return len(cache_breaks(sent))


def _predicted(fn: Callable, turns: int, keep_recent: int) -> None:
    got, want = fn(turns, keep_recent), measured_breaks(turns, keep_recent)
    assert got == want, say(
        "{turns} calls, two new results each, keep_recent={keep_recent}: predicted {got}, "
        "measured {want} cache breaks",
        turns=turns,
        keep_recent=keep_recent,
        got=repr(got),
        want=want,
    )


def check_predicted_breaks(predicted_breaks: Callable) -> CheckReport:
    """Exercise 2: a formula for the cache breaks of micro on every call, checked by running it."""
    fn = predicted_breaks
    return run_cases(
        "predicted_breaks",
        [
            ("20 calls, keep 3 (odd)", lambda: _predicted(fn, 20, 3)),
            ("20 calls, keep 4 (even)", lambda: _predicted(fn, 20, 4)),
            ("20 calls, keep 1", lambda: _predicted(fn, 20, 1)),
            ("12 calls, keep 10", lambda: _predicted(fn, 12, 10)),
            ("keep as many as the calls' results", lambda: _predicted(fn, 8, 16)),
            ("keep 0: every result is cleared before it is sent", lambda: _predicted(fn, 10, 0)),
            ("a single call", lambda: _predicted(fn, 1, 3)),
        ],
    )
