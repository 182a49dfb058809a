"""The pipeline: a list of layers run in order before every model call, and the hooks for the loop.

``Compactor(layers=[...]).prepare(messages)`` runs each layer of the list whose trigger fires, in
the list's order: a layer (``compaction.layers.layer``) is a small value that owns its settings, its
trigger and the function it runs. The default list is ``default_layers()``:

    [Budget(), Micro(**MICRO_DEFAULTS), Summary(share_cache=True), Reactive()]

- ``Budget`` (L3): the tool results of the newest user message hold more than ``max_chars``.
- ``Snip`` (L1): not in the default list. Added, it cuts a list of more than ``max_messages`` to
  ``keep_to``. Left out because the comparison of chapter 13 (``python -m compaction evaluate``)
  measured it: snip drops the middle of the session, where the first error, the fixes and their
  reasons are, before any summary sees them.
- ``Micro`` (L2): the estimate has passed ``trigger`` (a fraction) of the summary threshold, and
  clearing frees at least ``clear_at_least`` tokens (one cache break for a batch). In the default
  list (``MICRO_DEFAULTS``) only the newest result stays whole (and every result of the last
  message, ``keep_unread``), micro may fire from 30% of the threshold, and under the threshold a
  clearing must pay for the cache it breaks within 30 turns (``payback_turns``).
- ``Summary`` (L4): the estimate is over the threshold, ``context_window - reserve - buffer``
  (Claude Code: 13,000 tokens of buffer on a 200K window; scaled down for small windows,
  ``compaction.layers.triggers``); ``threshold=`` sets it outright. In the default list it shares
  the agent's cached prefix (``share_cache``): give it the agent's system prompt and tools in
  ``options`` for the summary request to read that prefix.
- ``Reactive``: not a pass; ``reactive()`` runs it after the API refused a request as too long.

What the layers share is the Compactor's: the store, the client, the transcript folder, the window
and threshold, the counter, the events. Every summary (automatic, reactive, manual) keeps the user's
instructions word for word (``compaction.layers.instructions``). Two summaries in a row that leave the
estimate over the threshold stop automatic summarizing (the loop guard, ``stopped``), and an event
names what no summary can remove (system prompt and tools, the newest turn, the summary itself);
``max_failures`` failed summaries in a row open the circuit breaker (``breaker_open``). The two
states are apart: a loop stop is not a failure.

Budget first in the list, for a reason: a large result is on disk before micro could replace it
with a placeholder (chapter 06 shows the loss in the other order). The estimate anchors on the
API's ``usage`` (a ``TokenCounter`` fed by ``observe``). With a ``transcript_dir`` the list is
written as a transcript before a layer that drops messages (snip, micro) drops anything, so every
byte that leaves the context is on disk; ``recorded`` names a file that already holds some messages
(a replayed session), and what leaves among those is not written again.

Deliberately left out: summarizing in the background, and any mechanism of Claude Code that its docs
do not describe (editing the cache without rewriting the prefix is no feature of the public API:
the SDK's types have no ``cache_edits``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from compaction.core.events import CompactionEvent
from compaction.core.messages import tool_use_blocks
from compaction.core.store import OutputStore
from compaction.core.tokens import TokenCounter, usage_input_tokens
from compaction.core.transcript import Lines, write_transcript
from compaction.layers.budget import Budget
from compaction.layers.instructions import pin_instructions
from compaction.layers.layer import Layer
from compaction.layers.ledger import ResultMemory
from compaction.layers.micro import Micro
from compaction.layers.reactive import Reactive
from compaction.layers.snip import Snip  # noqa: F401 - one more layer a learner adds to the list
from compaction.layers.summarize import Summary, ledger_budget
from compaction.layers.triggers import CLAUDE_CODE_WINDOW, MAX_FAILURES, CircuitBreaker, summary_threshold

# Micro's settings in the default list, chosen from chapter 13's cost table (issue 20): only the newest
# result stays whole (and every result the model has not read yet), clearing starts at 30% of the
# threshold, and only when the reads it saves over 30 turns pay for the cache it breaks. Micro()
# alone keeps its own defaults (3, 0.5, off, off).
MICRO_DEFAULTS = {"keep_recent": 1, "trigger": 0.3, "payback_turns": 30, "keep_unread": True}
LOOP_LIMIT = 2  # summaries in a row that leave the estimate over the threshold before summarizing stops
LAYERS = ("budget", "snip", "micro", "summary", "reactive", "compact")  # every count, zeros included


def default_layers() -> list[Layer]:
    """The package's pipeline, in the order it runs: budget, micro, summary; reactive on a refusal."""
    return [Budget(), Micro(**MICRO_DEFAULTS), Summary(share_cache=True), Reactive()]


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
        summary = self.layer("summary")
        self.breaker = CircuitBreaker(getattr(summary, "max_failures", MAX_FAILURES))
        # each tool result as first seen, for the ledger a summary carries after micro cleared it
        self.results = ResultMemory()
        ledgers = [getattr(layer, "ledger_tokens", 0) for layer in self.layers if layer.calls_model]
        self._remember = any(ledger_budget(tokens, self) for tokens in ledgers)
        self.counter = counter or TokenCounter("tiktoken")
        self.on_event = on_event
        self.events: list[CompactionEvent] = []
        self.turn = -1  # index of the model call being prepared (like TurnRecord.index)
        self._overhead = 0  # system prompt + tools: usage minus our estimate of the messages
        self._over = 0  # summaries in a row that left the estimate over the threshold
        self.stopped: str | None = None  # why the loop guard stopped automatic summarizing
        self._lines = Lines()  # each message's transcript line, encoded once
        # (file, its messages): a replayed session is already on disk, so what leaves it needs no copy
        self._recorded = (str(recorded[0]), list(recorded[1])) if recorded is not None else None
        self._recorded_ids = {id(m) for m in self._recorded[1]} if self._recorded else set()

    def layer(self, name: str) -> Layer | None:
        """The first layer of the list with this name, or None."""
        return next((layer for layer in self.layers if layer.name == name), None)

    @property
    def breaker_open(self) -> bool:
        """True once ``max_failures`` summaries failed in a row (a loop stop is ``stopped`` instead)."""
        return self.breaker.is_open

    @property
    def summarizing(self) -> bool:
        """True while automatic summaries may run: neither the breaker nor the loop guard stopped them."""
        return not self.breaker_open and self.stopped is None

    # ------------------------------------------------------------ counting and events

    def estimate(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of a request with this list: anchored on the last usage, else estimate + overhead."""
        tokens, anchored = self.counter.counted(messages)
        return tokens if anchored else tokens + self._overhead

    def observe(self, messages: Sequence[Mapping[str, Any]], usage: Any) -> None:
        """Anchor the estimate on the usage the API returned for ``messages``."""
        self.counter.observe(messages, usage)
        # what the API counted beyond our estimate of the messages: system prompt and tools
        self._overhead = max(0, usage_input_tokens(usage) - self.counter.estimate(messages))

    def counts(self) -> dict[str, int]:
        """How often each layer fired, every layer named (zeros included)."""
        counts = dict.fromkeys(LAYERS, 0)
        for event in self.events:
            counts[event.layer] = counts.get(event.layer, 0) + 1
        return counts

    def _emit(
        self,
        layer: str,
        before: int,
        after: int,
        detail: str = "",
        turn: int | None = None,
        saved_to: str = "",
    ) -> None:
        turn = self.turn if turn is None else turn
        self._record(CompactionEvent(turn, layer, before, after, detail, saved_to))

    def _record(self, event: CompactionEvent) -> None:
        self.events.append(event)
        if self.on_event is not None:
            self.on_event(event)

    # ------------------------------------------------------------ the passes

    def prepare(self, messages: list[dict]) -> list[dict]:
        """Run the pipeline once, before a model call; a new list, the input untouched."""
        return self.steps(messages)[-1][1]

    def steps(self, messages: list[dict]) -> list[tuple[str, list[dict]]]:
        """Run the pipeline once and return ``(pass_name, messages_after)`` for each pass, input first."""
        if not isinstance(messages, list):
            raise TypeError(f"messages must be a list of dicts, not {type(messages).__name__}")
        self.turn += 1
        if self._remember:
            self.results.see(messages)  # the originals, for a ledger made after micro cleared them
        current = list(messages)
        passes = [("input", current)]
        saved = False  # a transcript of this call's list is on disk
        for layer in self.layers:
            if not layer.before_call:
                continue
            if layer.calls_model:
                current = self._auto_summary(layer, current)
            else:
                current, saved = self._pass(layer, current, saved)
            passes.append((layer.name, current))
        return passes

    def _pass(self, layer: Layer, messages: list[dict], saved: bool) -> tuple[list[dict], bool]:
        """One layer that calls no model: its trigger, its run, and a transcript before it drops."""
        if layer.idle(messages, self) is not None:
            return messages, saved
        before = self.estimate(messages)
        out = layer.apply(messages, self)
        if out == messages or layer.kept(messages, out, self) is not None:
            return messages, saved
        after = self.estimate(out)
        if layer.transcript_first and self._only_recorded_leave(messages, out):
            where = self._recorded[0]
            self._emit(layer.name, before, after, f"what left is in {Path(where).name}", saved_to=where)
        elif layer.transcript_first and not saved and self.transcript_dir is not None:
            try:
                path = self._transcript(messages)
            except OSError as exc:  # nothing may leave the context unsaved
                self._emit(f"{layer.name}_skipped", before, before, f"transcript not written ({exc})")
                return messages, saved
            saved = True
            self._emit(layer.name, before, after, f"transcript {path.name}", saved_to=str(path))
        else:
            self._emit(layer.name, before, after)
        return out, saved

    def _only_recorded_leave(self, messages: list[dict], out: list[dict]) -> bool:
        """True when every message the layer dropped or rewrote is one of the recorded session's."""
        if self._recorded is None:
            return False
        return set(map(id, messages)) - set(map(id, out)) <= self._recorded_ids

    def budget_event(self, event: CompactionEvent) -> None:
        """A result budget could not write: it stays in the list, and an event says why."""
        if event.layer == "budget_failed":
            self._record(replace(event, turn=self.turn))

    def _transcript(self, messages: list[dict]) -> Path:
        return Path(write_transcript(messages, self.transcript_dir, lines=self._lines))

    def _auto_summary(self, layer: Layer, messages: list[dict]) -> list[dict]:
        if layer.idle(messages, self) is not None:
            return messages  # within the threshold, stopped, or no model to ask
        before = self.estimate(messages)
        try:
            out = self._summary(layer, messages)
        except Exception as exc:  # noqa: BLE001 - a failed summary must not end the session
            return self._failed(messages, before, f"{type(exc).__name__}: {exc}")
        if out == messages:
            return self._failed(messages, before, layer.unchanged)
        self.breaker.record(success=True)
        after = self.estimate(out)
        self._emit(layer.name, before, after, f"over threshold {self.threshold:,}")
        self._over = self._over + 1 if after > self.threshold else 0
        if self._over >= LOOP_LIMIT:
            self._stop(messages, out, after)
        return out

    def _stop(self, messages: list[dict], out: list[dict], after: int) -> None:
        """The loop guard: summarizing cannot get under the threshold, so stop and say what is left."""
        newest = sum(self.counter.message_tokens(m) for m in messages[-2:])
        summary = self.counter.estimate(out)
        self.stopped = (
            f"automatic summarizing stopped: {self._over} summaries in a row left {after:,} tokens, over "
            f"the threshold of {self.threshold:,}. What no summary can remove: the system prompt and "
            f"tools ({self._overhead:,} tokens), the newest turn ({newest:,}) and the summary itself "
            f"({summary:,}), in a window of {self.context_window:,}"
        )
        self._emit("loop_guard", after, after, self.stopped)

    def _failed(self, messages: list[dict], before: int, why: str) -> list[dict]:
        self.breaker.record(success=False)
        failures, limit = self.breaker.failures, self.breaker.max_failures
        self._emit("summary_failed", before, before, f"{failures}/{limit}: {why}")
        if self.breaker.is_open:
            self._emit(
                "breaker",
                before,
                before,
                f"automatic summarizing stopped after {failures} consecutive failures",
            )
        return messages

    def _summary(
        self, layer: Layer, messages: list[dict], focus: str | None = None, manual: bool = False
    ) -> list[dict]:
        self._require_model("a summary")
        return pin_instructions(messages, layer.apply(messages, self, focus=focus, manual=manual))

    def _require_model(self, what: str) -> None:
        if self.client is None or self.transcript_dir is None:
            missing = " and ".join(n for n in ("client", "transcript_dir") if getattr(self, n) is None)
            raise ValueError(f"{what} needs a Compactor with a {missing}")

    # ------------------------------------------------------------ hooks for the agent loop

    def compact(self, messages: list[dict], focus: str | None = None) -> list[dict]:
        """The manual compact (the model's ``compact`` tool): a summary now, breaker or not.

        It uses the list's ``Summary`` layer, or the package's when the list has none.
        """
        before = self.estimate(messages)
        out = self._summary(self.layer("summary") or Summary(), messages, focus, manual=True)
        if len(messages) >= 3 and any(b.get("name") == "compact" for b in tool_use_blocks(messages[-2])):
            out = [*out, *messages[-2:]]  # the compact call and its result: the model sees it was done
        detail = f"focus: {focus}" if focus else ""
        self._emit("compact", before, self.estimate(out), detail, turn=self.turn + 1)  # before the next call
        return out

    def reactive(self, messages: list[dict], error: BaseException | None = None) -> list[dict]:
        """The emergency path after "prompt is too long": the list's ``Reactive`` layer (or the package's)."""
        self._require_model("reactive compaction")
        layer = self.layer("reactive") or Reactive()
        before = self.estimate(messages)
        out = pin_instructions(messages, layer.apply(messages, self))
        self._emit("reactive", before, self.estimate(out), str(error or "")[:120])
        return out

    def agent_hooks(self) -> dict[str, Callable[..., Any]]:
        """The hooks for ``run_agent``: prepare, on_response, on_prompt_too_long, on_compact."""

        def on_response(messages_sent: list[dict], response: Any) -> None:
            usage = getattr(response, "usage", None)
            if usage is not None:
                self.observe(messages_sent, usage)

        return {
            "prepare": self.prepare,
            "on_response": on_response,
            "on_prompt_too_long": self.reactive,
            "on_compact": self.compact,
        }
