"""Chapter 14's checks pass right answers, fail the stubs, and reject known-wrong answers."""

from __future__ import annotations

from check_cases import check_tests

from compaction.agent.server_side import cache_breaks_from_usage, client_keeps
from compaction.core.messages import blocks
from compaction.course.checks import api_context as checks

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


def budget_edits(window, max_breaks):
    room = window - 4_096  # every call asks max_tokens 4,096
    return [
        {
            "type": "clear_tool_uses_20250919",
            "clear_tool_inputs": True,  # the calls' inputs go too, so a cleared context stays small
            "keep": {"type": "tool_uses", "value": 0},
            "trigger": {"type": "input_tokens", "value": room},
            "clear_at_least": {"type": "input_tokens", "value": 500},
        }
    ]


def skipping_a_round_past_the_room(window, max_breaks):
    """The trigger leaves room, but a large clear_at_least skips a round: the context grows to 6,601."""
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
    limit, keep = edit["trigger"]["value"], edit["keep"]["value"]
    excluded = set(edit.get("exclude_tools", ()))
    names: dict[str, str] = {}
    cleared: set[str] = set()
    for message in messages:
        for block in blocks(message):
            if block["type"] == "tool_use":
                names[block["id"]] = block["name"]
        if message["role"] == "user" and sum(u not in cleared for u in names) > limit:
            ids = list(names)
            cleared.update(u for u in ids[: max(0, len(ids) - keep)] if names[u] not in excluded)
    return len(cleared)


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


def compacting_instead(window, max_breaks):
    return [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": window * 3 // 4}}]


def predicted_at_the_end_only(messages, edit):
    ids = [b["id"] for m in messages for b in blocks(m) if b["type"] == "tool_use"]
    excluded = set(edit.get("exclude_tools", ()))
    names = {b["id"]: b["name"] for m in messages for b in blocks(m) if b["type"] == "tool_use"}
    if len(ids) <= edit["trigger"]["value"]:
        return 0
    return sum(names[u] not in excluded for u in ids[: max(0, len(ids) - edit["keep"]["value"])])


def predicted_with_at_least(messages, edit):
    return predicted_by_counting(
        messages, {**edit, "trigger": {**edit["trigger"], "value": edit["trigger"]["value"] - 1}}
    )


def predicted_ignoring_exclusions(messages, edit):
    return predicted_by_counting(messages, {k: v for k, v in edit.items() if k != "exclude_tools"})


def predicted_without_counting_excluded(messages, edit):
    excluded = set(edit.get("exclude_tools", ()))
    kept = [
        {**m, "content": [b for b in blocks(m) if b.get("name") not in excluded]}
        if m["role"] == "assistant"
        else m
        for m in messages
    ]
    return predicted_by_counting(kept, edit)


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
        checks.check_edits_for_budget,
        budget_edits,
        [
            no_edits,
            documented_defaults,
            clearing_early_and_often,
            clearing_too_late,
            compacting_instead,
            leaving_no_room_for_the_answer,
            skipping_a_round_past_the_room,
        ],
    ),
    (
        checks.check_predict_cleared,
        checks.server_cleared,
        [
            predicted_at_the_end_only,
            predicted_with_at_least,
            predicted_ignoring_exclusions,
            predicted_without_counting_excluded,
        ],
    ),
    (
        checks.check_client_keeps,
        client_keeps,
        [keeps_with_tool_results, keeps_only_string_turns, keeps_every_edit],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_answers_written_differently_pass():
    assert checks.check_clear_edit(clear_edit_rounded_always_with_at_least).passed
    assert checks.check_cache_breaks(breaks_by_zip).passed
    assert checks.check_predict_cleared(predicted_by_counting).passed


def test_a_trigger_that_leaves_no_room_for_the_answer_is_refused_by_name():
    report = checks.check_edits_for_budget(leaving_no_room_for_the_answer)
    assert not report.passed
    assert "leaves no room for the answer" in str(report) and "at most 3,904" in str(report)


def test_a_request_past_the_room_is_refused_by_its_own_row():
    report = checks.check_edits_for_budget(skipping_a_round_past_the_room)
    failed = {r.name: r.detail for r in report.failures}
    room_rows = [name for name in failed if "room" in name]
    assert room_rows and all(name.startswith("budget of") for name in failed), failed
    assert all("at most 3,904" in failed[name] and "6,601 input tokens" in failed[name] for name in room_rows)
    assert "budget of 4 breaks" not in failed  # its breaks are within budget: only the room is wrong
