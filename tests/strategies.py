"""Hypothesis strategies for strict-form sessions, and a fast builder for hand-written ones.

``sessions()`` draws valid conversations (``validate`` accepts every one): parallel tool uses,
tool results whose content is a string or a list of blocks (text, sometimes an image), ``is_error``
flags, thinking blocks passed through, user text after tool results, Unicode with astral
characters (never lone surrogates), and now and then a huge result. ``build_session`` turns a
plain plan (a list of ``Turn``) into such a list, for tests that need one exact shape.
Deliberately left out: server tool blocks, citations, and prefilled final assistant messages.
"""

from __future__ import annotations

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


@st.composite
def results(draw, huge: bool = True) -> str | list:
    """A tool result content: usually short text, sometimes long, a list of blocks, or huge."""
    kind = draw(st.integers(0, 19))
    if kind == 0 and huge:
        return _repeat(draw(words), draw(st.integers(20_000, 250_000)))
    if kind <= 3:
        return _repeat(draw(words), draw(st.integers(120, 4_000)))
    if kind <= 6:
        parts = draw(st.lists(nonblank.map(text), min_size=1, max_size=3))
        return parts + ([IMAGE] if draw(st.booleans()) else [])
    return draw(words)


@st.composite
def turns(draw, huge: bool = True) -> Turn:
    """One turn: zero to three parallel calls, optional thinking, optional user text after results."""
    calls = draw(
        st.lists(
            st.builds(Call, name=st.sampled_from(TOOLS), result=results(huge), is_error=st.booleans()),
            max_size=3,
        )
    )
    return Turn(
        calls=calls,
        say=draw(st.one_of(st.none(), nonblank)),
        note=draw(st.one_of(st.none(), st.none(), nonblank)),
        thinking=draw(st.one_of(st.none(), st.none(), nonblank)),
    )


@st.composite
def sessions(draw, max_turns: int = 12, huge: bool = True) -> list[dict]:
    """A valid session: a task, up to ``max_turns`` turns, sometimes a final text reply."""
    plan = draw(st.lists(turns(huge), max_size=max_turns))
    final = draw(st.one_of(st.none(), nonblank))
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


@st.composite
def light_turns(draw) -> Turn:
    """A turn drawn from a few prebuilt pieces (for long sessions)."""
    n = draw(st.integers(0, 3))
    calls = [
        Call(draw(st.sampled_from(TOOLS)), draw(st.sampled_from(LIGHT_RESULTS)), draw(st.booleans()))
        for _ in range(n)
    ]
    note = draw(st.sampled_from([None, None, None, "Also keep the old API.", SPICE[0]]))
    return Turn(calls=calls, say=draw(st.sampled_from([None, "Next step."])), note=note)


def long_sessions(min_turns: int = 10, max_turns: int = 40) -> st.SearchStrategy[list[dict]]:
    """Sessions long enough for snip to act, built from prebuilt pieces so they draw fast."""
    return st.lists(light_turns(), min_size=min_turns, max_size=max_turns).flatmap(
        lambda plan: nonblank.map(lambda task: build_session(plan, task=task))
    )


# tool_use ids an attacker could choose: traversal, separators, NUL, reserved names, very long
hostile_ids = st.one_of(
    st.sampled_from(["..", "../../etc/passwd", "a/b", "a\\b", "nul\x00id", "CON", "con.txt", "aux", ".", ""]),
    st.text(chars, min_size=1, max_size=40),
    st.text(chars, min_size=300, max_size=600),
)
