"""Chapter 04's checks pass right answers and reject stubs and known-wrong answers."""

from __future__ import annotations

from compaction.course.checks import micro as checks
from compaction.messages import text_of, tool_inputs, tool_names
from compaction.micro import is_cleared, micro_compact, placeholder_for
from compaction.placeholders import is_persisted_marker

# ---------------------------------------------------------------- right answers, as a learner writes them


def learner_placeholder_for(name, tool_input):
    what = tool_input.get("path") or tool_input.get("command") or tool_input.get("pattern") or ""
    what = " ".join(str(what).split())[:150]
    return f"[Old tool result cleared: {name} {what}. Call it again if you need it.]"


def learner_micro(messages, *, keep_recent=3, min_chars=120):
    names, inputs = tool_names(messages), tool_inputs(messages)
    spots = [
        (i, j)
        for i, m in enumerate(messages)
        if m["role"] == "user" and isinstance(m["content"], list)
        for j, b in enumerate(m["content"])
        if b.get("type") == "tool_result"
    ]
    out = list(messages)
    for i, j in spots[: max(0, len(spots) - keep_recent)]:
        block = messages[i]["content"][j]
        size = len(text_of(block["content"]))
        note = placeholder_for(names.get(block["tool_use_id"]), inputs.get(block["tool_use_id"]))
        if size < min_chars or is_cleared(block["content"]) or is_persisted_marker(block["content"]):
            continue
        if len(note) >= size:
            continue
        if out[i] is messages[i]:
            out[i] = {**messages[i], "content": list(messages[i]["content"])}
        out[i]["content"][j] = {**block, "content": note}
    return out


def stub(*args, **kwargs):
    raise NotImplementedError


# ---------------------------------------------------------------- known-wrong answers


def generic_placeholder(name, tool_input):
    return "[Old tool result cleared: re-run if needed.]"


def multi_line_placeholder(name, tool_input):
    return f"[Old tool result cleared: {name}\n{tool_input}]"


def micro_that_clears_the_newest_too(messages, *, keep_recent=3, min_chars=120):
    return learner_micro(messages, keep_recent=max(0, keep_recent - 1), min_chars=min_chars)


def micro_that_mutates_its_input(messages, *, keep_recent=3, min_chars=120):
    out = micro_compact(messages, keep_recent=keep_recent, min_chars=min_chars)
    messages[:] = out
    return out


def test_the_reference_answers_pass():
    assert checks.check_placeholder_for(placeholder_for).passed
    assert checks.check_placeholder_for(learner_placeholder_for).passed
    report = checks.check_micro(learner_micro)
    assert report.passed, str(report)


def test_stubs_fail():
    assert not checks.check_placeholder_for(stub).passed
    assert not checks.check_micro(stub).passed


def test_placeholder_for_rejects_a_note_that_names_nothing_or_spans_lines():
    assert not checks.check_placeholder_for(generic_placeholder).passed
    assert not checks.check_placeholder_for(multi_line_placeholder).passed


def test_micro_rejects_a_micro_that_compacts_the_newest_result():
    report = checks.check_micro(micro_that_clears_the_newest_too)
    assert not report.passed


def test_micro_rejects_a_micro_that_changes_its_input():
    report = checks.check_micro(micro_that_mutates_its_input)
    assert any("input list was changed" in r.detail for r in report.failures)
