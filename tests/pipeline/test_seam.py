"""The seam between the pipeline and its layers: a layer reads only ``Shared``; the pipeline names no layer.

A layer of one's own is a subclass and a list entry: it keeps what it must remember in the
pipeline's state for it, reports events through ``record``, and a layer that calls a model is
guarded by a breaker and the loop guard whatever its name. The Compactor answers the compact tool
and a refusal only through a layer that can, and says so when none can.
"""

from __future__ import annotations

import ast
import inspect
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import pytest
from conversations import Call, Turn, build_session

import compaction.pipeline.compactor as compactor_module
from compaction.core.events import CompactionEvent
from compaction.core.messages import user
from compaction.layers.layer import Layer, Shared
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor, default_layers

LAYERS = Path(compactor_module.__file__).resolve().parents[1] / "layers"


@dataclass(frozen=True, repr=False)
class CountCalls(Layer):
    """A learner's layer: counts the calls it saw in the pipeline's state, drops nothing."""

    name: ClassVar[str] = "count calls"
    note: str = "seen"

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        state = shared.state(self)
        state["calls"] = state.get("calls", 0) + 1
        shared.record(CompactionEvent(-1, f"{self.name}_{self.note}", 0, 0, f"call {state['calls']}"))
        return messages


@dataclass(frozen=True, repr=False)
class AlwaysFails(Layer):
    """A layer that calls a model and fails every time, under a name the pipeline has never heard."""

    name: ClassVar[str] = "flaky summary"
    calls_model: ClassVar[bool] = True
    max_failures: ClassVar[int] = 2

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        raise RuntimeError("the model is down")


def session(turns: int = 3) -> list[dict]:
    return build_session([Turn(calls=[Call("bash", f"out {i}")]) for i in range(turns)])


def test_a_layer_of_ones_own_is_a_class_and_a_list_entry_and_keeps_its_state_in_the_pipeline():
    layer = CountCalls()
    one, two = Compactor([layer]), Compactor([layer])
    for _ in range(3):
        one.prepare(session())
    two.prepare(session())
    assert one.state(layer) == {"calls": 3} and two.state(layer) == {"calls": 1}
    assert [(e.turn, e.kind, e.detail) for e in one.events] == [
        (0, "count calls_seen", "call 1"),
        (1, "count calls_seen", "call 2"),
        (2, "count calls_seen", "call 3"),
    ]
    assert one.counts()["count calls"] == 0  # it never changed the list


def test_a_model_layer_of_any_name_is_guarded_by_its_own_breaker():
    pipeline = Compactor([AlwaysFails()], client=object(), transcript_dir="unused")
    for _ in range(4):
        assert pipeline.prepare(session()) == session()
    kinds = [e.kind for e in pipeline.events]
    assert kinds == ["flaky summary_failed", "flaky summary_failed", "breaker"]  # then it no longer runs
    assert pipeline.breaker_open and "the circuit breaker is open" in pipeline.why_idle(
        pipeline.layers[0], session()
    )


def test_a_breaker_of_ones_own_plugs_into_the_first_model_layer():
    class Never:
        failures, max_failures, is_open = 0, None, False

        def record(self, success):
            pass

    pipeline = Compactor([AlwaysFails()], client=object(), transcript_dir="unused")
    pipeline.breaker = Never()
    for _ in range(4):
        pipeline.prepare(session())
    assert [e.kind for e in pipeline.events] == ["flaky summary_failed"] * 4  # it never opens
    with pytest.raises(ValueError, match="nothing to guard"):
        Compactor([CountCalls()]).breaker = Never()


def test_the_compact_tool_and_a_refusal_are_answered_only_by_a_layer_that_can():
    cheap = Compactor([CountCalls()])
    assert cheap.hooks().on_compact is None and cheap.hooks().on_prompt_too_long is None
    with pytest.raises(ValueError, match="answers the compact tool"):
        cheap.compact([user("hi")])
    with pytest.raises(ValueError, match="runs after a refusal"):
        cheap.reactive([user("hi")])
    full = Compactor().hooks()
    assert full.on_compact is not None and full.on_prompt_too_long is not None


def test_shared_lists_everything_a_layer_may_read_and_the_compactor_has_it_all():
    names = {n for n in typing.get_type_hints(Shared)} | {
        n for n, v in vars(Shared).items() if callable(v) and not n.startswith("_")
    }
    assert names == {
        "context_window", "threshold", "counter", "store", "client", "transcript_dir", "workspace",
        "results", "estimate", "state", "record",
    }  # fmt: skip
    compactor = Compactor()
    assert all(hasattr(compactor, n) for n in names)
    assert all(f"``{n}" in Shared.__doc__ for n in names)  # its docstring is the list


def test_the_layers_type_what_they_read_of_the_pipeline():
    for path in sorted(LAYERS.glob("*.py")):
        assert "pipeline: Any" not in path.read_text(encoding="utf-8"), path.name
    for layer in default_layers():
        for method in ("sees", "idle", "apply", "rejects", "why_idle"):
            hints = typing.get_type_hints(getattr(type(layer), method))
            assert hints["shared"] is Shared, f"{type(layer).__name__}.{method}"


def test_the_compactor_knows_no_layer_by_name():
    names = {cls.name for cls in (*map(type, default_layers()), Summary)} | {"snip", "recent turns"}
    source = inspect.getsource(compactor_module)
    code = ast.parse(source)
    literals = {node.value for node in ast.walk(code) if isinstance(node, ast.Constant)}
    assert not names & literals, names & literals
