"""The other design as a layer: keep only the last N turns, each cut short, in a context block.

The Java port of the lesson cannot reach inside its framework's tool loop, so it does not compact
the message list at all: it keeps its own history of turns and, before each call, injects the last
``keep_turns`` of them, each cut to ``max_chars`` characters, into a ``<conversation-context>``
block; the rest of the history is simply not shown. A manual ``compact`` (the model's tool) writes
the transcript and replaces the history with a summary.

``RecentTurns`` reproduces that as one layer of a ``Compactor``, so both designs run on the same
offline session. ``run_agent`` sends one system prompt per run, so the block rides at the end of
the first user message (the task) instead of the system prompt: the same tokens, sent first.
What is sent is that message plus the newest assistant message and its tool results, whole, so
the model can act on what it just asked for. The history it shows lives in the pipeline's state
for the layer (``Shared.state``), with every message as it came, for the transcript a compact writes.
Deliberately left out: the Java port's automatic summary at 50,000 estimated tokens (the pipeline
chapter covers that path) and any token count.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from compaction.core.guards import whole
from compaction.core.messages import blocks, text_of
from compaction.layers.layer import Layer, Shared
from compaction.layers.summarize import compact_history, needs_model

CONTEXT_OPEN, CONTEXT_CLOSE = "<conversation-context>", "</conversation-context>"


def turn_text(message: dict) -> str:
    """One message as a line of history: its text, tool calls as ``name {input}``, results' text."""
    parts = []
    for block in blocks(message):
        kind = block.get("type")
        if kind == "text":
            parts.append(block.get("text", ""))
        elif kind == "tool_use":
            parts.append(f"{block.get('name')} {json.dumps(block.get('input', {}), sort_keys=True)}")
        elif kind == "tool_result":
            parts.append(text_of(block.get("content", "")))
    return " ".join(p.strip() for p in parts if p.strip())


def context_block(history: Sequence[tuple[str, str]], *, keep_turns: int, max_chars: int) -> str:
    """The last ``keep_turns`` turns (a user and an assistant entry each), each cut to max_chars."""
    shown = history[-2 * keep_turns :] if keep_turns else []
    lines = [f"[{role}]: {content[:max_chars]}" for role, content in shown]
    return "\n".join([CONTEXT_OPEN, *lines, CONTEXT_CLOSE])


@dataclass(frozen=True, repr=False)
class RecentTurns(Layer):
    """Every call: the task with a block of the last ``keep_turns`` turns, then the newest exchange whole.

    ``run`` builds the block and is called as ``run(history, keep_turns=..., max_chars=...)``
    (``context_block``). It answers the model's compact tool: the transcript of everything seen,
    then the history becomes one summary entry.
    """

    name: ClassVar[str] = "recent turns"
    transcript_first: ClassVar[bool] = False  # it keeps every message itself; compact writes them
    answers_compact: ClassVar[bool] = True
    keep_turns: int = 5
    max_chars: int = 500
    run: Callable[..., str] = context_block

    def __post_init__(self) -> None:
        whole("keep_turns", self.keep_turns)
        whole("max_chars", self.max_chars, minimum=1)

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        """The task with the context block, then the newest exchange whole."""
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list of message dicts")
        state = self._state(shared)
        if state["task"] is None:
            state["task"], state["sent"] = messages[0], 1
            state["full"].append(messages[0])
        new = messages[state["sent"] :]
        state["full"].extend(new)
        state["history"].extend((m["role"], turn_text(m)) for m in new)
        tail = messages[-2:] if len(messages) >= 3 and messages[-2].get("role") == "assistant" else []
        shown = state["history"][: -len(tail)] if tail else state["history"]
        block = self.run(shown, keep_turns=self.keep_turns, max_chars=self.max_chars)
        first = {"role": "user", "content": f"{text_of(state['task']['content'])}\n\n{block}"}
        out = [first, *tail]
        state["sent"] = len(out)
        return out

    def compact(self, messages: list[dict], shared: Shared, focus: str | None = None) -> list[dict]:
        """The manual compact: transcript first, then the history becomes one summary entry."""
        missing = needs_model(shared, "compact")
        if missing:
            raise ValueError(missing)
        state = self._state(shared)
        state["full"].extend(messages[state["sent"] :])
        summary = compact_history(
            state["full"], client=shared.client, transcript_dir=shared.transcript_dir, focus=focus
        )
        # the summary replaces the history; the newest exchange stays as the tail apply shows whole
        state["history"] = [("user", text_of(summary[0]["content"]))]
        state["history"] += [(m["role"], turn_text(m)) for m in messages[-2:]]
        state["sent"] = len(messages)
        return messages

    def _state(self, shared: Shared) -> dict:
        """This layer's history in the pipeline: (role, text) entries, every message, the task, sent."""
        state = shared.state(self)
        if not state:
            state.update(history=[], full=[], task=None, sent=0)
        return state
