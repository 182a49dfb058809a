"""The user's instructions, kept verbatim across compactions.

A summary is written by a model, and a model may drop or paraphrase what the user asked not to
do: a recurring complaint about compaction (instructions lost after it; see
anthropics/claude-code issues 19736 and 19471). ``user_instructions`` collects the sentences of the
user's own messages that constrain the work (never, do not, only, must, always, ...), with the
lines a sentence ending in ":" introduces (the exact command to run, the list of files not to
submit), including those a previous compaction pinned; ``pin_instructions`` adds the ones a
compacted list no longer shows, word for word, to its first message, so they survive any number of
compactions whatever the summary says.
Deliberately left out: judging which instructions still apply (a later "you may now edit the
tests" does not cancel an earlier "never edit the tests"; both are kept), and instructions given
only in a system prompt, which compaction never touches.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from compaction.core.messages import Message, blocks, text

PINNED_HEAD = "[The user's instructions, kept word for word across compactions]"
CONSTRAINT = re.compile(
    r"\b(not|never|only|must|always|without|avoid|make sure|instead|don't|do not)\b", re.IGNORECASE
)
MAX_PINNED_CHARS = 2_000  # the newest instructions win when there are more
INTRODUCED_LINES = 4  # lines a sentence ending in ":" brings along (the command or list it introduces)


def _sentences(value: str) -> list[str]:
    """The sentences of a text; a constraining one ending in ":" takes the lines it introduces (a command)."""
    out: list[str] = []
    lines = value.splitlines()
    for k, line in enumerate(lines):
        found = [s.strip() for s in re.split(r"(?<=[.!?])\s+", line) if s.strip()]
        if found and found[-1].endswith(":") and CONSTRAINT.search(found[-1]):
            found[-1] = " ".join([found[-1], *_introduced(lines[k + 1 :])])
        out += found
    return out


def _introduced(lines: list[str]) -> list[str]:
    """The lines right after a sentence ending in ":": a fenced command, or up to four list items."""
    out: list[str] = []
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("```"):
            if out:
                break
            continue
        if not stripped and not out:  # blank lines before what it introduces
            continue
        if not stripped or len(out) == INTRODUCED_LINES:
            break
        out.append(stripped)
    return out


def _normalized(value: str) -> str:
    return " ".join(value.split()).lower()


def user_instructions(messages: Sequence[Message]) -> list[str]:
    """The user's constraining sentences in ``messages``, oldest first, pinned ones included."""
    found: list[str] = []
    for message in messages:
        if message.get("role") != "user":
            continue
        for block in blocks(message):
            if block.get("type") != "text":
                continue
            said = str(block.get("text", ""))
            if said.startswith(PINNED_HEAD):
                found += [line[2:] for line in said.splitlines()[1:] if line.startswith("- ")]
            elif not said.lstrip().startswith("["):  # "[snip] ...", "[Compacted ...]": harness notes
                found += [s for s in _sentences(said) if CONSTRAINT.search(s) and len(s) > 12]
    return list(dict.fromkeys(found))


def pin_instructions(before: Sequence[Message], after: list[Message]) -> list[Message]:
    """``after`` with the instructions of ``before`` it no longer shows added to its first message."""
    if not after or after[0].get("role") != "user":
        return after
    shown = _normalized(
        "\n".join(
            str(b.get("text", ""))
            for m in after
            for b in blocks(m)
            if b.get("type") == "text" and not str(b.get("text", "")).startswith(PINNED_HEAD)
        )
    )
    missing = [s for s in user_instructions(before) if _normalized(s) not in shown]
    kept: list[str] = []
    for sentence in reversed(missing):  # newest first, within the budget
        if sum(len(s) for s in kept) + len(sentence) > MAX_PINNED_CHARS:
            break
        kept.insert(0, sentence)
    first = [b for b in blocks(after[0]) if not str(b.get("text", "")).startswith(PINNED_HEAD)]
    if kept:
        first.append(text("\n".join([PINNED_HEAD, *(f"- {s}" for s in kept)])))
    if first == blocks(after[0]):
        return after
    return [{**after[0], "content": first}, *after[1:]]
