"""Checks for chapter 13: answering a probe, writing probes, predicting losses, tuning the default.

``check_answered`` is differential: the learner's ``answered(evidence, messages)`` must agree with
the package's probe matching on every string-only probe of the 40-turn offline set, against the
whole session and against it masked and snipped, plus the cases the known-wrong answers fail
(case, spacing, read_file's line numbers, evidence inside a tool call, all versus any).
``check_probes`` checks probes a learner wrote for a session, ``check_predictions`` compares a
prediction with measured replays, and ``check_tuning`` replays the pipeline with one changed
setting of one layer and asks it to keep at least 95% of the probes (the default keeps 91%) while
costing at most 75% of ``none`` (the default: 71%): buying back what micro loses, within a price.
Deliberately left out: judging whether a probe is a *good* question; only that it is well formed,
answerable, and of the kind it says.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import fields
from functools import lru_cache
from typing import Any

from compaction.agent.loop import sample_session
from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.course.checks import CheckReport, run_cases
from compaction.evaluate.compare import PROBES, offline_session
from compaction.evaluate.probes import (
    KINDS,
    Probe,
    ProbeError,
    answers,
    context_text,
    has_evidence,
    load_probes,
    probe,
)
from compaction.layers.layer import Layer
from compaction.layers.micro import micro_compact
from compaction.layers.snip import snip_compact
from compaction.levels.checkpoint import files_modified
from compaction.pipeline.compactor import default_layers
from compaction.presentation.language import say

ANSWERS = ("measured_losses",)  # what an exercise computes: kept out of for_exercise("evaluate")

EXERCISE_TURNS = 30  # the session learners write probes for: sample_session(30)
PREDICT_TURNS = 40
TUNING_TARGET = 0.75  # exercise 3: at most this share of none's cost (the default: 71%)
TUNING_PROBES = 0.95  # exercise 3: at least this share of the probes (the default: 91%)
PREDICT_STRATEGIES = ("masking 3", "summary only", "pipeline", "recent turns")
PREDICT_PROBES = (
    "first-run-counts",
    "ties-assertion",
    "why-ngrams",
    "edit-counts-fix",
    "fix-library-not-tests",
    "single-file-tests",
)


# ---------------------------------------------------------------- the chapter: answered(evidence, messages)


def _agree(fn: Callable, evidence: list[str], messages: list[dict], label: str) -> None:
    want = answers(context_text(messages), Probe("p", "recall", "q", tuple(evidence)))
    got = fn(list(evidence), copy.deepcopy(messages))
    assert got == want, (
        say(
            "{label}: evidence {evidence} is in the context, you said {got}",
            label=label,
            evidence=repr(evidence),
            got=repr(got),
        )
        if want
        else say(
            "{label}: evidence {evidence} is not in the context, you said {got}",
            label=label,
            evidence=repr(evidence),
            got=repr(got),
        )
    )


def check_answered(answered: Callable) -> CheckReport:
    """Chapter 13: ``answered(evidence, messages)`` is True when every evidence string is in the context."""
    session = sample_session(PREDICT_TURNS)
    contexts = {
        "the whole session": session,
        "masked (keep 3 results)": micro_compact(session, keep_recent=3),
        "snipped to 20 messages": snip_compact(session, max_messages=20),
    }
    plain = [
        p
        for p in load_probes(PROBES / f"offline-{PREDICT_TURNS}.json")
        if all(isinstance(e, str) for e in p.evidence)
    ]

    def every_probe(messages: list[dict], label: str) -> None:
        for p in plain:
            _agree(answered, list(p.evidence), messages, f"{label}, probe {p.id}")

    read = [
        user("Fix it."),
        assistant(tool_use("toolu_1", "read_file", {"path": "a.py"})),
        user(tool_result("toolu_1", "     1\tdef parse(s):\n     2\t    return  s.split(',')")),
        assistant(
            text("Editing."),
            tool_use("toolu_2", "edit_file", {"path": "a.py", "old_text": "x", "new_text": "y + 1"}),
        ),
        user(tool_result("toolu_2", "[Old tool result cleared: edit_file a.py]")),
    ]
    cases: list[tuple[str, Callable[[], None]]] = [
        (f"{len(plain)} probes, {label}", lambda m=m, label=label: every_probe(m, label))
        for label, m in contexts.items()
    ]
    cases += [
        ("upper and lower case are the same", lambda: _agree(answered, ["FIX IT"], read, "case")),
        (
            "extra spaces and new lines do not matter",
            lambda: _agree(answered, ["return s.split"], read, "spacing"),
        ),
        (
            "read_file's line numbers are not part of the file",
            lambda: _agree(answered, ["def parse(s): return s.split"], read, "line numbers"),
        ),
        (
            "a tool call's input is in the context",
            lambda: _agree(answered, ["a.py", "y + 1"], read, "tool input"),
        ),
        (
            "every evidence string must be there",
            lambda: _agree(answered, ["a.py", "y + 2"], read, "all, not any"),
        ),
        (
            "a cleared result no longer answers",
            lambda: _agree(answered, ["replaced 1 occurrence"], read, "cleared"),
        ),
    ]
    return run_cases("answered", cases)


# ---------------------------------------------------------------- exercise 1: write probes for a session


def _learner_probes(fn: Callable) -> list[Probe]:
    items = fn()
    assert isinstance(items, list), say("return a list of probe dicts, not {kind}", kind=type(items).__name__)
    out = []
    for i, item in enumerate(items):
        try:
            out.append(probe(item, f"probes[{i}]"))
        except ProbeError as exc:
            raise AssertionError(str(exc)) from None
    ids = [p.id for p in out]
    assert len(ids) == len(set(ids)), say(
        "ids must be unique: {ids}", ids=sorted({i for i in ids if ids.count(i) > 1})
    )
    return out


def check_probes(write_probes: Callable) -> CheckReport:
    """Exercise 1: at least six probes of all five kinds for ``sample_session(30)``, each answerable."""
    session = sample_session(EXERCISE_TURNS)
    masked = micro_compact(session, keep_recent=3)

    def well_formed() -> None:
        assert len(_learner_probes(write_probes)) >= 6, say("write at least six probes")

    def every_kind() -> None:
        kinds = {p.kind for p in _learner_probes(write_probes)}
        assert kinds == set(KINDS), say(
            "missing kinds: {kinds}", kinds=", ".join(k for k in KINDS if k not in kinds)
        )

    def answerable() -> None:
        text = context_text(session)
        wrong = [p for p in _learner_probes(write_probes) if not answers(text, p)]
        missing = [f"{p.id}: {next(e for e in p.evidence if not has_evidence(e, text))!r:.60}" for p in wrong]
        assert not wrong, say(
            "the session does not answer {ids}; copy evidence from its text, without line numbers",
            ids="; ".join(missing),
        )

    def artifacts() -> None:
        text = " ".join(
            " ".join(map(str, p.evidence)) for p in _learner_probes(write_probes) if p.kind == "artifact"
        )
        missing = [f.split(" (")[0] for f in files_modified(session) if f.split(" (")[0] not in text]
        assert not missing, say(
            "no artifact probe names {paths}, which the session modified", paths=", ".join(missing)
        )

    def something_to_lose() -> None:
        whole, kept = context_text(session), context_text(masked)
        lost = [p for p in _learner_probes(write_probes) if answers(whole, p) and not answers(kept, p)]
        assert lost, say(
            "masking 3 keeps every probe the whole session answers: "
            "ask about something an old tool result showed"
        )

    return run_cases(
        "probes for sample_session(30)",
        [
            ("at least six well-formed probes", well_formed),
            ("all five kinds", every_kind),
            ("each answered by the whole session", answerable),
            ("an artifact probe for every file modified", artifacts),
            ("at least one that masking 3 loses", something_to_lose),
        ],
    )


# ---------------------------------------------------------------- exercise 2: which strategy loses a probe


@lru_cache(maxsize=1)
def measured_losses() -> dict[str, frozenset[str]]:  # kept out of the exercise: it is the answer
    """probe id -> the strategies whose final context no longer answers it (40-turn offline session)."""
    session = offline_session(PREDICT_TURNS)
    session.probes = [p for p in session.probes if p.id in PREDICT_PROBES]
    lost: dict[str, set[str]] = {p: set() for p in PREDICT_PROBES}
    for strategy in PREDICT_STRATEGIES:
        for probe_id in session.replay(strategy).score.missed:
            lost[probe_id].add(strategy)
    return {k: frozenset(v) for k, v in lost.items()}


def _names(value: Any, probe_id: str) -> set[str]:
    if isinstance(value, str):
        value = [value]
    assert isinstance(value, (list, tuple, set, frozenset)), say(
        "{probe_id}: give a list of strategy names, not {kind} {value}",
        probe_id=probe_id,
        kind=type(value).__name__,
        value=repr(value),
    )
    return {" ".join(str(v).split()).lower() for v in value}


def check_predictions(predict: Callable) -> CheckReport:
    """Exercise 2: for each probe, the strategies that lose it, as measured on the 40-turn session."""

    def one(probe_id: str) -> None:
        said = predict()
        assert isinstance(said, dict), say(
            "return a dict probe id -> strategies, not {kind}", kind=type(said).__name__
        )
        assert probe_id in said, say(
            "{probe_id}: not in your dict; give every probe a list, [] for one that no strategy loses",
            probe_id=probe_id,
        )
        got = _names(said[probe_id], probe_id)
        unknown = got - set(PREDICT_STRATEGIES)
        assert not unknown, say(
            "{probe_id}: unknown strategies {unknown}; use {names}",
            probe_id=probe_id,
            unknown=sorted(unknown),
            names=", ".join(PREDICT_STRATEGIES),
        )
        want = set(measured_losses()[probe_id])
        wrong = len(got ^ want)
        assert got == want, say(
            "{probe_id}: you said lost by {said}; wrong about {wrong} of the "
            "{n} strategies (the measured answer is not shown: look at what each "
            "strategy removes, or measure it with offline_session(40).replay(strategy).score.missed)",
            probe_id=probe_id,
            said=sorted(got) or "none",
            wrong=wrong,
            n=len(PREDICT_STRATEGIES),
        )

    return run_cases("predictions", [(f"probe {p}", lambda p=p: one(p)) for p in PREDICT_PROBES])


# ---------------------------------------------------------------- exercise 3: one setting along the frontier


@lru_cache(maxsize=1)
def _default_pipeline() -> tuple[float, float, float]:
    session = offline_session(PREDICT_TURNS)
    none, default = session.replay("none"), session.replay("pipeline")
    return none.cost.units, default.cost.units, default.score.share


def changed_settings(layers: list, default: list) -> list[str]:
    """``Layer.setting`` for every setting of ``layers`` that differs from ``default`` (same classes)."""
    return [
        f"{type(mine).__name__}.{f.name}"
        for mine, theirs in zip(layers, default, strict=True)
        for f in fields(mine)
        if getattr(mine, f.name) != getattr(theirs, f.name)
    ]


def check_tuning(tuned_layers: Callable) -> CheckReport:
    """Exercise 3: the default list with one setting changed: >= 95% of the probes, <= 75% of none."""
    default = default_layers()
    outcome: dict[str, Any] = {}

    def settings() -> dict:
        got = tuned_layers()
        assert isinstance(got, list) and all(isinstance(layer, Layer) for layer in got), say(
            "return a list of layers like default_layers(), not {got}", got=f"{got!r:.80}"
        )
        names = [type(layer).__name__ for layer in got]
        wanted = [type(layer).__name__ for layer in default]
        assert names == wanted, say(
            "keep the default's layers in their order, {wanted}; got {names}", wanted=wanted, names=names
        )
        changed = changed_settings(got, default)
        assert len(changed) == 1, say(
            "change exactly one setting, not {n}: {changed}", n=len(changed), changed=changed
        )
        return {"layers": got}

    def replayed() -> Any:
        if "replay" not in outcome:
            outcome["replay"] = offline_session(PREDICT_TURNS).replay("pipeline", settings())
        return outcome["replay"]

    def cheap_enough() -> None:
        none, default, _ = _default_pipeline()
        mine = replayed().cost.units
        assert mine <= TUNING_TARGET * none, say(
            "costs {mine} of none; the target is at most {target} (the default costs {default})",
            mine=f"{mine / none:.0%}",
            target=f"{TUNING_TARGET:.0%}",
            default=f"{default / none:.0%}",
        )

    def keeps_enough() -> None:
        _, _, share = _default_pipeline()
        mine = replayed().score.share
        assert mine >= TUNING_PROBES, say(
            "keeps {mine} of the probes; the goal is at least {goal} (the default keeps {share})",
            mine=f"{mine:.0%}",
            goal=f"{TUNING_PROBES:.0%}",
            share=f"{share:.0%}",
        )

    return run_cases(
        f"one setting, at least {TUNING_PROBES:.0%} of the probes, at most {TUNING_TARGET:.0%} of none",
        [
            ("one setting of one layer changed", settings),
            (f"keeps at least {TUNING_PROBES:.0%} of the probes", keeps_enough),
            (f"costs at most {TUNING_TARGET:.0%} of none", cheap_enough),
        ],
    )
