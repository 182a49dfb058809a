"""Chapter 14's checks pass right answers, fail the stubs, and reject known-wrong answers."""

from __future__ import annotations

import pytest
from check_cases import check_tests

from compaction.agent.server_side import cache_breaks_from_usage, client_keeps
from compaction.core.messages import blocks
from compaction.course.checks import api_context as checks
from compaction.presentation.language import use_language

# ---------------------------------------------------------------- right answers, written differently


def clear_edit(window, *, at, keep=3, at_least=0.0):
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": int(window * at)},
        "keep": {"type": "tool_uses", "value": keep},
    }
    if at_least:
        edit["clear_at_least"] = {"type": "input_tokens", "value": int(window * at_least)}
    return edit


def clear_edit_rounded_always_with_at_least(window, *, at, keep=3, at_least=0.0):
    tokens = lambda share: {"type": "input_tokens", "value": round(window * share)}  # noqa: E731
    return {
        "type": "clear_tool_uses_20250919",
        "keep": {"type": "tool_uses", "value": keep},
        "trigger": tokens(at),
        "clear_at_least": tokens(at_least),
    }


def breaks_by_zip(read, written):
    left = [r + w for r, w in zip(read, written, strict=True)]  # what each call left in the cache
    return [i + 1 for i, (before, now) in enumerate(zip(left, read[1:], strict=False)) if now < before]


def cost_edits(window, max_cost):
    room = window - 4_096  # every call asks max_tokens 4,096
    return [
        {
            "type": "clear_tool_uses_20250919",
            "clear_tool_inputs": True,  # the calls' inputs go too: every request sends less
            "keep": {"type": "tool_uses", "value": 1},  # the newest result stays for the model
            "trigger": {"type": "input_tokens", "value": room},
        }
    ]


def cost_edits_early_with_at_least(window, max_cost):
    """Written differently: an early trigger and a small clear_at_least; only the newest result kept."""
    return [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": window * 3 // 10},
            "keep": {"type": "tool_uses", "value": 1},
            "clear_at_least": {"type": "input_tokens", "value": window // 10},
            "clear_tool_inputs": True,
        }
    ]


def skipping_a_clearing_past_the_room(window, max_breaks):
    """The trigger leaves room, but a large clear_at_least skips clearings: the context grows past it."""
    return [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": window * 12 // 25},
            "keep": {"type": "tool_uses", "value": 3},
            "clear_at_least": {"type": "input_tokens", "value": window * 2 // 5},
        }
    ]


def leaving_no_room_for_the_answer(window, max_breaks):
    """Passed before the check knew the answer's room: 6,000 + 4,096 is over the 8,000-token window."""
    return [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": window * 3 // 4},
            "keep": {"type": "tool_uses", "value": 2},
            "clear_at_least": {"type": "input_tokens", "value": window // 2},
        }
    ]


def predicted_by_counting(messages, edit):
    """Written differently: count the uses, then subtract what keep and the exclusions hold back."""
    uses = [b for m in messages for b in blocks(m) if b["type"] == "tool_use"]
    if len(uses) <= edit["trigger"]["value"]:
        return 0
    older = uses[: max(0, len(uses) - edit["keep"]["value"])]
    cleared = [b for b in older if b["name"] not in edit.get("exclude_tools", ())]
    removed = sum(
        len(str(b["content"])) // 4
        for m in messages
        for b in blocks(m)
        if b["type"] == "tool_result" and b["tool_use_id"] in {u["id"] for u in cleared}
    )
    least = (edit.get("clear_at_least") or {}).get("value", 0)
    return len(cleared) if cleared and removed >= least else 0


# ---------------------------------------------------------------- known-wrong answers


def edit_with_fractional_tokens(window, *, at, keep=3, at_least=0.0):
    edit = clear_edit(window, at=at, keep=keep, at_least=at_least)
    edit["trigger"]["value"] = window * at
    return edit


def edit_with_a_bare_keep(window, *, at, keep=3, at_least=0.0):
    return {**clear_edit(window, at=at, keep=keep, at_least=at_least), "keep": keep}


def edit_ignoring_at_least(window, *, at, keep=3, at_least=0.0):
    return clear_edit(window, at=at, keep=keep)


def edit_ignoring_keep(window, *, at, keep=3, at_least=0.0):
    return clear_edit(window, at=at, at_least=at_least)


def edit_with_a_percent_trigger(window, *, at, keep=3, at_least=0.0):
    return {
        **clear_edit(window, at=at, keep=keep, at_least=at_least),
        "trigger": {"type": "input_tokens", "value": int(at * 100)},
    }


def breaks_counting_equal_reads(read, written):
    return [i for i in range(1, len(read)) if read[i] <= read[i - 1] + written[i - 1]]


def breaks_against_the_previous_read(read, written):
    return [i for i in range(1, len(read)) if read[i] < read[i - 1]]


def breaks_against_the_previous_write(read, written):
    return [i for i in range(1, len(read)) if read[i] < written[i - 1]]


def breaks_whenever_nothing_is_read(read, written):
    return [i for i in range(1, len(read)) if read[i] == 0 or read[i] < read[i - 1] + written[i - 1]]


def breaks_including_the_first_call(read, written):
    return [0] + cache_breaks_from_usage(read, written) if read else []


def no_edits(window, max_breaks):
    return []


def documented_defaults(window, max_breaks):
    return [{"type": "clear_tool_uses_20250919"}]


def clearing_early_and_often(window, max_breaks):
    return [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": window // 4},
        }
    ]


def clearing_too_late(window, max_breaks):
    return [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": int(window * 0.85)},
            "clear_at_least": {"type": "input_tokens", "value": int(window * 0.6)},
        }
    ]


def hiding_every_result(window, max_breaks):
    """keep 0: cheap (one cache break), but over the trigger the model never sees a result again."""
    return [{**cost_edits(window, max_breaks)[0], "keep": {"type": "tool_uses", "value": 0}}]


def keeping_three_with_their_inputs(window, max_breaks):
    """Room for the answer, but the default keep of 3: every request rewrites more than the budget allows."""
    return [
        {
            "type": "clear_tool_uses_20250919",
            "trigger": {"type": "input_tokens", "value": window - 4_096},
        }
    ]


def compacting_instead(window, max_breaks):
    return [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": window * 3 // 4}}]


CLEAR = "clear_tool_uses_20250919"


def cost_edits_by_tool_uses(window, max_cost):
    """A trigger counted in tool uses, and the inputs of each tool named one by one."""
    return [
        {
            "type": CLEAR,
            "trigger": {"type": "tool_uses", "value": 4},
            "keep": {"type": "tool_uses", "value": 1},
            "clear_tool_inputs": ["read_file", "bash", "grep", "edit_file", "write_file"],
        }
    ]


def cost_edits_keeping_two(window, max_cost):
    """Two results kept, their inputs cleared, from a quarter of the window."""
    return [
        {
            "type": CLEAR,
            "trigger": {"type": "input_tokens", "value": window // 4},
            "keep": {"type": "tool_uses", "value": 2},
            "clear_tool_inputs": True,
        }
    ]


def cost_edits_clearing_bash_inputs_only(window, max_cost):
    """One result kept; only bash's inputs (its commands) cleared."""
    return [
        {
            "type": CLEAR,
            "trigger": {"type": "input_tokens", "value": 3_500},
            "keep": {"type": "tool_uses", "value": 1},
            "clear_tool_inputs": ["bash"],
        }
    ]


def cost_edits_by_budget(window, max_cost):
    """The most results each budget affords: three under the larger one, one under the smaller."""
    keep = 3 if max_cost >= 126_000 else 1
    return [
        {
            "type": CLEAR,
            "trigger": {"type": "input_tokens", "value": window - 4_096},
            "keep": {"type": "tool_uses", "value": keep},
            "clear_tool_inputs": True,
        }
    ]


def leaving_keep_out(window, max_cost):
    """keep left out: the documented default of 3, too dear for the smaller budget."""
    return [{"type": CLEAR, "trigger": {"type": "input_tokens", "value": 3_000}, "clear_tool_inputs": True}]


def keeping_tool_inputs(window, max_cost):
    """One result kept, every tool input too: over the answer's room at the end."""
    return [
        {
            "type": CLEAR,
            "trigger": {"type": "input_tokens", "value": 3_000},
            "keep": {"type": "tool_uses", "value": 1},
        }
    ]


def leaving_the_trigger_out(window, max_cost):
    return [{"type": CLEAR, "keep": {"type": "tool_uses", "value": 1}, "clear_tool_inputs": True}]


def clearing_in_rounds(window, max_cost):
    """The offline server's invented option written into the edit."""
    return [{**cost_edits(window, max_cost)[0], "clear_in_rounds": True}]


def triggering_late_by_tool_uses(window, max_cost):
    """Ten tool uses before the first clearing: a request past the room before it."""
    return [{**cost_edits_by_tool_uses(window, max_cost)[0], "trigger": {"type": "tool_uses", "value": 10}}]


def a_fractional_trigger(window, max_cost):
    """window * 0.48: a float the API refuses at the first call, so the session never runs."""
    return [{**cost_edits(window, max_cost)[0], "trigger": {"type": "input_tokens", "value": window * 0.48}}]


def tool_inputs_set_to_false(window, max_cost):
    return [{**cost_edits(window, max_cost)[0], "clear_tool_inputs": False}]


def excluding_bash(window, max_cost):
    """The package's answer, but bash's uses never cleared: they pile up past the answer's room."""
    return [{**cost_edits(window, max_cost)[0], "exclude_tools": ["bash"]}]


def triggering_after_the_window(window, max_cost):
    """Twenty tool uses: the context outgrows the window before the trigger is reached."""
    return [{**cost_edits_by_tool_uses(window, max_cost)[0], "trigger": {"type": "tool_uses", "value": 20}}]


def predicted_in_rounds(messages, edit):
    """The rule of the offline server's invented option, clearing in rounds: not the documented one."""
    limit, keep = edit["trigger"]["value"], edit["keep"]["value"]
    excluded = set(edit.get("exclude_tools") or [])
    sent, cleared = [], set()
    for message in messages:
        if message["role"] == "assistant":
            sent += [(b["id"], b["name"]) for b in blocks(message) if b["type"] == "tool_use"]
        elif len([u for u, _ in sent if u not in cleared]) > limit:
            older = sent[: max(0, len(sent) - keep)]
            cleared |= {u for u, name in older if name not in excluded}
    return len(cleared)


def predicted_at_the_trigger_too(messages, edit):
    """Clears when the count reaches the trigger, not only when it exceeds it."""
    lowered = {**edit, "trigger": {**edit["trigger"], "value": edit["trigger"]["value"] - 1}}
    return predicted_by_counting(messages, lowered)


def predicted_ignoring_exclusions(messages, edit):
    return predicted_by_counting(messages, {k: v for k, v in edit.items() if k != "exclude_tools"})


def predicted_ignoring_at_least(messages, edit):
    return predicted_by_counting(messages, {k: v for k, v in edit.items() if k != "clear_at_least"})


def predicted_without_a_floor(messages, edit):
    """len(uses) - keep, negative when keep is larger than the number of uses."""
    uses = [b for m in messages for b in blocks(m) if b["type"] == "tool_use"]
    if len(uses) <= edit["trigger"]["value"]:
        return 0
    return predicted_by_counting(messages, edit) or len(uses) - edit["keep"]["value"]


def predicted_keeping_the_default(messages, edit):
    """Reads keep as the documented default of 3 whatever the edit says."""
    return predicted_by_counting(messages, {**edit, "keep": {"type": "tool_uses", "value": 3}})


def keeps_with_tool_results(messages):
    found = client_keeps(messages)
    extra = [str(b.get("content")) for m in messages for b in blocks(m) if b["type"] == "tool_result"]
    return {**found, "user_words": found["user_words"] + extra}


def keeps_only_string_turns(messages):
    found = client_keeps(messages)
    return {
        **found,
        "user_words": [
            m["content"] for m in messages if m["role"] == "user" and isinstance(m["content"], str)
        ],
    }


def keeps_every_edit(messages):
    files = [
        b["input"]["path"]
        for m in messages
        for b in blocks(m)
        if b["type"] == "tool_use" and b["name"] == "edit_file"
    ]
    return {**client_keeps(messages), "files_changed": files}


def keeps_files_by_last_change(messages):
    files = [
        b["input"]["path"]
        for m in messages
        for b in blocks(m)
        if b["type"] == "tool_use" and b["name"] in ("edit_file", "write_file")
    ]
    by_last = [f for i, f in enumerate(files) if f not in files[i + 1 :]]
    return {**client_keeps(messages), "files_changed": by_last}


def keeps_every_change(messages):
    """Every edit_file and write_file path, a file changed twice listed twice."""
    files = [
        b["input"]["path"]
        for m in messages
        for b in blocks(m)
        if b["type"] == "tool_use" and b["name"] in ("edit_file", "write_file")
    ]
    return {**client_keeps(messages), "files_changed": files}


def keeps_files_in_a_set(messages):
    found = client_keeps(messages)
    return {**found, "files_changed": sorted(set(found["files_changed"]))}


CASES = [
    (
        checks.check_clear_edit,
        clear_edit,
        [
            edit_with_fractional_tokens,
            edit_with_a_bare_keep,
            edit_ignoring_at_least,
            edit_ignoring_keep,
            edit_with_a_percent_trigger,
        ],
    ),
    (
        checks.check_cache_breaks,
        cache_breaks_from_usage,
        [
            breaks_counting_equal_reads,
            breaks_against_the_previous_read,
            breaks_against_the_previous_write,
            breaks_whenever_nothing_is_read,
            breaks_including_the_first_call,
        ],
    ),
    (
        checks.check_edits_for_cost,
        cost_edits,
        [
            no_edits,
            documented_defaults,
            clearing_early_and_often,
            clearing_too_late,
            compacting_instead,
            leaving_no_room_for_the_answer,
            skipping_a_clearing_past_the_room,
            hiding_every_result,
            keeping_three_with_their_inputs,
            leaving_keep_out,
            keeping_tool_inputs,
            leaving_the_trigger_out,
            clearing_in_rounds,
            triggering_late_by_tool_uses,
            a_fractional_trigger,
            tool_inputs_set_to_false,
            excluding_bash,
            triggering_after_the_window,
        ],
    ),
    (
        checks.check_predict_cleared,
        checks.server_cleared_reference,
        [
            predicted_in_rounds,
            predicted_at_the_trigger_too,
            predicted_ignoring_exclusions,
            predicted_ignoring_at_least,
            predicted_keeping_the_default,
            predicted_without_a_floor,
        ],
    ),
    (
        checks.check_client_keeps,
        client_keeps,
        [
            keeps_with_tool_results,
            keeps_only_string_turns,
            keeps_every_edit,
            keeps_files_by_last_change,
            keeps_files_in_a_set,
            keeps_every_change,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_answers_written_differently_pass():
    assert checks.check_clear_edit(clear_edit_rounded_always_with_at_least).passed
    assert checks.check_cache_breaks(breaks_by_zip).passed
    assert checks.check_edits_for_cost(cost_edits_early_with_at_least).passed
    assert checks.check_predict_cleared(predicted_by_counting).passed


def test_a_trigger_that_leaves_no_room_for_the_answer_is_refused_by_name():
    report = checks.check_edits_for_cost(leaving_no_room_for_the_answer)
    assert not report.passed
    assert "leaves no room for the answer" in str(report) and "at most 3,904" in str(report)


def test_keep_0_is_refused_because_the_model_would_see_no_result():
    report = checks.check_edits_for_cost(hiding_every_result)
    assert not report.passed and "never sees a tool result again" in str(report)


def test_a_request_past_the_room_is_refused_by_its_own_row():
    report = checks.check_edits_for_cost(skipping_a_clearing_past_the_room)
    failed = {r.name: r.detail for r in report.failures}
    room_rows = [name for name in failed if "room" in name]
    assert room_rows and all("at most 3,904" in failed[name] for name in room_rows), failed


def test_the_rounds_rule_the_offline_server_invented_fails_the_documented_prediction():
    report = checks.check_predict_cleared(predicted_in_rounds)
    failed = [r.name for r in report.failures]
    assert "every request over the trigger clears again" in failed and "keep 0" in failed, failed
    assert "at the trigger nothing is cleared" not in failed  # below any trigger both rules agree


@pytest.mark.parametrize(
    "answer",
    [
        cost_edits_by_tool_uses,
        cost_edits_keeping_two,
        cost_edits_clearing_bash_inputs_only,
        cost_edits_by_budget,
    ],
)
def test_edits_for_cost_has_several_right_answers(answer):
    """A tool-uses trigger, two results kept, only bash's inputs cleared, keep chosen by budget: all pass."""
    report = checks.check_edits_for_cost(answer)
    assert report.passed, str(report)


@pytest.mark.parametrize(
    ("answer", "row", "why"),
    [
        (leaving_keep_out, "cost at most 120,000", "keep left out: 3, the default"),
        (
            keeping_tool_inputs,
            "cost at most 130,000: largest request leaves the answer its room",
            "tool inputs kept",
        ),
        (leaving_the_trigger_out, "cost at most 130,000", "the edit has no trigger"),
        (clearing_in_rounds, "cost at most 130,000", "which the real API does not have"),
        (
            triggering_late_by_tool_uses,
            "cost at most 120,000: largest request leaves the answer its room",
            "a trigger counted in tool uses that comes late",
        ),
    ],
)
def test_a_typical_mistake_fails_with_a_row_naming_why(answer, row, why):
    failed = {r.name: r.detail for r in checks.check_edits_for_cost(answer).failures}
    assert row in failed and why in failed[row], failed


@pytest.mark.parametrize(
    ("prediction", "row", "rule"),
    [
        (predicted_at_the_trigger_too, "at the trigger nothing is cleared", "6 tool uses is not more than 6"),
        (
            predicted_in_rounds,
            "every request over the trigger clears again",
            "whatever an earlier request cleared: 10 - 2 = 8",
        ),
        (
            predicted_ignoring_exclusions,
            "excluded tools are never cleared",
            "exclude_tools are never cleared: 5 of those 10 are bash",
        ),
        (
            predicted_ignoring_at_least,
            "clear_at_least more than a clearing removes",
            "fewer than clear_at_least 20,000, so the context is not modified",
        ),
        (predicted_keeping_the_default, "keep above the trigger", "all but the newest 5 tool uses"),
    ],
)
def test_a_wrong_prediction_names_the_documented_rule_it_broke(prediction, row, rule):
    failed = {r.name: r.detail for r in checks.check_predict_cleared(prediction).failures}
    assert row in failed and rule in failed[row], failed
    assert "The rule broken (the course's reading" in failed[row], failed


def test_a_session_that_never_ran_fails_every_row_in_a_sentence():
    """A float trigger is refused at call 0: no row passes, and the row names the field, not a raw 400."""
    report = checks.check_edits_for_cost(a_fractional_trigger)
    assert report.failures and len(report.failures) == len(report.results), str(report)
    for row in report.failures:
        assert "edits[0].trigger.value is 3840.0" in row.detail and "an integer" in row.detail, row.detail
        assert "Error code" not in row.detail and "request_id" not in row.detail, row.detail


def test_a_trigger_the_window_outgrows_is_said_in_a_sentence():
    report = checks.check_edits_for_cost(triggering_after_the_window)
    assert len(report.failures) == len(report.results), str(report)
    for row in report.failures:
        assert "refused at call 19" in row.detail and "before the trigger (20 tool uses)" in row.detail
        assert "Error code" not in row.detail, row.detail


def test_clear_tool_inputs_false_is_said_to_be_set():
    failed = {r.name: r.detail for r in checks.check_edits_for_cost(tool_inputs_set_to_false).failures}
    row = "cost at most 120,000"
    assert row in failed and "clear_tool_inputs set to False" in failed[row], failed
    assert "not set" not in failed[row]


def test_exclude_tools_is_named_when_its_uses_outgrow_the_room():
    failed = {r.name: r.detail for r in checks.check_edits_for_cost(excluding_bash).failures}
    row = "cost at most 130,000: largest request leaves the answer its room"
    assert row in failed, failed
    assert failed[row].split("(", 1)[1].startswith("exclude_tools keeps every use of bash"), failed


@pytest.mark.parametrize(
    ("prediction", "row", "lead"),
    [
        (
            predicted_ignoring_at_least,
            "clear_at_least more than a clearing removes",
            "clearing those 7 removes",
        ),
        (predicted_ignoring_exclusions, "excluded tools are never cleared", "the uses of exclude_tools"),
        (predicted_in_rounds, "every request over the trigger clears again", "past the trigger (10 > 4)"),
        (predicted_without_a_floor, "keep above the number of tool uses", "keep 5 retains the newest 5"),
    ],
)
def test_a_wrong_prediction_leads_with_the_clause_it_broke(prediction, row, lead):
    failed = {r.name: r.detail for r in checks.check_predict_cleared(prediction).failures}
    rule = failed[row].split("documented behaviour): ", 1)[1]
    assert rule.startswith(lead), failed[row]


def test_a_file_listed_twice_names_the_once_in_first_order_rule():
    failed = {r.name: r.detail for r in checks.check_client_keeps(keeps_every_change).failures}
    row = "a file changed, another, then the first again"
    assert "'calc.py' is listed 3 times (4 items, 2 expected)" in failed[row], failed
    assert "each file once, in the order of its first change" in failed[row], failed
    assert "same items" not in failed[row]


def test_client_keeps_rows_read_japanese_in_the_japanese_edition():
    with use_language("ja"):
        failed = [r.detail for r in checks.check_client_keeps(keeps_only_string_turns).failures]
        failed += [r.detail for r in checks.check_client_keeps(keeps_every_change).failures]
    assert failed and not any("missing, first" in d or "is listed" in d for d in failed), failed
    assert any("個足りない" in d for d in failed) and any("最初に変更した順に" in d for d in failed), failed
