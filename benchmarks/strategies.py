"""Strategies on the same sessions: no compaction, micro only, summary only, the full pipeline.

Offline scenarios are run live (the scripted agent reacts to what each strategy left it, so files
compacted away get read again). Real sessions from ../shared/data are replayed: each recorded turn
is appended to whatever the strategy left of the list, and the strategy prepares it again.

Probe recall: facts taken from the uncompacted session (the user's task and constraints, the first
error, every file modified, the reason given for the first fix, the last thing said) checked for
presence, as text, in the final context. A strategy that overflows the window is marked with the
turn where the API refused the prompt.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable
from pathlib import Path

from compaction import messages as M
from compaction.agent import new_workspace, run_agent
from compaction.backend import connect
from compaction.importers import sessions_in
from compaction.micro import micro_compact
from compaction.pipeline import Compactor
from compaction.store import OutputStore
from compaction.tokens import estimate_tokens

from .tables import table

STRATEGIES = ("none", "micro only", "summary only", "pipeline")
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _hooks(name: str, tmp: Path, window: int, workspace: Path | None) -> tuple[dict, Compactor | None]:
    if name == "none":
        return {}, None
    if name == "micro only":
        return {"prepare": micro_compact}, None
    order = () if name == "summary only" else ("budget", "snip", "micro")
    compactor = Compactor(
        store=OutputStore(tmp / "store"),
        client=connect(context_window=window),
        transcript_dir=tmp / "transcripts",
        context_window=window,
        order=order,
        workspace=workspace,
    )
    return compactor.agent_hooks(), compactor


def probes(messages: list[dict]) -> dict[str, str]:
    """Facts of a whole session, by name: each is a string the final context should still hold."""
    facts: dict[str, str] = {}
    first = M.text_of(messages[0]["content"]) if messages else ""
    facts["task"] = first.strip().splitlines()[0][:60] if first.strip() else ""
    constraint = re.search(r"\(not in [^)]*\)|\bdo not\b[^.\n]*|\bdon't\b[^.\n]*", first, re.I)
    if constraint:
        facts["constraint"] = constraint.group(0)[:40]
    inputs = M.tool_inputs(messages)
    names = M.tool_names(messages)
    for use_id, name in names.items():
        path = inputs[use_id].get("path")
        if name in ("edit_file", "write_file", "str_replace_editor", "Edit", "Write") and path:
            facts[f"modified {path}"] = str(path)
    for m in messages:
        for block in M.tool_result_blocks(m):
            text = M.text_of(block.get("content"))
            hit = re.search(r"^(FAIL|ERROR)[: ].*$|^\w*Error: .*$", text, re.M)
            if hit and "error" not in facts:
                facts["error"] = hit.group(0).strip()[:60]
    says = [M.text_of(b.get("text")) for m in messages if m["role"] == "assistant" for b in M.blocks(m)]
    reasons = [s for s in says if re.search(r"\bbecause\b|\bso that\b|\bsince\b", s)]
    if reasons:
        facts["reason"] = reasons[0].strip()[:60]
    return {k: v for k, v in facts.items() if v}


def recall(facts: dict[str, str], context: list[dict]) -> float:
    """The share of facts whose text appears somewhere in the context."""
    if not facts:
        return 1.0
    text = "\n".join(M.to_json(m) for m in context)
    plain = "\n".join(
        M.text_of(b.get("content"))
        if b.get("type") == "tool_result"
        else str(b.get("text", b.get("input", "")))
        for m in context
        for b in M.blocks(m)
    )
    return sum(1 for v in facts.values() if v in plain or v in text) / len(facts)


class Recorder:
    """Wraps a prepare hook and keeps every message it was ever given: the uncompacted session."""

    def __init__(self, prepare: Callable[[list], list] | None):
        self.prepare = prepare or (lambda m: m)
        self.session: list[dict] = []
        self._known: set[int] = set()
        self._alive: list[list[dict]] = []  # keeps the dicts alive so their ids stay unique

    def see(self, messages: list[dict]) -> None:
        """Record the messages not seen before (new turns), in order."""
        for m in messages:
            if id(m) not in self._known:
                self._known.add(id(m))
                self.session.append(m)

    def __call__(self, messages: list[dict]) -> list[dict]:
        self.see(messages)
        out = self.prepare(messages)
        self._known.update(id(m) for m in out)  # placeholders and summaries are not the session
        self._alive.append(out)
        return out


def offline_row(name: str, turns: int, window: int) -> list:
    """One strategy on the live offline scenario: peak, final, summaries, re-reads, recall."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        workspace = new_workspace(tmp_path / "ws")
        hooks, compactor = _hooks(name, tmp_path, window, workspace)
        recorder = Recorder(hooks.get("prepare"))
        hooks["prepare"] = recorder
        result = run_agent(connect(context_window=window), workspace=workspace, max_turns=turns, **hooks)
        recorder.see(result.messages)
        full = recorder.session
        peak = max((t.input_tokens or t.estimated_tokens for t in result.turns), default=0)
        final = estimate_tokens(result.messages, "tiktoken")
        reads = [u for m in full for u in M.tool_use_blocks(m) if u["name"] == "read_file"]
        rereads = len(reads) - len({u["input"].get("path") for u in reads})
        summaries = _summaries(compactor)
        outcome = f"refused at turn {len(result.turns)}" if result.error else f"{len(result.turns)} turns"
        return [
            f"offline {turns}",
            name,
            outcome,
            peak,
            final,
            summaries,
            rereads,
            f"{recall(probes(full), result.messages):.0%}",
        ]


def _summaries(compactor: Compactor | None) -> int:
    if compactor is None:
        return 0
    counts = compactor.counts()
    return counts.get("summary", 0) + counts.get("reactive", 0) + counts.get("compact", 0)


def replay_row(label: str, session: list[dict], name: str, window: int) -> list:
    """One strategy replayed over a recorded session, turn by turn."""
    with tempfile.TemporaryDirectory() as tmp:
        hooks, compactor = _hooks(name, Path(tmp), window, None)
        prepare: Callable[[list], list] = hooks.get("prepare", lambda m: m)
        context: list[dict] = []
        peak = 0
        for start, end in _turns(session):
            context = prepare(context + session[start:end])
            tokens = estimate_tokens(context, "tiktoken")
            peak = max(peak, tokens)
            if compactor is not None:
                compactor.observe(context, {"input_tokens": tokens})
        overflow = "over window" if peak > window else "fits"
        if compactor is not None and compactor.breaker_open:
            overflow += ", breaker open"
        return [
            label,
            name,
            overflow,
            peak,
            estimate_tokens(context, "tiktoken"),
            _summaries(compactor),
            "-",
            f"{recall(probes(session), context):.0%}",
        ]


def _turns(session: list[dict]) -> list[tuple[int, int]]:
    """Slices of the session that end with a user message: what arrives before each model call."""
    bounds, start = [], 0
    for i, m in enumerate(session):
        if m["role"] == "user":
            bounds.append((start, i + 1))
            start = i + 1
    return bounds


def replay_window(session: list[dict]) -> int:
    """A third of the session, but room for twice its first message (the task must fit) and 4,000."""
    first = estimate_tokens(session[:1], "tiktoken")
    return max(4_000, estimate_tokens(session, "tiktoken") // 3, 2 * first)


def real_sessions() -> list[tuple[str, list[dict]]]:
    """The recorded sessions in ../shared/data that are long enough to need compaction."""
    found = [(Path(name).stem, messages) for name, messages in sessions_in(DATA)]
    return [(n, s) for n, s in found if estimate_tokens(s, "tiktoken") > 4_000]


def run(quick: bool = False) -> str:
    """The strategy table over offline scenarios at several lengths and the real sessions."""
    window = 8_000
    rows = []
    for turns in (40,) if quick else (40, 80, 150):
        rows += [offline_row(name, turns, window) for name in STRATEGIES]
    for label, session in real_sessions()[: 2 if quick else None]:
        rows += [replay_row(label, session, name, replay_window(session)) for name in STRATEGIES]
    return table(
        f"c. strategies on the same sessions (offline window {window:,}; replays: a third of the session, "
        "at least twice its first message)",
        ["session", "strategy", "outcome", "peak tokens", "final", "summaries", "re-reads", "recall"],
        rows,
    )
