"""Checks for chapter 16 (on-demand compaction, the SDK's tool runner, cache diagnostics).

``check_should_compact`` is differential against ``compact_on_demand.should_compact``: the next
request counted from all three input fields of ``usage`` (a cache read is input too), the reply,
and the tool results about to be sent, compared strictly with the threshold; usage given as a
dict and as the SDK's own ``BetaUsage``. ``check_missed_by_layer`` is differential against the
reference below on handmade diagnosed sessions and any recorded ones: the
``cache_missed_input_tokens`` of each request charged to every layer that changed the list before
it. ``prediction_verdict`` compares the learner's written prediction with the measurement, and
treats an empty one as not yet made. Deliberately left out: grading the prediction (a wrong guess
is part of the exercise, not a failure).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from anthropic.types.beta import BetaUsage

from compaction.agent.compact_on_demand import Diagnosed, next_request_tokens, should_compact
from compaction.core.messages import tool_result, user
from compaction.course.checks import CheckReport, run_cases

ANSWERS = ("missed_by_layer",)  # what an exercise computes: kept out of for_exercise("on_demand")

NO_LAYER = "none"  # the key for a break no layer of the pipeline caused


def _usage(read: int = 0, written: int = 0, plain: int = 0, out: int = 0) -> dict:
    return {
        "input_tokens": plain,
        "cache_read_input_tokens": read,
        "cache_creation_input_tokens": written,
        "output_tokens": out,
    }


BIG_RESULT = user(tool_result("toolu_01", "word " * 4000))  # about 4,000 tokens
SMALL_RESULT = user(tool_result("toolu_02", "3 passed, 0 failed"))

TRIGGER_CASES = [  # (name, usage, pending results, threshold)
    ("well under the threshold", _usage(read=1000, written=200, plain=10, out=50), SMALL_RESULT, 5000),
    ("a cache read is input too", _usage(read=5200, written=300, out=40), None, 5000),
    ("a cache write is input too", _usage(written=5600, out=40), None, 5000),
    ("the tool results about to be sent count", _usage(read=2000, written=300, out=60), BIG_RESULT, 5000),
    ("the reply counts", _usage(read=4000, written=900, out=400), None, 5000),
    ("exactly at the threshold is not over", _usage(read=4000, written=900, out=100), None, 5000),
    ("one token over", _usage(read=4000, written=900, out=101), None, 5000),
    ("no tool results to send", _usage(plain=100, out=20), None, 5000),
    ("the SDK's own usage object", BetaUsage(**_usage(read=5000, written=400, out=30)), None, 5000),
]


def _same_decision(fn: Callable, usage: object, pending: dict | None, threshold: int) -> None:
    want = should_compact(usage, pending, threshold)
    got = fn(usage, pending, threshold)
    assert isinstance(got, bool), f"return True or False, not {got!r}"
    size = next_request_tokens(usage, pending)
    assert got == want, (
        f"the next request holds about {size:,} tokens (threshold {threshold:,}): "
        f"should_compact should be {want}, not {got}"
    )


def check_should_compact(fn: Callable) -> CheckReport:
    """The chapter's trigger: compact when the next request would be over the threshold."""
    cases = [(name, lambda c=c: _same_decision(fn, *c)) for name, *c in TRIGGER_CASES]
    return run_cases("should_compact", cases)


# ---------------------------------------------------------------- the exercise: missed tokens by layer


def missed_by_layer(calls: Sequence[Diagnosed]) -> dict[str, int]:
    """Cache tokens missed per layer: each request's missed tokens charged to every layer before it."""
    missed: dict[str, int] = {}
    for call in calls:
        tokens = (call.reason or {}).get("cache_missed_input_tokens")
        if not tokens:
            continue
        for layer in call.layers or (NO_LAYER,):
            missed[layer] = missed.get(layer, 0) + tokens
    return missed


def _changed(tokens: int) -> dict:
    return {"type": "messages_changed", "cache_missed_input_tokens": tokens}


def _call(reason: dict | None, *layers: str) -> Diagnosed:
    return Diagnosed([user("task")], reason, tuple(layers))


LAYER_CASES = [  # (name, diagnosed calls)
    ("no calls", []),
    ("nothing diverged", [_call(None), _call(None, "micro")]),
    ("one micro round", [_call(None), _call(_changed(2400), "micro")]),
    ("rounds add up", [_call(_changed(2400), "micro"), _call(None), _call(_changed(1800), "micro")]),
    ("two layers before one request are both charged", [_call(_changed(3000), "snip", "micro")]),
    ("a summary and a micro round", [_call(_changed(900), "micro"), _call(_changed(5200), "summary")]),
    ("a break no layer caused", [_call(_changed(700))]),
    ("reasons without missed tokens cost nothing", [_call({"type": "unavailable"}, "micro")]),
    (
        "a previous message not found costs nothing",
        [_call({"type": "previous_message_not_found"}), _call(_changed(1000), "budget")],
    ),
    (
        "a model change counts like any miss",
        [_call({"type": "model_changed", "cache_missed_input_tokens": 600})],
    ),
]


def _where(layer: str, calls: Sequence[Diagnosed]) -> str:
    """The requests a row is about: those the layer ran before, or those that missed with no layer."""
    if layer == NO_LAYER:
        missed = [
            i
            for i, c in enumerate(calls)
            if not c.layers and (c.reason or {}).get("cache_missed_input_tokens")
        ]
        plural = "s" if len(missed) != 1 else ""
        return f" (request{plural} {', '.join(map(str, missed))} missed with no layer before it)"
    ran = [i for i, c in enumerate(calls) if layer in c.layers]
    return f" (it ran before request{'s' if len(ran) != 1 else ''} {', '.join(map(str, ran))})" if ran else ""


def _same_missed(fn: Callable, calls: list[Diagnosed]) -> None:
    want = missed_by_layer(calls)
    got = fn(list(calls))
    assert isinstance(got, dict), f"return a dict of layer -> tokens, not {type(got).__name__}"
    got = {k: v for k, v in got.items() if v}  # a layer listed with 0 is the same as one left out
    for layer in sorted(set(want) | set(got)):
        assert got.get(layer, 0) == want.get(layer, 0), (
            f"layer {layer!r}: tokens missed should be {want.get(layer, 0):,}, not {got.get(layer, 0):,}"
            + _where(layer, calls)
        )


def check_missed_by_layer(fn: Callable, recorded: Sequence[Sequence[Diagnosed]] = ()) -> CheckReport:
    """The exercise: cache tokens missed per layer, from a session's diagnostics."""
    cases = [(name, lambda c=c: _same_missed(fn, c)) for name, c in LAYER_CASES]
    cases += [
        (f"a recorded session of {len(c)} requests", lambda c=c: _same_missed(fn, list(c))) for c in recorded
    ]
    return run_cases("missed_by_layer", cases)


LAYER_NAMES = ("budget", "snip", "micro", "summary")


def prediction_verdict(prediction: str, measured: dict[str, int]) -> str:
    """One line comparing a written prediction with the measured costliest layer; empty is not yet made."""
    guess = (prediction or "").strip().lower()
    if not guess:
        return "no prediction yet: write budget, snip, micro or summary in the prediction cell, then run on"
    if guess not in LAYER_NAMES:
        return f"prediction {prediction!r} is not a layer: write one of {', '.join(LAYER_NAMES)}"
    if not measured:
        return f"you predicted {guess}; no layer missed any cache in this session"
    costliest = max(measured, key=measured.get)
    figures = ", ".join(f"{k} {v:,}" for k, v in sorted(measured.items(), key=lambda kv: -kv[1]))
    verdict = "right" if guess == costliest else f"not this time: {costliest} cost the most"
    return f"you predicted {guess}: {verdict} (tokens missed: {figures})"
