"""The pipeline: budget -> snip -> micro -> summarize, run before every model call.

``Compactor.prepare(messages)`` runs the three cheap layers (no API call) in a fixed order, each
only when its trigger says so, then asks the model for a summary when the estimate is still over
the threshold. The triggers:

- budget: the tool results of the newest user message hold more than ``max_chars`` characters
  (the layer's own test; it persists the largest of them to the store).
- snip: off unless ``max_messages`` is set; then the list holding more than ``max_messages``
  messages is cut to ``snip_to`` (default three fifths of ``max_messages``), so it fires once every
  few turns instead of on every turn once the list is long. Off by default because the comparison
  of chapter 13 (``python -m compaction evaluate``) measured it: snip drops the middle of the
  session, where the first error, the fixes and their reasons are, before any summary sees them.
- micro: the estimate has passed ``micro_trigger`` (a fraction) of the summary threshold, and
  clearing frees at least ``clear_at_least`` tokens. Every clearing rewrites earlier messages and
  breaks the API's prompt cache from that message on, so old results are cleared in batches, not
  one per turn: the idea behind the API's own ``clear_at_least``.
- summary: the estimate is over ``context_window - reserve_output - buffer`` (Claude Code: 13,000
  tokens of buffer on a 200K window; scaled down for small windows).

Every summary (automatic, reactive, manual) keeps the user's instructions word for word
(``compaction.layers.instructions``). Two summaries in a row that leave the estimate over the threshold
stop automatic summarizing, and an event names what no summary can remove (system prompt and
tools, the newest turn, the summary itself) against the window: summarizing again would loop.

The order is fixed for a reason: budget runs first so a large result is on disk before micro
could replace it with a placeholder; ``order`` exists only so a lesson can show that loss.
The estimate anchors on the API's ``usage`` (a ``TokenCounter`` fed by ``observe``).
With a ``transcript_dir`` the list is written as a transcript before snip or micro drop anything,
so every byte that leaves the context is on disk; ``recorded`` names a file that already holds
some messages (a replayed session), and what leaves among those is not written again. After
``max_failures`` consecutive failed summaries the circuit breaker opens: automatic summarizing
stops and an event says so.

Deliberately left out: Claude Code's context collapse, session-memory compaction, time-based
micro-compaction and its cache-editing micro-compaction (an internal mechanism, not a feature of the
public API: the SDK's types have no ``cache_edits``); summarizing in the background.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from compaction.core.events import CompactionEvent
from compaction.core.guards import fraction
from compaction.core.messages import tool_use_blocks
from compaction.core.tokens import TokenCounter, usage_input_tokens
from compaction.core.transcript import Lines, write_transcript
from compaction.layers.budget import tool_result_budget
from compaction.layers.instructions import pin_instructions
from compaction.layers.micro import micro_compact
from compaction.layers.reactive import reactive_compact
from compaction.layers.snip import snip_compact
from compaction.layers.summarize import compact_history
from compaction.layers.triggers import CLAUDE_CODE_WINDOW, CircuitBreaker, summary_threshold

CHEAP_LAYERS = ("budget", "snip", "micro")
LOOP_LIMIT = 2  # summaries in a row that leave the estimate over the threshold before summarizing stops
LAYERS = ("budget", "snip", "micro", "summary", "reactive", "compact")


# layer name -> the package's function; a Compactor's ``layers`` argument can replace any of them
PACKAGE_LAYERS: dict[str, Callable[..., list[dict]]] = {
    "budget": tool_result_budget,
    "snip": snip_compact,
    "micro": micro_compact,
    "summary": compact_history,
    "reactive": reactive_compact,
}


def run_cheap_layers(
    messages: list[dict],
    *,
    store: Any,
    max_chars: int = 200_000,
    max_messages: int = 50,
    keep_head: int = 3,
    keep_recent: int = 3,
    min_chars: int = 120,
) -> list[dict]:
    """The three cheap layers in their fixed order, each on its own test: budget, snip, micro."""
    messages = tool_result_budget(messages, max_chars=max_chars, store=store)  # large output to disk first
    messages = snip_compact(messages, max_messages=max_messages, keep_head=keep_head)
    return micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)


class Compactor:
    """Keeps a message list inside the window: the cheap layers on their triggers, then a summary."""

    def __init__(
        self,
        *,
        store: Any,
        client: Any = None,
        transcript_dir: str | Path | None = None,
        context_window: int = CLAUDE_CODE_WINDOW,
        reserve_output: int | None = None,
        buffer: int | None = None,
        max_chars: int = 200_000,
        max_messages: int | None = None,
        snip_to: int | None = None,
        keep_head: int = 3,
        keep_recent: int = 3,
        min_chars: int = 120,
        exclude_tools: Sequence[str] = (),
        micro_trigger: float = 0.5,
        clear_at_least: int | None = None,
        summarize: bool = True,
        max_failures: int = 3,
        model: str | None = None,
        counter: TokenCounter | None = None,
        order: Sequence[str] = CHEAP_LAYERS,
        on_event: Callable[[CompactionEvent], None] | None = None,
        workspace: str | Path | None = None,
        summary_options: Mapping[str, Any] | None = None,
        layers: Mapping[str, Callable[..., list[dict]]] | None = None,
        recorded: tuple[str | Path, Sequence[dict]] | None = None,
    ):
        if sorted(order) != sorted(set(order)) or not set(order) <= set(CHEAP_LAYERS):
            raise ValueError(f"order must list distinct layers from {CHEAP_LAYERS}, not {tuple(order)!r}")
        fraction("micro_trigger", micro_trigger)
        unknown = sorted(set(layers or {}) - set(PACKAGE_LAYERS))
        if unknown:
            raise ValueError(f"layers can replace {tuple(PACKAGE_LAYERS)}, not {unknown}")
        # layer name -> the function that runs it: the package's, or the caller's own
        self.layers = {**PACKAGE_LAYERS, **dict(layers or {})}
        self.store, self.client, self.model = store, client, model
        # what compact_history and reactive_compact get besides the list: fit the window, restore files
        self.summary_options = {"context_window": context_window, **dict(summary_options or {})}
        if model:
            self.summary_options["model"] = model
        if workspace is not None:
            self.summary_options["workspace"] = Path(workspace)
        self.transcript_dir = Path(transcript_dir) if transcript_dir is not None else None
        self.context_window = context_window
        self.threshold = summary_threshold(context_window, reserve_output, buffer)
        if max_messages is not None:  # snip is on
            snip_to = max(keep_head + 2, max_messages * 3 // 5) if snip_to is None else snip_to
            if not keep_head < snip_to <= max_messages:
                raise ValueError(
                    f"snip_to ({snip_to}) must lie between keep_head ({keep_head}) and max_messages"
                )
        self.max_messages = max_messages
        self.layer_args = {
            "budget": {"max_chars": max_chars},
            "snip": {"max_messages": snip_to, "keep_head": keep_head},
            "micro": {
                "keep_recent": keep_recent,
                "min_chars": min_chars,
                "exclude_tools": tuple(exclude_tools),
            },
        }
        self.micro_trigger = micro_trigger
        self.clear_at_least = context_window // 40 if clear_at_least is None else clear_at_least
        self.summarize = summarize
        self.breaker = CircuitBreaker(max_failures)
        self.counter = counter or TokenCounter("tiktoken")
        self.order = tuple(order)
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

    @property
    def breaker_open(self) -> bool:
        """True once automatic summarizing has stopped: failures (the breaker) or a loop (the guard)."""
        return self.breaker.is_open or self.stopped is not None

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
        current = list(messages)
        passes = [("input", current)]
        saved = False  # a transcript of this call's list is on disk
        for layer in self.order:
            current, saved = self._cheap(layer, current, saved)
            passes.append((layer, current))
        if self.summarize:
            current = self._auto_summary(current)
            passes.append(("summary", current))
        return passes

    def _cheap(self, layer: str, messages: list[dict], saved: bool) -> tuple[list[dict], bool]:
        before = self.estimate(messages)
        if layer == "micro" and before <= self.micro_trigger * self.threshold:
            return messages, saved
        if layer == "snip" and (self.max_messages is None or len(messages) <= self.max_messages):
            return messages, saved
        out = self.layers[layer](messages, **self._args(layer))
        if out == messages:
            return messages, saved
        after = self.estimate(out)
        if layer == "micro" and before - after < self.clear_at_least:
            return messages, saved  # too little to free for a cache break
        if layer != "budget" and self._only_recorded_leave(messages, out):
            self._emit(
                layer,
                before,
                after,
                f"what left is in {Path(self._recorded[0]).name}",
                saved_to=self._recorded[0],
            )
        elif layer != "budget" and not saved and self.transcript_dir is not None:
            try:
                path = self._transcript(messages)
            except OSError as exc:  # nothing may leave the context unsaved
                self._emit(f"{layer}_skipped", before, before, f"transcript not written ({exc})")
                return messages, saved
            saved = True
            self._emit(layer, before, after, f"transcript {path.name}", saved_to=str(path))
        else:
            self._emit(layer, before, after)
        return out, saved

    def _only_recorded_leave(self, messages: list[dict], out: list[dict]) -> bool:
        """True when every message the layer dropped or rewrote is one of the recorded session's."""
        if self._recorded is None:
            return False
        return set(map(id, messages)) - set(map(id, out)) <= self._recorded_ids

    def _args(self, layer: str) -> dict[str, Any]:
        if layer != "budget":
            return self.layer_args[layer]
        return {"store": self.store, "on_event": self._budget_event, **self.layer_args[layer]}

    def _budget_event(self, event: CompactionEvent) -> None:
        """A result budget could not write: it stays in the list, and an event says why."""
        if event.layer == "budget_failed":
            self._record(replace(event, turn=self.turn))

    def _transcript(self, messages: list[dict]) -> Path:
        return Path(write_transcript(messages, self.transcript_dir, lines=self._lines))

    def _auto_summary(self, messages: list[dict]) -> list[dict]:
        before = self.estimate(messages)
        if before <= self.threshold or self.breaker_open:
            return messages
        if self.client is None or self.transcript_dir is None:
            return messages  # no model or nowhere to save the transcript: nothing to do
        try:
            out = self._summary(messages)
        except Exception as exc:  # noqa: BLE001 - a failed summary must not end the session
            return self._failed(messages, before, f"{type(exc).__name__}: {exc}")
        if out == messages:
            return self._failed(messages, before, "the summary left the list unchanged")
        self.breaker.record(success=True)
        after = self.estimate(out)
        self._emit("summary", before, after, f"over threshold {self.threshold:,}")
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

    def _summary(self, messages: list[dict], focus: str | None = None, manual: bool = False) -> list[dict]:
        self._require_model("a summary")
        out = self.layers["summary"](
            messages,
            client=self.client,
            transcript_dir=self.transcript_dir,
            focus=focus,
            manual=manual,
            **self.summary_options,
        )
        return pin_instructions(messages, out)

    def _require_model(self, what: str) -> None:
        if self.client is None or self.transcript_dir is None:
            missing = " and ".join(n for n in ("client", "transcript_dir") if getattr(self, n) is None)
            raise ValueError(f"{what} needs a Compactor with a {missing}")

    # ------------------------------------------------------------ hooks for the agent loop

    def compact(self, messages: list[dict], focus: str | None = None) -> list[dict]:
        """The manual compact (the model's ``compact`` tool): a summary now, breaker or not."""
        before = self.estimate(messages)
        out = self._summary(messages, focus, manual=True)
        if len(messages) >= 3 and any(b.get("name") == "compact" for b in tool_use_blocks(messages[-2])):
            out = [*out, *messages[-2:]]  # the compact call and its result: the model sees it was done
        detail = f"focus: {focus}" if focus else ""
        self._emit("compact", before, self.estimate(out), detail, turn=self.turn + 1)  # before the next call
        return out

    def reactive(self, messages: list[dict], error: BaseException | None = None) -> list[dict]:
        """The emergency path after "prompt is too long": a summary plus a pair-safe tail."""
        self._require_model("reactive compaction")
        before = self.estimate(messages)
        out = self.layers["reactive"](
            messages, client=self.client, transcript_dir=self.transcript_dir, **self.summary_options
        )
        out = pin_instructions(messages, out)
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
