"""Hypothesis strategies for strict-form sessions, and a fast builder for hand-written ones.

``sessions()`` draws valid conversations (``validate`` accepts every one): parallel tool uses,
tool results whose content is a string or a list of blocks (text, sometimes an image), ``is_error``
flags, thinking blocks passed through, user text after tool results, Unicode with astral
characters (never lone surrogates), and now and then a huge result. ``build_session`` turns a
plain plan (a list of ``Turn``) into such a list, for tests that need one exact shape.
Deliberately left out: server tool blocks, citations, and prefilled final assistant messages.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from hypothesis import strategies as st

from compaction.core.messages import assistant, text, tool_result, tool_use, user

TOOLS = ("read_file", "bash", "glob", "write_file", "edit_file", "compact")
IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
SPICE = ("日本語のテキスト", "😀🚀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "line\r\nbreak", "tab\there", "nul\x00byte", "ß≠ẞ", "\u200b")

# any characters but lone surrogates: what JSON, a file and a terminal can all carry
chars = st.characters(blacklist_categories=("Cs",))
words = st.one_of(st.text(chars, max_size=60), st.sampled_from(SPICE))
nonblank = words.filter(str.strip)


@dataclass
class Call:
    """One tool call of a turn and the result it gets."""

    name: str = "read_file"
    result: str | list = "file contents"
    is_error: bool = False
    input: dict | None = None  # None: a typical input for the tool, numbered by call


@dataclass
class Turn:
    """One assistant message and the user message after it."""

    calls: list[Call] = field(default_factory=list)  # parallel tool uses; empty: a text reply
    say: str | None = "Working on it."  # assistant text before the tool uses
    note: str | None = None  # user text after the tool results (the user's own words)
    thinking: str | None = None  # a thinking block at the start of the assistant message


def typical_input(name: str, k: int) -> dict:
    """A plausible input for a tool, numbered so that files and commands differ."""
    return {
        "read_file": {"path": f"src/module_{k}.py"},
        "bash": {"command": f"python run_tests.py -k case_{k}"},
        "glob": {"pattern": f"src/**/*_{k}.py"},
        "write_file": {"path": f"notes/{k}.md", "content": "draft"},
        "edit_file": {"path": f"src/module_{k}.py", "old_text": "a", "new_text": "b"},
        "compact": {},
    }.get(name, {"arg": k})


def build_session(
    turns: list[Turn],
    *,
    task: str = "Fix the failing test.",
    final: str | None = None,
    id_prefix: str = "toolu_",
) -> list[dict]:
    """A valid conversation from a plan: the task, then each turn, then an optional final reply."""
    out, k = [user(task)], 0
    for turn in turns:
        head = [{"type": "thinking", "thinking": turn.thinking, "signature": "sig"}] if turn.thinking else []
        said = [text(turn.say)] if turn.say and turn.say.strip() else []
        uses, results = [], []
        for call in turn.calls:
            use_id = f"{id_prefix}{k:04d}"
            uses.append(
                tool_use(
                    use_id, call.name, call.input if call.input is not None else typical_input(call.name, k)
                )
            )
            results.append(tool_result(use_id, call.result, is_error=call.is_error))
            k += 1
        out.append(assistant(*head, *(said or ([] if uses else [text("Done.")])), *uses))
        note = [text(turn.note)] if turn.note and turn.note.strip() else []
        out.append(user(*results, *(note or ([] if results else [text("Please go on.")]))))
    if final:
        out.append(assistant(final))
    return out


def _repeat(seed: str, size: int) -> str:
    seed = seed or "x"
    return (seed * (size // len(seed) + 1))[:size]


# The strategies below are built once, here, and only drawn from inside the composites: building a
# strategy inside a draw makes hypothesis validate it again on every example, which cost more than
# the drawing itself (the values drawn are the same either way).
_KIND = st.integers(0, 19)
_HUGE_SIZE = st.integers(20_000, 250_000)
_LONG_SIZE = st.integers(120, 4_000)
_PARTS = st.lists(nonblank.map(text), min_size=1, max_size=3)
_MAYBE = st.one_of(st.none(), nonblank)  # text half the time
_RARELY = st.one_of(st.none(), st.none(), nonblank)  # text a third of the time


@st.composite
def results(draw, huge: bool = True) -> str | list:
    """A tool result content: usually short text, sometimes long, a list of blocks, or huge."""
    kind = draw(_KIND)
    if kind == 0 and huge:
        return _repeat(draw(words), draw(_HUGE_SIZE))
    if kind <= 3:
        return _repeat(draw(words), draw(_LONG_SIZE))
    if kind <= 6:
        parts = draw(_PARTS)
        return parts + ([IMAGE] if draw(st.booleans()) else [])
    return draw(words)


_CALLS = {
    huge: st.lists(
        st.builds(Call, name=st.sampled_from(TOOLS), result=results(huge), is_error=st.booleans()),
        max_size=3,
    )
    for huge in (True, False)
}


@st.composite
def turns(draw, huge: bool = True) -> Turn:
    """One turn: zero to three parallel calls, optional thinking, optional user text after results."""
    return Turn(calls=draw(_CALLS[huge]), say=draw(_MAYBE), note=draw(_RARELY), thinking=draw(_RARELY))


@functools.cache
def _plans(max_turns: int, huge: bool) -> st.SearchStrategy[list[Turn]]:
    """The list of turns a session is built from (one strategy per shape, built once)."""
    return st.lists(turns(huge), max_size=max_turns)


@st.composite
def sessions(draw, max_turns: int = 12, huge: bool = True) -> list[dict]:
    """A valid session: a task, up to ``max_turns`` turns, sometimes a final text reply."""
    plan = draw(_plans(max_turns, huge))
    final = draw(_MAYBE)
    return build_session(plan, task=draw(nonblank), final=final)


# prebuilt contents for long sessions: drawing them is cheap, so hundreds of turns stay fast
LIGHT_RESULTS = (
    "ok",
    "x" * 130,
    "line\n" * 400,
    [text("part one"), text("part two")],
    [text("a plot"), IMAGE],
    SPICE[1] * 50,
)


_LIGHT_CALLS = st.integers(0, 3)
_LIGHT_NAME = st.sampled_from(TOOLS)
_LIGHT_RESULT = st.sampled_from(LIGHT_RESULTS)
_LIGHT_NOTE = st.sampled_from([None, None, None, "Also keep the old API.", SPICE[0]])
_LIGHT_SAY = st.sampled_from([None, "Next step."])


@st.composite
def light_turns(draw) -> Turn:
    """A turn drawn from a few prebuilt pieces (for long sessions)."""
    n = draw(_LIGHT_CALLS)
    calls = [Call(draw(_LIGHT_NAME), draw(_LIGHT_RESULT), draw(st.booleans())) for _ in range(n)]
    note = draw(_LIGHT_NOTE)
    return Turn(calls=calls, say=draw(_LIGHT_SAY), note=note)


@functools.cache
def _light_plans(min_turns: int, max_turns: int) -> st.SearchStrategy[list[Turn]]:
    """The list of light turns a long session is built from (one strategy per length range)."""
    return st.lists(light_turns(), min_size=min_turns, max_size=max_turns)


@st.composite
def _long_session(draw, min_turns: int, max_turns: int) -> list[dict]:
    plan = draw(_light_plans(min_turns, max_turns))
    return build_session(plan, task=draw(nonblank))


def long_sessions(min_turns: int = 10, max_turns: int = 40) -> st.SearchStrategy[list[dict]]:
    """Sessions long enough for snip to act, built from prebuilt pieces so they draw fast."""
    return _long_session(min_turns, max_turns)


# tool_use ids an attacker could choose: traversal, separators, NUL, reserved names, very long
hostile_ids = st.one_of(
    st.sampled_from(["..", "../../etc/passwd", "a/b", "a\\b", "nul\x00id", "CON", "con.txt", "aux", ".", ""]),
    st.text(chars, min_size=1, max_size=40),
    st.text(chars, min_size=300, max_size=600),
)
