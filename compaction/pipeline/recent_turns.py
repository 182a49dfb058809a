"""The other design: keep only the last N turns, each cut short, in a context block.

The Java port of the lesson cannot reach inside its framework's tool loop, so it does not compact
the message list at all: it keeps its own history of turns and, before each call, injects the last
``keep_turns`` of them, each cut to ``max_chars`` characters, into a ``<conversation-context>``
block; the rest of the history is simply not shown. A manual ``compact`` (the model's tool) writes
the transcript and replaces the history with a summary.

``RecentTurns.prepare(messages)`` reproduces that on our loop, so both designs run on the same
offline session. ``run_agent`` sends one system prompt per run, so the block rides at the end of
the first user message (the task) instead of the system prompt: the same tokens, sent first.
What is sent is that message plus the newest assistant message and its tool results, whole, so
the model can act on what it just asked for. Deliberately left out: the Java port's automatic
summary at 50,000 estimated tokens (the pipeline chapter covers that path) and any token count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from compaction.core.messages import blocks, text_of
from compaction.layers.summarize import compact_history

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


def context_block(history: list[tuple[str, str]], *, keep_turns: int, max_chars: int) -> str:
    """The last ``keep_turns`` turns (a user and an assistant entry each), each cut to max_chars."""
    shown = history[-2 * keep_turns :] if keep_turns else []
    lines = [f"[{role}]: {content[:max_chars]}" for role, content in shown]
    return "\n".join([CONTEXT_OPEN, *lines, CONTEXT_CLOSE])


class RecentTurns:
    """The recent-turns design as a ``prepare`` hook for ``run_agent``, plus its manual compact."""

    def __init__(
        self,
        *,
        keep_turns: int = 5,
        max_chars: int = 500,
        client: Any = None,
        transcript_dir: str | Path | None = None,
    ):
        if not isinstance(keep_turns, int) or keep_turns < 0:
            raise ValueError(f"keep_turns must be a non-negative int, not {keep_turns!r}")
        if not isinstance(max_chars, int) or max_chars < 1:
            raise ValueError(f"max_chars must be a positive int, not {max_chars!r}")
        self.keep_turns, self.max_chars = keep_turns, max_chars
        self.client = client
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
        self.history: list[tuple[str, str]] = []  # (role, text) of every message seen, oldest first
        self.full: list[dict] = []  # every message as it came, for the transcript
        self.task: dict | None = None  # the first user message, as the user wrote it
        self._sent = 0  # length of the list prepare returned last time
        self.compactions = 0

    def prepare(self, messages: list[dict]) -> list[dict]:
        """The task with the context block, then the newest exchange whole."""
        if not isinstance(messages, list) or not messages:
            raise ValueError("messages must be a non-empty list of message dicts")
        if self.task is None:
            self.task, self._sent = messages[0], 1
            self.full.append(messages[0])
        new = messages[self._sent :]
        self.full.extend(new)
        self.history.extend((m["role"], turn_text(m)) for m in new)
        tail = messages[-2:] if len(messages) >= 3 and messages[-2].get("role") == "assistant" else []
        shown = self.history[: -len(tail)] if tail else self.history
        block = context_block(shown, keep_turns=self.keep_turns, max_chars=self.max_chars)
        first = {"role": "user", "content": f"{text_of(self.task['content'])}\n\n{block}"}
        out = [first, *tail]
        self._sent = len(out)
        return out

    def compact(self, messages: list[dict], focus: str | None = None) -> list[dict]:
        """The manual compact: transcript first, then the history becomes one summary entry."""

        if self.client is None or self.transcript_dir is None:
            raise ValueError("compact needs a client and a transcript_dir")
        new = messages[self._sent :]
        self.full.extend(new)
        summary = compact_history(
            self.full, client=self.client, transcript_dir=self.transcript_dir, focus=focus
        )
        # the summary replaces the history; the newest exchange stays as the tail prepare shows whole
        self.history = [("user", text_of(summary[0]["content"]))]
        self.history += [(m["role"], turn_text(m)) for m in messages[-2:]]
        self.compactions += 1
        self._sent = len(messages)
        return messages

    def agent_hooks(self) -> dict[str, Any]:
        """The hooks for ``run_agent``: prepare and on_compact."""
        return {"prepare": self.prepare, "on_compact": self.compact}
