"""Chapter 13's checks pass right answers (written differently from the solution) and reject wrong ones."""

from __future__ import annotations

import re
from dataclasses import replace

from check_cases import check_tests

from compaction.core.messages import blocks, text_of
from compaction.course.checks import evaluate as checks
from compaction.layers.micro import Micro
from compaction.pipeline.compactor import default_layers

# ---------------------------------------------------------------- right answers, as a learner writes them


def answered(evidence, messages):
    pieces = []
    for message in messages:
        for block in blocks(message):
            if block["type"] == "text":
                pieces.append(block["text"])
            elif block["type"] == "tool_use":
                pieces.extend(str(v) for v in block["input"].values())
            elif block["type"] == "tool_result":
                pieces.append(re.sub(r"(?m)^ *\d+\t", "", text_of(block["content"])))
    haystack = " ".join(" ".join(pieces).split()).casefold()
    return all(" ".join(e.split()).casefold() in haystack for e in evidence)


def write_probes():
    return [
        {
            "id": "rule",
            "kind": "instruction",
            "question": "Where may bugs be fixed?",
            "evidence": ["not in the tests"],
        },
        {"id": "first", "kind": "recall", "question": "First run?", "evidence": ["54 passed, 7 failed"]},
        {
            "id": "ties",
            "kind": "recall",
            "question": "What did top_words return?",
            "evidence": ["[('pear', 2), ('apple', 2), ('fig', 2)]"],
        },
        {
            "id": "why",
            "kind": "decision",
            "question": "Why was ngrams wrong?",
            "evidence": ["stops one position early"],
        },
        {
            "id": "next",
            "kind": "continuation",
            "question": "How to run one test file?",
            "evidence": [{"regex": r"run_tests\.py tests/"}],
        },
        {
            "id": "counts",
            "kind": "artifact",
            "question": "counts.py?",
            "evidence": ["textstats/counts.py", "(-pair[1], pair[0])"],
        },
        {
            "id": "ngrams",
            "kind": "artifact",
            "question": "ngrams.py?",
            "evidence": ["textstats/ngrams.py", "n + 1"],
        },
        {
            "id": "syll",
            "kind": "artifact",
            "question": "readability.py?",
            "evidence": ["textstats/readability.py", "max(count, 1)"],
        },
    ]


def predict():
    measured = checks.measured_losses()
    return {probe: sorted(s.upper() for s in lost) for probe, lost in measured.items()}  # names any case


def tuned_layers():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, keep_errors=6), summary, reactive]  # 97% of probes, 73% of none


def tuned_differently():
    layers = default_layers()
    # the same idea built anew, every other setting written out: more error lines in each placeholder
    layers[1] = Micro(
        keep_recent=1, min_chars=120, keep_used=1, keep_errors=10, trigger=0.3, payback_turns=30,
        keep_unread=True,
    )
    return layers


# ---------------------------------------------------------------- known-wrong answers


def case_sensitive(evidence, messages):
    return all(e in str(messages) for e in evidence)


def keeps_line_numbers(evidence, messages):
    text = " ".join(
        " ".join(str(b.get("text", b.get("input", b.get("content", "")))) for b in blocks(m))
        for m in messages
    )
    return all(" ".join(e.split()).lower() in " ".join(text.split()).lower() for e in evidence)


def any_evidence(evidence, messages):
    return any(answered([e], messages) for e in evidence)


def ignores_tool_calls(evidence, messages):
    kept = [
        {"role": m["role"], "content": [b for b in blocks(m) if b["type"] != "tool_use"]} for m in messages
    ]
    return answered(evidence, kept)


def too_few_kinds():
    return [p for p in write_probes() if p["kind"] != "decision"]


def invented_evidence():
    return [
        *write_probes(),
        {"id": "x", "kind": "recall", "question": "q", "evidence": ["a fact nobody saw"]},
    ]


def no_readability_artifact():
    return [p for p in write_probes() if p["id"] != "syll"]


def nothing_masking_loses():
    return [p for p in write_probes() if p["id"] not in ("first", "ties")]


def loses_only_an_unanswerable_probe():
    return [*nothing_masking_loses(), *invented_evidence()[-1:]]


def predicts_nothing_lost():
    return {probe: [] for probe in checks.PREDICT_PROBES}


def leaves_out_a_probe_no_strategy_loses():
    """The right answer, less a probe whose answer is []: a missing key is not a prediction."""
    said = predict()
    kept = next(probe for probe, lost in said.items() if not lost)
    return {probe: lost for probe, lost in said.items() if probe != kept}


def predicts_everything_lost():
    return {probe: list(checks.PREDICT_STRATEGIES) for probe in checks.PREDICT_PROBES}


def two_settings():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, keep_errors=6, keep_recent=2), summary, reactive]


def costs_more():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, exclude_tools=("read_file",)), summary, reactive]  # 97%, 106% of none


def just_over_the_price():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, min_chars=3_000), summary, reactive]  # 97% of probes, 81% of none


def bash_results_whole():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, exclude_tools=("bash",)), summary, reactive]  # 97% of probes, 78% of none


def the_chapters_answer():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, keep_used=2), summary, reactive]  # pipeline + used: 91% of probes


def cheaper_but_not_enough():
    budget, micro, summary, reactive = default_layers()
    return [budget, replace(micro, min_chars=1_000), summary, reactive]  # 70% of none, 91% of probes


def a_layer_left_out():
    _, micro, summary, reactive = default_layers()
    return [replace(micro, keep_errors=6), summary, reactive]


def settings_not_layers():
    return {"micro_keep_errors": 6}


CASES = [
    (checks.check_answered, answered, [case_sensitive, keeps_line_numbers, any_evidence, ignores_tool_calls]),
    (
        checks.check_probes,
        write_probes,
        [
            too_few_kinds,
            invented_evidence,
            no_readability_artifact,
            nothing_masking_loses,
            loses_only_an_unanswerable_probe,
        ],
    ),
    (
        checks.check_predictions,
        predict,
        [predicts_nothing_lost, predicts_everything_lost, leaves_out_a_probe_no_strategy_loses],
    ),
    (
        checks.check_tuning,
        tuned_layers,
        [
            two_settings,
            costs_more,
            just_over_the_price,
            bash_results_whole,
            the_chapters_answer,
            cheaper_but_not_enough,
            a_layer_left_out,
            settings_not_layers,
        ],
    ),
]

test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_a_tuning_written_differently_passes_too():
    assert checks.check_tuning(tuned_differently).passed


def test_enough_probes_at_too_high_a_price_fails_on_the_cost_row_alone():
    for wrong in (costs_more, just_over_the_price, bash_results_whole):
        failed = [r for r in checks.check_tuning(wrong).failures]
        assert failed and all("at most 75% of none" in r.name for r in failed), failed


def test_too_few_probes_fails_on_the_probe_row_alone():
    for wrong in (cheaper_but_not_enough, the_chapters_answer):
        failed = [r for r in checks.check_tuning(wrong).failures]
        assert [r.name for r in failed] == ["keeps at least 95% of the probes"], failed


def test_a_failing_row_counts_the_mistakes_without_giving_the_measured_answer():
    report = checks.check_predictions(predicts_nothing_lost)
    measured = checks.measured_losses()
    assert report.failures
    for row in report.failures:
        probe = row.name.removeprefix("probe ")
        assert f"wrong about {len(measured[probe])} of the 4 strategies" in row.detail
        assert "measured [" not in row.detail
        assert not any(f"'{s}'" in row.detail for s in measured[probe])


def test_a_probe_the_whole_session_cannot_answer_is_not_lost_to_masking():
    report = checks.check_probes(loses_only_an_unanswerable_probe)
    assert "at least one that masking 3 loses" in {r.name for r in report.failures}


def test_an_unanswered_probe_is_named_with_the_evidence_the_session_lacks():
    numbered = {"id": "readme", "kind": "recall", "question": "q", "evidence": ["1\t# textstats"]}
    report = checks.check_probes(lambda: [*write_probes(), numbered])
    detail = next(r.detail for r in report.failures if "does not answer" in r.detail)
    assert "readme: '1\\t# textstats'" in detail and "without line numbers" in detail


def test_a_malformed_probe_is_named_by_its_index():
    report = checks.check_probes(lambda: [*write_probes()[:5], {"id": "x", "kind": "guess"}])
    assert any("probes[5]" in r.detail for r in report.failures)


def test_a_prediction_of_the_wrong_type_names_the_probe_and_the_value():
    report = checks.check_predictions(lambda: {"why-ngrams": 3})
    assert any("why-ngrams: give a list of strategy names, not int 3" in r.detail for r in report.failures)


def test_a_probe_left_out_of_the_predictions_is_named_not_read_as_nothing_lost():
    assert any(not lost for lost in checks.measured_losses().values())  # a probe no strategy loses exists
    report = checks.check_predictions(leaves_out_a_probe_no_strategy_loses)
    rows = [r.detail for r in report.failures]
    assert len(rows) == 1 and "not in your dict; give every probe a list, [] for one" in rows[0], rows
