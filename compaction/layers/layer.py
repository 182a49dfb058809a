"""What every layer of the pipeline is, and the one view of the pipeline a layer may read.

A layer is a frozen dataclass. Its fields are its settings, and ``run``: the function it calls,
which a learner can replace with their own of the same signature (``Snip(max_messages=40,
keep_to=24, run=my_snip)``). The pipeline runs a list of layers in order and asks each one:

- ``sees(messages, shared)``: the list as it came, before any layer changed it (most ignore it);
- ``idle(messages, shared)``: why it does nothing on this list now, or None when its trigger fires;
- ``apply(messages, shared)``: the new list, from ``run`` called with the layer's settings;
- ``rejects(before, after, shared)``: after a run, why its result is not used, or None to use it.

``why_idle`` puts the second and the last together for the widgets, which never re-derive a trigger.
``shared`` is a ``Shared``: everything a layer may read from the pipeline, listed in that class's
docstring, and nothing else (the ``Compactor`` is one). A new layer is one more subclass and one
more entry in a pipeline's list. A layer that calls a model (``calls_model``) is guarded by the
pipeline: ``max_failures`` failed runs in a row stop it (the circuit breaker), and so do runs that
leave the estimate over the threshold twice in a row (the loop guard).
A setting declared with ``field(default=..., metadata=QUIET)`` is shown in the repr only when it is
set (a setting added later, so a layer's repr as the chapters print it stays the same).
Deliberately left out: state in the layer itself; what a layer must remember across calls lives in
the pipeline (``Shared.state``) and what it has done in the pipeline's events.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, ClassVar, Protocol

from compaction.core.events import CompactionEvent
from compaction.core.store import OutputStore
from compaction.core.tokens import TokenCounter
from compaction.layers.ledger import ResultMemory
from compaction.layers.triggers import MAX_FAILURES

QUIET = {"quiet": True}  # field metadata: left out of the repr while at its default


class Shared(Protocol):
    """What a layer may read from the pipeline that runs it (the ``Compactor`` is one):

    - ``context_window``, ``threshold``: the window, and the estimate above which a summary is due;
    - ``estimate(messages)``: tokens of a request with this list (anchored on the API's usage);
    - ``counter``: the token counter behind the estimate (``message_tokens``, ``anchored_prefix``);
    - ``store``: where large outputs go (``OutputStore``), or None;
    - ``client``: the Anthropic client a layer that calls a model uses, or None;
    - ``transcript_dir``: where transcripts go, or None; ``workspace``: the agent's folder, or None;
    - ``results``: every tool result as first seen (``ledger.ResultMemory``), for a ledger made after
      micro cleared them;
    - ``state(layer)``: a dict the pipeline keeps for that layer across calls (the layer keeps none);
    - ``record(event)``: an event a layer's run reports (a result the store could not write).
    """

    context_window: int
    threshold: int
    counter: TokenCounter
    store: OutputStore | None
    client: Any
    transcript_dir: Path | None
    workspace: Path | None
    results: ResultMemory

    def estimate(self, messages: Sequence[dict]) -> int:
        """Tokens of a request with this list."""
        ...

    def state(self, layer: Layer) -> dict:
        """The dict the pipeline keeps for ``layer`` across calls."""
        ...

    def record(self, event: CompactionEvent) -> None:
        """Keep an event a layer's run reported."""
        ...


@dataclass(frozen=True, repr=False)
class Layer:
    """One pass of the pipeline: settings as fields, the function it runs as ``run``."""

    name: ClassVar[str] = "layer"  # the pass's name in events, counts and the stepper
    before_call: ClassVar[bool] = True  # runs in prepare(); False: only when the API refuses a request
    transcript_first: ClassVar[bool] = True  # what it drops is written to a transcript before it goes
    calls_model: ClassVar[bool] = False  # a model call: guarded by the circuit breaker and the loop guard
    answers_compact: ClassVar[bool] = False  # it can answer the model's compact tool (``compact``)
    max_failures: ClassVar[int] = MAX_FAILURES  # failed runs in a row that open its breaker (calls_model)
    unchanged: ClassVar[str] = "the list came out unchanged"  # why a triggered run changed nothing

    def sees(self, messages: Sequence[dict], shared: Shared) -> None:
        """Look at the list as it came, before any layer of this call changed it (nothing by default)."""

    def idle(self, messages: Sequence[dict], shared: Shared) -> str | None:
        """Why the layer does nothing on ``messages`` now; None when its trigger fires."""
        return None

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        """The new list: ``run`` called with this layer's settings."""
        raise NotImplementedError(f"{type(self).__name__} must define apply(messages, shared)")

    def compact(self, messages: list[dict], shared: Shared, focus: str | None = None) -> list[dict]:
        """The model's compact tool, answered now (only a layer with ``answers_compact``)."""
        raise NotImplementedError(f"{type(self).__name__} does not answer the compact tool")

    def rejects(self, before: list[dict], after: list[dict], shared: Shared) -> str | None:
        """Why the result of a run is not used (the list stays as it was); None to use it."""
        return None

    def why_idle(self, messages: Sequence[dict], shared: Shared) -> str:
        """Why the layer left ``messages`` as they were: its trigger, or what its run came to."""
        return self.idle(messages, shared) or f"triggered, but {self.unchanged}"

    def __repr__(self) -> str:
        shown = [
            f"{f.name}={_shown(getattr(self, f.name))}"
            for f in fields(self)
            if not (f.metadata.get("quiet") and getattr(self, f.name) == f.default)
        ]
        return f"{type(self).__name__}({', '.join(shown)})"


def _shown(value: Any) -> str:
    """A setting as a reader wants it: a function by its name, anything else as its repr."""
    return getattr(value, "__name__", None) if callable(value) and hasattr(value, "__name__") else repr(value)


def takes(fn: Callable, name: str) -> bool:
    """True when ``fn`` accepts a keyword ``name`` (by name or through ``**kwargs``)."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # a builtin with no signature: assume it does
        return True
    return any(p.name == name or p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters)
