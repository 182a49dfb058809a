"""What every layer of the pipeline is: a small value with its settings, its trigger and its function.

A layer is a frozen dataclass. Its fields are its settings, and ``run``: the function it calls,
which a learner can replace with their own of the same signature (``Snip(max_messages=40,
keep_to=24, run=my_snip)``). The pipeline runs a list of layers in order and asks each one:

- ``idle(messages, pipeline)``: why it does nothing on this list now, or None when its trigger fires;
- ``apply(messages, pipeline)``: the new list, from ``run`` called with the layer's settings;
- ``kept(before, after, pipeline)``: after a run, why its result is not worth using, or None.

``why_idle`` puts the first and the last together for the widgets, which never re-derive a trigger.
``pipeline`` is what the layers share, the ``Compactor``: ``estimate(messages)``, ``threshold``,
``context_window``, ``store``, ``client``, ``transcript_dir``, ``workspace``, ``breaker_open`` and
``stopped``. A new layer (a state ledger, placeholders that keep lines) is one more subclass.
A setting declared with ``field(default=..., metadata=QUIET)`` is shown in the repr only when it is
set (a setting added later, so a layer's repr as the chapters print it stays the same).
Deliberately left out: any state; what a layer has done lives in the pipeline's events.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import Any, ClassVar

QUIET = {"quiet": True}  # field metadata: left out of the repr while at its default


@dataclass(frozen=True, repr=False)
class Layer:
    """One pass of the pipeline: settings as fields, the function it runs as ``run``."""

    name: ClassVar[str] = "layer"  # the pass's name in events, counts and the stepper
    before_call: ClassVar[bool] = True  # runs in prepare(); False: only when the API refuses a request
    transcript_first: ClassVar[bool] = True  # what it drops is written to a transcript before it goes
    calls_model: ClassVar[bool] = False  # a model call: guarded by the circuit breaker and the loop guard
    unchanged: ClassVar[str] = "the list came out unchanged"  # why a triggered run changed nothing

    def idle(self, messages: Sequence[dict], pipeline: Any) -> str | None:
        """Why the layer does nothing on ``messages`` now; None when its trigger fires."""
        return None

    def apply(self, messages: list[dict], pipeline: Any) -> list[dict]:
        """The new list: ``run`` called with this layer's settings."""
        raise NotImplementedError(f"{type(self).__name__} must define apply(messages, pipeline)")

    def kept(self, before: list[dict], after: list[dict], pipeline: Any) -> str | None:
        """Why the result of a run is not worth using (the list stays as it was); None to use it."""
        return None

    def why_idle(self, messages: Sequence[dict], pipeline: Any) -> str:
        """Why the layer left ``messages`` as they were: its trigger, or what its run came to."""
        return self.idle(messages, pipeline) or f"triggered, but {self.unchanged}"

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
