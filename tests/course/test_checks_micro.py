"""Chapter 05's checks: right answers written differently pass; stubs and known-wrong answers fail."""

from __future__ import annotations

import json

import pytest

from compaction.core.messages import result_chars, tool_inputs, tool_names, tool_result_blocks
from compaction.core.placeholders import CLEARED_HEAD, cleared_placeholder, is_cleared, is_persisted_marker
from compaction.course.checks import micro as checks
from compaction.layers.micro import micro_compact
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, written differently


def package_micro(messages, keep_recent=3, min_chars=120, note=None):
    return micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)


def note_for(name, tool_input):
    key = {"read_file": "path", "bash": "command", "glob": "pattern"}.get(name)
    what = tool_input[key] if key in tool_input else json.dumps(tool_input, sort_keys=True)
    return f"{CLEARED_HEAD}{name} {' '.join(str(what).split())[:200]}. Call it again if you need its output.]"


def micro_by_counting_back(messages, keep_recent=3, min_chars=120, note=note_for):
    """Walks backwards, counting results; rebuilds each message with changes as a whole."""
    names, inputs = tool_names(messages), tool_inputs(messages)
    seen, out = 0, []
    for message in reversed(messages):
        if message["role"] != "user" or not isinstance(message["content"], list):
            out.append(message)
            continue
        content = list(message["content"])
        for j in range(len(content) - 1, -1, -1):
            block = content[j]
            if block.get("type") != "tool_result":
                continue
            seen += 1
            c = block["content"]
            if (
                seen <= keep_recent
                or result_chars(block) < min_chars
                or is_cleared(c)
                or is_persisted_marker(c)
            ):
                continue
            text = note(names.get(block["tool_use_id"]), inputs.get(block["tool_use_id"], {}))
            if len(text) < result_chars(block):
                content[j] = {**block, "content": text}
        out.append(message if content == message["content"] else {**message, "content": content})
    return out[::-1]


def keeping_edited_by_sets(messages, keep_recent=3, min_chars=120, recent_turns=5):
    editing = checks.edited_paths(messages, recent_turns)
    inputs = tool_inputs(messages)
    names = tool_names(messages)
    protected = {u for u, i in inputs.items() if names.get(u) == "read_file" and i.get("path") in editing}
    out = micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)
    return [
        {
            **m,
            "content": [
                o if o.get("tool_use_id") not in protected else b
                for o, b in zip(n["content"], m["content"], strict=True)
            ],
        }
        if m["role"] == "user" and isinstance(m["content"], list) and n is not m
        else n
        for m, n in zip(messages, out, strict=True)
    ]


def breaks_by_counting(turns, keep_recent):
    """Request r breaks when a result request r - 1 sent whole (index < 2r - 2) is among those it clears."""
    if keep_recent == 0:
        return 0
    return sum(
        1
        for r in range(2, turns + 1)
        if 2 * r - keep_recent > 0 and max(0, 2 * r - 2 - keep_recent) < 2 * r - 2
    )


def breaks_formula(turns, keep_recent):
    """The same, as a closed formula: from request keep_recent // 2 + 1 on (and never the first)."""
    return 0 if keep_recent == 0 else max(0, turns - max(2, keep_recent // 2 + 1) + 1)


# ---------------------------------------------------------------- known-wrong answers


def seed_micro(messages, keep_recent=3, min_chars=120, note=None):
    found = [b for m in messages for b in tool_result_blocks(m)]
    for block in found[: max(0, len(found) - keep_recent)]:
        if len(str(block["content"])) > 120:
            block["content"] = "[Earlier tool result compacted. Re-run if needed.]"
    return messages


def micro_clearing_markers(messages, keep_recent=3, min_chars=120, note=note_for):
    out = micro_by_counting_back(messages, keep_recent, min_chars, note)
    names, inputs = tool_names(messages), tool_inputs(messages)
    fixed = []
    for m in out:
        if m["role"] == "user" and isinstance(m["content"], list):
            m = {
                **m,
                "content": [
                    {**b, "content": note(names.get(b["tool_use_id"]), inputs.get(b["tool_use_id"], {}))}
                    if b.get("type") == "tool_result" and is_persisted_marker(b["content"])
                    else b
                    for b in m["content"]
                ],
            }
        fixed.append(m)
    return fixed


def micro_min_chars_strict(messages, keep_recent=3, min_chars=120, note=note_for):
    """<= where the layer needs <: a result of exactly min_chars is left alone."""
    return micro_by_counting_back(messages, keep_recent, min_chars + 1, note)


def edited_min_chars_strict(messages, keep_recent=3, min_chars=120, recent_turns=5):
    """<= where the layer needs <: a result of exactly min_chars stays whole."""
    return checks.micro_keeping_edited_reference(messages, keep_recent, min_chars + 1, recent_turns)


def micro_dropping_is_error(messages, keep_recent=3, min_chars=120, note=note_for):
    out = micro_by_counting_back(messages, keep_recent, min_chars, note)
    return [
        {
            **m,
            "content": [
                {k: v for k, v in b.items() if k != "is_error"} if is_cleared(b.get("content")) else b
                for b in m["content"]
            ],
        }
        if m["role"] == "user" and isinstance(m["content"], list)
        else m
        for m in out
    ]


def micro_ignoring_edits(messages, keep_recent=3, min_chars=120, recent_turns=5):
    return micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)


def edited_over_the_whole_session(messages, keep_recent=3, min_chars=120, recent_turns=5):
    return checks.micro_keeping_edited_reference(messages, keep_recent, min_chars, recent_turns=10_000)


def edited_with_zero_as_every_turn(messages, keep_recent=3, min_chars=120, recent_turns=5):
    """The `[-0:]` slip: recent_turns=0 takes every assistant message instead of none."""
    return checks.micro_keeping_edited_reference(messages, keep_recent, min_chars, recent_turns or 10_000)


def breaks_ignoring_keep_zero(turns, keep_recent):
    return max(0, turns - max(2, keep_recent // 2 + 1) + 1)


def breaks_one_result_per_call(turns, keep_recent):
    """The chapter's one-result-a-turn count, not the two results of this session."""
    return max(0, turns - keep_recent) if keep_recent else 0


def breaks_keep_over_two_rounded_up(turns, keep_recent):
    return 0 if keep_recent == 0 else max(0, turns - max(2, -(-keep_recent // 2) + 1) + 1)


def breaks_one_too_many(turns, keep_recent):
    return max(0, turns - keep_recent + 1) if keep_recent else 0


CASES = [
    (
        checks.check_micro,
        package_micro,
        [seed_micro, micro_clearing_markers, micro_min_chars_strict, micro_dropping_is_error],
    ),
    (
        checks.check_micro_keeping_edited,
        checks.micro_keeping_edited_reference,
        [
            micro_ignoring_edits,
            edited_over_the_whole_session,
            edited_with_zero_as_every_turn,
            edited_min_chars_strict,
        ],
    ),
    (
        checks.check_predicted_breaks,
        breaks_formula,
        [
            breaks_ignoring_keep_zero,
            breaks_one_too_many,
            breaks_one_result_per_call,
            breaks_keep_over_two_rounded_up,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (checks.check_micro, micro_by_counting_back),
        (checks.check_micro_keeping_edited, keeping_edited_by_sets),
        (checks.check_predicted_breaks, breaks_by_counting),
    ],
    ids=["micro_by_counting_back", "keeping_edited_by_sets", "breaks_by_counting"],
)
def test_a_right_answer_written_differently_passes(check, answer):
    report = check(answer)
    assert report.passed, str(report)


def test_the_learners_note_is_checked_for_what_to_rerun():
    def vague(name, tool_input):
        return CLEARED_HEAD + "cleared. Re-run if needed.]"

    report = checks.check_micro(micro_by_counting_back, vague)
    assert any("so the model knows what to re-run" in r.detail for r in report.failures)


def test_a_dropped_is_error_is_named_with_its_place():
    row = checks.check_micro(micro_dropping_is_error).failures[0]
    assert "`is_error` dropped" in row.detail and "message" in row.detail


def test_the_package_note_passes_as_a_learner_note():
    assert checks.check_micro(micro_by_counting_back, cleared_placeholder).passed


def test_a_kept_or_cleared_result_is_explained_with_its_reason():
    zero = checks.check_micro_keeping_edited(edited_with_zero_as_every_turn)
    assert "should be cleared: it is old, and with recent_turns=0 no edit keeps a result" in str(zero)
    ignoring = checks.check_micro_keeping_edited(micro_ignoring_edits)
    assert "should stay whole: an edit_file of" in str(ignoring)


def test_a_strict_min_chars_is_named_as_the_boundary():
    rows = checks.check_micro_keeping_edited(edited_min_chars_strict).failures
    assert [r.name for r in rows] == [
        checks.check_micro_keeping_edited(keeping_edited_by_sets).results[0].name
    ]
    assert "exactly min_chars=" in rows[0].detail and "(<, not <=)" in rows[0].detail
