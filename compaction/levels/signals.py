"""When to compact: signals read from a session, each with an action and a notice for the user.

Five signals, after the practice guide: the session has run ``max_turns`` turns or more
(``consider``); the agent repeats an earlier tool call or proposal (``compact_now``); the user says
it was already discussed (``compact_now``); a phase of work has ended (``summarize_phase``); one
tool output has ``max_lines`` lines or more (``condense_output``). ``SignalWatcher`` is a
``prepare`` hook: it records each new signal as an event with its notice *before* it acts, then
condenses the large outputs (saved in full first) and summarizes finished phases.
Deliberately left out: judging meaning. Repetition is an identical tool call with no edit since, or
a near-identical sentence; "already discussed" is a phrase list, not an understanding.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from compaction.core.events import CompactionEvent
from compaction.core.messages import (
    Message,
    text_of,
    tool_inputs,
    tool_names,
    tool_result_blocks,
    tool_use_blocks,
)
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens
from compaction.levels.condense import condense
from compaction.levels.phase_summary import compact_phases, statement
from compaction.levels.phases import action_of, detect_phases

MAX_TURNS = 20
MAX_LINES = 500
ACTIONS = {  # signal kind -> what to do about it
    "long_session": "consider",
    "repetition": "compact_now",
    "already_discussed": "compact_now",
    "phase_transition": "summarize_phase",
    "large_output": "condense_output",
}
ALREADY = re.compile(
    r"(?i)\b(already (discussed|talked about|covered|said|told you|tried|did|done|fixed|decided)|"
    r"we (went|have been|already went) (over|through)|as I (said|told you)|I told you|"
    r"you asked (that|this) before)"
)


@dataclass(frozen=True)
class Signal:
    """A reason to compact, seen at message ``index`` (model call ``turn``), with its notice."""

    kind: str
    index: int
    turn: int  # 0-based number of the assistant message at or before index, like TurnRecord.index
    action: str
    notice: str
    key: str  # what makes this signal the same one on a later, longer list


def _turn(messages: Sequence[Message], index: int) -> int:
    return max(sum(m.get("role") == "assistant" for m in messages[: index + 1]) - 1, 0)


def _signal(messages: Sequence[Message], kind: str, index: int, notice: str, key: str) -> Signal:
    return Signal(kind, index, _turn(messages, index), ACTIONS[kind], notice, f"{kind}:{key}")


def _names(sentence: str) -> set[str]:
    """The file and function names in a sentence: two proposals about different files differ."""
    return set(re.findall(r"[\w-]*[./_()][\w./()-]*", sentence))


def _repetitions(messages: Sequence[Message]) -> list[Signal]:
    out, calls, said = [], {}, []  # (name, input, kind, path) -> message index; [(index, sentence)]
    for i, message in enumerate(messages):
        if message.get("role") != "assistant":
            continue
        for use in tool_use_blocks(message):
            name, args = use.get("name", ""), use.get("input") or {}
            kind, path = action_of(name, args)
            if kind == "edit":  # after an edit, only reading another file again is a repetition
                calls = {k: j for k, j in calls.items() if k[2] == "read" and k[3] != path}
                continue
            key = (name, json.dumps(args, sort_keys=True), kind, path)
            if key in calls:
                notice = f"The agent repeats a {name} call it made at message {calls[key]}; compacting now."
                out.append(_signal(messages, "repetition", i, notice, use.get("id", str(i))))
            calls.setdefault(key, i)
        sentence = " ".join(re.sub(r"\[step \d+[^\]]*\]", "", statement(message)).lower().split())
        if len(sentence) >= 40:
            for j, earlier in said[-50:]:
                same_names = _names(sentence) == _names(earlier)
                if same_names and difflib.SequenceMatcher(None, sentence, earlier).ratio() >= 0.9:
                    notice = f"The agent repeats what it proposed at message {j}; compacting now."
                    out.append(_signal(messages, "repetition", i, notice, f"said:{i}:{sentence[:40]}"))
                    break
            said.append((i, sentence))
    return out


def detect_signals(
    messages: Sequence[Message],
    *,
    max_turns: int = MAX_TURNS,
    max_lines: int = MAX_LINES,
    turns_run: int | None = None,
) -> list[Signal]:
    """Every signal in the session, in message order.

    ``turns_run`` is how many turns the session has really run, for a list already compacted;
    by default the assistant messages of the list are counted.
    """
    if max_turns < 1 or max_lines < 1:
        raise ValueError(
            f"detect_signals: max_turns and max_lines must be >= 1, got {max_turns}, {max_lines}"
        )
    found: list[Signal] = []
    turns = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    if (len(turns) if turns_run is None else turns_run) >= max_turns:
        at = turns[max_turns - 1] if turns_run is None else len(messages) - 1
        notice = f"This session has run {max_turns} turns; consider compacting the finished work."
        found.append(_signal(messages, "long_session", at, notice, str(max_turns)))
    found += _repetitions(messages)
    names = tool_names(messages)
    for i, message in enumerate(messages):
        if message.get("role") != "user":
            continue
        for block in tool_result_blocks(message):
            lines = text_of(block.get("content")).count("\n") + 1
            if lines >= max_lines:
                tool = names.get(block.get("tool_use_id"), "tool")
                notice = f"Condensing a {lines:,}-line {tool} output; the full text is saved first."
                found.append(_signal(messages, "large_output", i, notice, block.get("tool_use_id", "")))
        words = (
            [b.get("text", "") for b in message["content"] if b.get("type") == "text"]
            if isinstance(message.get("content"), list)
            else [message.get("content", "")]
        )
        if any(ALREADY.search(w) for w in words) and i > 0:
            notice = (
                "You said this was already discussed; compacting now to bring the decisions back into focus."
            )
            found.append(_signal(messages, "already_discussed", i, notice, f"{i}:{words[0][:40]}"))
    for phase in detect_phases(messages):
        if phase.reason != "open":
            first = tool_use_blocks(messages[phase.start])
            notice = f"Summarizing the finished {phase.kind} phase to keep the context focused."
            key = first[0]["id"] if first else str(phase.start)
            found.append(_signal(messages, "phase_transition", phase.end, notice, key))
    return sorted(found, key=lambda s: (s.index, s.kind))


class SignalWatcher:
    """A ``prepare`` hook: report new signals as events first, then condense and summarize."""

    def __init__(
        self,
        *,
        transcript_dir: str | Path,
        store: OutputStore | None = None,
        act: bool = True,
        on_notice: Callable[[Signal], None] | None = None,
        max_turns: int = MAX_TURNS,
        max_lines: int = MAX_LINES,
    ):
        self.transcript_dir = Path(transcript_dir)
        self.store = store or OutputStore(self.transcript_dir)
        self.act, self.on_notice = act, on_notice
        self.max_turns, self.max_lines = max_turns, max_lines
        self.signals: list[Signal] = []  # every signal reported, in order; turn = the model call it preceded
        self.events: list[CompactionEvent] = []  # the same, as events the plots and widgets read
        self._seen: set[str] = set()
        self._calls = 0  # prepare calls so far: the 0-based index of the model call about to be made

    def prepare(self, messages: list[Message]) -> list[Message]:
        """Report the signals not seen before; then, when acting, return the compacted list."""
        limits = {"max_turns": self.max_turns, "max_lines": self.max_lines, "turns_run": self._calls}
        new = detect_signals(messages, **limits)
        new = [replace(s, turn=self._calls) for s in new if s.key not in self._seen]
        self._calls += 1
        for signal in new:  # the user is told before anything changes
            self._seen.add(signal.key)
            self.signals.append(signal)
            if self.on_notice:
                self.on_notice(signal)
        if not new:
            return messages
        before = after = estimate_tokens(messages, "tiktoken")
        actions = {s.action for s in new}
        if self.act and "condense_output" in actions:
            messages = condense_outputs(messages, store=self.store, max_lines=self.max_lines)
        if self.act and actions & {"summarize_phase", "compact_now"}:
            messages = compact_phases(messages, transcript_dir=self.transcript_dir)
        if self.act:
            after = estimate_tokens(messages, "tiktoken")
        for signal in new:  # every signal of this call shares the call's before and after
            self.events.append(CompactionEvent(signal.turn, signal.kind, before, after, signal.notice))
        return messages


def condense_outputs(messages: Sequence[Message], *, store: OutputStore, max_lines: int = MAX_LINES) -> list:
    """A new list where each string tool output of ``max_lines`` lines or more is condensed, saved first."""
    inputs, names = tool_inputs(messages), tool_names(messages)
    out = []
    for message in messages:
        content = message.get("content")
        if message.get("role") != "user" or not isinstance(content, list):
            out.append(message)
            continue
        blocks = []
        for block in content:
            body = block.get("content") if block.get("type") == "tool_result" else None
            if isinstance(body, str) and body.count("\n") + 1 >= max_lines:
                use_id = block["tool_use_id"]
                saved = store.display(store.save(use_id, body))
                command = inputs.get(use_id, {}).get("command")
                body = condense(body, tool=names.get(use_id), command=command, saved_path=saved)
                block = {**block, "content": body}
            blocks.append(block)
        out.append({**message, "content": blocks})
    return out
