"""The pipeline: a list of layers run in order before every model call, and the hooks for the loop.

``Compactor(layers=[...]).prepare(messages)`` runs each layer of the list whose trigger fires, in
the list's order: a layer (``compaction.layers.layer``) is a small value that owns its settings, its
trigger and the function it runs, and reads the pipeline only through ``Shared`` (the Compactor is
one). The Compactor knows no layer by name: it asks each what it is (``before_call``,
``calls_model``, ``transcript_first``, ``answers_compact``). The default list is ``default_layers()``:

    [Budget(), Micro.cache_aware(), Summary(share_cache=True), Reactive()]

- ``Budget``: the tool results of the newest user message hold more than ``max_chars``.
- ``Snip``: not in the default list. Added, it cuts a list of more than ``max_messages`` to
  ``keep_to``. Left out because the comparison of chapter 13 (``python -m compaction evaluate``)
  measured it: snip drops the middle of the session, where the first error, the fixes and their
  reasons are, before any summary sees them.
- ``Micro``: the estimate has passed ``trigger`` (a fraction) of the summary threshold, and
  clearing frees at least ``clear_at_least`` tokens (one cache break for a batch). In the default
  list its settings are ``Micro.cache_aware()``'s, chosen by their prompt-cache price (chapter 13).
- ``Summary``: the estimate is over the threshold, ``context_window - reserve - buffer``
  (Claude Code: 13,000 tokens of buffer on a 200K window; scaled down for small windows,
  ``compaction.layers.triggers``); ``threshold=`` sets it outright. In the default list it shares
  the agent's cached prefix (``share_cache``): give it the agent's system prompt and tools in
  ``options`` for the summary request to read that prefix.
- ``Reactive``: not a pass (``before_call`` is False); ``reactive()`` runs it after the API refused
  a request as too long.

The numbers the seed gives the layers (snip L1, micro L2, budget L3, summary L4: learn-claude-code's
s08) are the order it explains them in; they run in the order above, budget first, for a reason: a
large result is on disk before micro could replace it with a placeholder (chapter 06 shows the loss
in the other order).

What the layers share is the Compactor's (``Shared``): the store, the client, the transcript folder,
the window and threshold, the counter, the originals of cleared results, a state per layer, the
events. A layer that calls a model is guarded (``layers.triggers.Guard``): ``max_failures`` failed
runs in a row open its circuit breaker (``breaker_open``); two runs in a row that leave the estimate
over the threshold stop it (the loop guard, ``stopped``), and an event names what no summary can
remove (system prompt and tools, the newest turn, the summary itself). The two states are apart: a
loop stop is not a failure. The estimate anchors on the API's ``usage`` (a ``TokenCounter`` fed by
``observe``). With a ``transcript_dir`` the list is written as a transcript before a layer that
drops messages (``transcript_first``) drops anything, so every byte that leaves the context is on
disk; ``recorded`` names a file that already holds some messages (a replayed session), and what
leaves among those is not written again.

Deliberately left out: summarizing in the background, and any mechanism of Claude Code that its docs
do not describe (editing the cache without rewriting the prefix is no feature of the public API:
the SDK's types have no ``cache_edits``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from compaction.core.events import CompactionEvent
from compaction.core.messages import shared_prefix
from compaction.core.store import OutputStore
from compaction.core.tokens import TokenCounter, usage_input_tokens
from compaction.core.transcript import Lines, write_transcript
from compaction.layers.budget import Budget
from compaction.layers.layer import Layer
from compaction.layers.ledger import ResultMemory
from compaction.layers.micro import Micro
from compaction.layers.reactive import Reactive
from compaction.layers.summarize import Summary
from compaction.layers.triggers import CLAUDE_CODE_WINDOW, CircuitBreaker, Guard, summary_threshold
from compaction.pipeline.hooks import Hooks

Passes = list[tuple[str, list[dict]]]  # (pass name, the list after it), the input first


def default_layers() -> list[Layer]:
    """The package's pipeline, in the order it runs: budget, micro, summary; reactive on a refusal."""
    return [Budget(), Micro.cache_aware(), Summary(share_cache=True), Reactive()]


class Compactor:
    """Keeps a message list inside the window: a list of layers, each on its trigger, and the hooks."""

    def __init__(
        self,
        layers: Sequence[Layer] | None = None,
        *,
        store: OutputStore | None = None,
        client: Any = None,
        transcript_dir: str | Path | None = None,
        context_window: int = CLAUDE_CODE_WINDOW,
        threshold: int | None = None,
        counter: TokenCounter | None = None,
        on_event: Callable[[CompactionEvent], None] | None = None,
        workspace: str | Path | None = None,
        recorded: tuple[str | Path, Sequence[dict]] | None = None,
        on_passes: Callable[[str, Passes], None] | None = None,
    ):
        self.layers = default_layers() if layers is None else list(layers)
        for k, layer in enumerate(self.layers):
            if not isinstance(layer, Layer):
                raise TypeError(
                    f"layers[{k}] must be a layer such as Budget(), Snip(...), Micro(), Summary() or "
                    f"Reactive() (a function goes in a layer's run=), not {type(layer).__name__}"
                )
        self.store, self.client = store, client
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
        self.workspace = Path(workspace) if workspace is not None else None
        self.context_window = context_window
        self.threshold = summary_threshold(context_window) if threshold is None else threshold
        if isinstance(self.threshold, bool) or not isinstance(self.threshold, int) or self.threshold <= 0:
            raise ValueError(f"threshold must be a positive int, not {threshold!r}")
        # each layer that calls a model before a call: its breaker and loop guard
        self.guards = {id(layer): Guard(layer.max_failures) for layer in self.layers if layer.calls_model}
        self.results = ResultMemory()  # each tool result as first seen, for a ledger after clearing
        self.counter = counter or TokenCounter("tiktoken")
        self.on_event, self.on_passes = on_event, on_passes
        self.events: list[CompactionEvent] = []
        self.turn = -1  # index of the model call being prepared (like TurnRecord.index)
        self._states: dict[int, dict] = {}  # id(layer) -> what that layer remembers across calls
        self._overhead = 0  # system prompt + tools: usage minus our estimate of the messages
        self._estimates: dict[int, tuple[list, int]] | None = None  # during a call: list -> its estimate
        self._lines = Lines()  # each message's transcript line, encoded once
        # (file, its messages): a replayed session is already on disk, so what leaves it needs no copy
        self._recorded = (str(recorded[0]), list(recorded[1])) if recorded is not None else None
        self._recorded_ids = {id(m) for m in self._recorded[1]} if self._recorded else set()

    def layer(self, name: str) -> Layer | None:
        """The first layer of the list with this name, or None."""
        return next((layer for layer in self.layers if layer.name == name), None)

    def state(self, layer: Layer) -> dict:
        """The dict this pipeline keeps for ``layer`` across calls (empty at first)."""
        return self._states.setdefault(id(layer), {})

    @property
    def breaker(self) -> CircuitBreaker | None:
        """The circuit breaker of the first layer that calls a model before a call (None without one).

        Assign a breaker of your own (anything with ``record(success)``, ``is_open``, ``failures`` and
        ``max_failures``) to plug it in for that layer, as chapter 08 does.
        """
        guard = self._first_guard()
        return guard.breaker if guard is not None else None

    @breaker.setter
    def breaker(self, breaker: CircuitBreaker) -> None:
        guard = self._first_guard()
        if guard is None:
            raise ValueError("no layer of this Compactor calls a model before a call: nothing to guard")
        guard.breaker = breaker

    def _first_guard(self) -> Guard | None:
        guarded = [layer for layer in self.layers if layer.before_call and id(layer) in self.guards]
        return self.guards[id(guarded[0])] if guarded else None

    @property
    def breaker_open(self) -> bool:
        """True once a layer's ``max_failures`` runs failed in a row (a loop stop is ``stopped`` instead)."""
        return any(guard.breaker.is_open for guard in self.guards.values())

    @property
    def stopped(self) -> str | None:
        """Why the loop guard stopped automatic summarizing, or None."""
        return next((g.stopped for g in self.guards.values() if g.stopped is not None), None)

    @property
    def summarizing(self) -> bool:
        """True while automatic summaries may run: neither a breaker nor the loop guard stopped them."""
        return not self.breaker_open and self.stopped is None

    # ------------------------------------------------------------ counting and events

    def estimate(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of a request with this list: anchored on the last usage, else estimate + overhead.

        While a call is prepared, a list is estimated once: the layers ask about the same lists
        (each trigger, a run's before and after), and no list of the call changes while it runs.
        """
        memo = self._estimates
        hit = memo.get(id(messages)) if memo is not None else None
        if hit is not None and hit[0] is messages:
            return hit[1]
        tokens, anchored = self.counter.counted(messages)
        tokens = tokens if anchored else tokens + self._overhead
        if memo is not None:
            memo[id(messages)] = (messages, tokens)  # type: ignore[assignment]
        return tokens

    def observe(self, messages: Sequence[Mapping[str, Any]], usage: Any) -> None:
        """Anchor the estimate on the usage the API returned for ``messages``."""
        self.counter.observe(messages, usage)
        # what the API counted beyond our estimate of the messages: system prompt and tools
        self._overhead = max(0, usage_input_tokens(usage) - self.counter.estimate(messages))

    def counts(self) -> dict[str, int]:
        """How often each layer of the list fired (zeros included), and each failure or stop that happened."""
        names = [layer.name for layer in self.layers]
        if self._compacting() is not None:
            names.append("compact")
        counts = dict.fromkeys(names, 0)
        for event in self.events:
            counts[event.kind] = counts.get(event.kind, 0) + 1
        return counts

    def record(self, event: CompactionEvent) -> None:
        """Keep an event a layer's run reported, at the call being prepared."""
        self._record(replace(event, turn=self.turn))

    def _emit(
        self,
        kind: str,
        before: int,
        after: int,
        detail: str = "",
        saved_to: str = "",
        turn: int | None = None,
    ) -> None:
        turn = self.turn if turn is None else turn
        self._record(CompactionEvent(turn, kind, before, after, detail, saved_to))

    def _record(self, event: CompactionEvent) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    # ------------------------------------------------------------ the passes

    def prepare(self, messages: list[dict]) -> list[dict]:
        """Run the pipeline once, before a model call; a new list, the input untouched."""
        return self.passes(messages)[-1][1]

    def passes(self, messages: list[dict]) -> Passes:
        """Run the pipeline once and return ``(pass_name, messages_after)`` for each pass, input first."""
        if not isinstance(messages, list):
            raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
        self.turn += 1
        for layer in self.layers:
            layer.sees(messages, self)
        current = list(messages)
        out: Passes = [("input", current)]
        saved = False  # a transcript of this call's list is on disk
        self._estimates = {}
        try:
            for layer in self.layers:
                if layer.before_call:
                    current, saved = self._run(layer, current, saved)
                    out.append((layer.name, current))
        finally:
            self._estimates = None
        if self.on_passes is not None:
            self.on_passes("prepare", out)
        return out

    def _run(self, layer: Layer, messages: list[dict], saved: bool) -> tuple[list[dict], bool]:
        """One layer: its guard, its trigger, its run, whether its result is used, what it leaves on disk."""
        guard = self.guards.get(id(layer))
        if (guard is not None and guard.holds) or layer.idle(messages, self) is not None:
            return messages, saved
        before = self.estimate(messages)
        try:
            out = layer.apply(messages, self)
        except Exception as exc:  # noqa: BLE001 - a failed model call must not end the session
            if guard is None:
                raise
            self._failed(layer, guard, before, f"{type(exc).__name__}: {exc}")
            return messages, saved
        if out == messages:
            if guard is not None:
                self._failed(layer, guard, before, layer.unchanged)
            return messages, saved
        if layer.rejects(messages, out, self) is not None:
            return messages, saved
        after = self.estimate(out)
        detail, saved_to = f"over threshold {self.threshold:,}" if guard is not None else "", ""
        if layer.transcript_first:
            kept = self._keep_what_leaves(layer, messages, out, saved, before)
            if kept is None:
                return messages, saved  # the transcript could not be written: nothing may leave
            detail, saved_to, wrote = kept
            saved = saved or wrote
        self._emit(layer.name, before, after, detail, saved_to)
        if guard is not None and guard.succeeded(still_over=after > self.threshold):
            self._stop(guard, messages, out, after)
        return out, saved

    def _keep_what_leaves(
        self, layer: Layer, messages: list[dict], out: list[dict], saved: bool, before: int
    ) -> tuple[str, str, bool] | None:
        """(detail, where it is on disk, a transcript written now) for what a layer drops; None when
        it could not be written."""
        if self._only_recorded_leave(messages, out):
            where = self._recorded[0]
            return f"what left is in {Path(where).name}", where, False
        if saved or self.transcript_dir is None:
            return "", "", False
        try:
            path = Path(write_transcript(messages, self.transcript_dir, lines=self._lines))
        except OSError as exc:  # nothing may leave the context unsaved
            self._emit(f"{layer.name}_skipped", before, before, f"transcript not written ({exc})")
            return None
        return f"transcript {path.name}", str(path), True

    def _only_recorded_leave(self, messages: list[dict], out: list[dict]) -> bool:
        """True when every message the layer dropped or rewrote is one of the recorded session's."""
        if self._recorded is None:
            return False
        start = shared_prefix(messages, out)  # a layer that changed the end: only the end is looked at
        if all(map(operator.is_, messages[:start], out[:start])):
            if set(map(id, messages[start:])) - set(map(id, out[start:])) <= self._recorded_ids:
                return True  # what left is among these, and all of it is recorded
        return set(map(id, messages)) - set(map(id, out)) <= self._recorded_ids

    def _failed(self, layer: Layer, guard: Guard, before: int, why: str) -> None:
        guard.failed()
        failures, limit = guard.breaker.failures, guard.breaker.max_failures
        self._emit(f"{layer.name}_failed", before, before, f"{failures}/{limit}: {why}")
        if guard.breaker.is_open:
            detail = f"automatic summarizing stopped after {failures} consecutive failures"
            self._emit("breaker", before, before, detail)

    def _stop(self, guard: Guard, messages: list[dict], out: list[dict], after: int) -> None:
        """The loop guard: summarizing cannot get under the threshold, so stop and say what is left."""
        newest = sum(self.counter.message_tokens(m) for m in messages[-2:])
        summary = self.counter.estimate(out)
        guard.stopped = (
            f"automatic summarizing stopped: {guard.over} summaries in a row left {after:,} tokens, over "
            f"the threshold of {self.threshold:,}. What no summary can remove: the system prompt and "
            f"tools ({self._overhead:,} tokens), the newest turn ({newest:,}) and the summary itself "
            f"({summary:,}), in a window of {self.context_window:,}"
        )
        self._emit("loop_guard", after, after, guard.stopped)

    def why_idle(self, layer: Layer, messages: Sequence[dict]) -> str:
        """Why ``layer`` left ``messages`` as they were: its trigger, its guard, or what its run came to."""
        reason = layer.idle(messages, self)
        guard = self.guards.get(id(layer))
        if reason is None and guard is not None and guard.holds:
            return f"triggered, but {guard.holds}"
        return reason or layer.why_idle(messages, self)

    # ------------------------------------------------------------ hooks for the agent loop

    def _compacting(self) -> Layer | None:
        """The layer that answers the model's compact tool: the first that can, or None."""
        return next((layer for layer in self.layers if layer.answers_compact), None)

    def _on_refusal(self) -> Layer | None:
        """The layer that runs after the API refused a request as too long: the first, or None."""
        return next((layer for layer in self.layers if not layer.before_call), None)

    def compact(self, messages: list[dict], focus: str | None = None) -> list[dict]:
        """The manual compact (the model's ``compact`` tool): the list's answer now, breaker or not."""
        layer = self._compacting()
        if layer is None:
            raise ValueError("no layer of this Compactor answers the compact tool: add Summary()")
        before = self.estimate(messages)
        saved_to = ""
        if layer.transcript_first and self.transcript_dir is not None:  # what it drops is on disk first
            saved_to = str(write_transcript(messages, self.transcript_dir, lines=self._lines))
        out = layer.compact(messages, self, focus)
        detail = f"focus: {focus}" if focus else ""
        self._emit("compact", before, self.estimate(out), detail, saved_to, turn=self.turn + 1)  # next call
        if self.on_passes is not None:
            self.on_passes("compact", [("input", messages), ("compact", out)])
        return out

    def reactive(self, messages: list[dict], error: BaseException | None = None) -> list[dict]:
        """The emergency path after "prompt is too long": the list's refusal layer (``Reactive``)."""
        layer = self._on_refusal()
        if layer is None:
            raise ValueError("no layer of this Compactor runs after a refusal: add Reactive()")
        before = self.estimate(messages)
        out = layer.apply(messages, self)
        self._emit(layer.name, before, self.estimate(out), str(error or "")[:120])
        if self.on_passes is not None:
            self.on_passes(layer.name, [("input", messages), (layer.name, out)])
        return out

    def hooks(self) -> Hooks:
        """The hooks for ``run_agent``: prepare, on_response; on_prompt_too_long and on_compact when a
        layer of the list answers them."""

        def on_response(messages_sent: list[dict], response: Any) -> None:
            usage = getattr(response, "usage", None)
            if usage is not None:
                self.observe(messages_sent, usage)

        return Hooks(
            prepare=self.prepare,
            on_response=on_response,
            on_prompt_too_long=self.reactive if self._on_refusal() is not None else None,
            on_compact=self.compact if self._compacting() is not None else None,
        )
