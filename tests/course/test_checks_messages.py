"""Chapter 01's checks: they pass right answers written in different ways, and reject stubs and
known-wrong answers, each for the reason its failing row names."""

from __future__ import annotations

import copy

import pytest

from compaction.core.messages import blocks, tool_result, tool_use_blocks, user, validate
from compaction.course.checks import messages as checks
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, as a learner writes them


def first_problem(messages):
    """The chapter's version."""
    asked = []
    for i, message in enumerate(messages):
        role = message["role"]
        if i == 0 and role != "user":
            return i, "first_not_user"
        if i > 0 and role == messages[i - 1]["role"]:
            return i, "roles_not_alternating"
        if role == "assistant":
            asked = [b["id"] for b in tool_use_blocks(message)]
            continue
        answered, other_before = set(), False
        for block in blocks(message):
            if block["type"] != "tool_result":
                other_before = True
            elif block["tool_use_id"] not in asked:
                return i, "orphan_tool_result"
            elif other_before:
                return i, "tool_result_not_first"
            else:
                answered.add(block["tool_use_id"])
        if set(asked) - answered:
            return i - 1, "tool_use_unanswered"
        asked = []
    if asked:
        return len(messages) - 1, "tool_use_unanswered"
    return None


def merge_by_groups(messages):
    """A different merge: group runs first, then build each message (returns lists for merged runs only)."""
    groups = []
    for message in messages:
        if groups and groups[-1][0]["role"] == message["role"]:
            groups[-1].append(message)
        else:
            groups.append([message])
    out = []
    for group in groups:
        if len(group) == 1:
            out.append(group[0])
            continue
        every = [b for m in group for b in blocks(m)]
        every.sort(key=lambda b: b["type"] != "tool_result")  # stable: results first, order kept
        out.append({"role": group[0]["role"], "content": every})
    return out


def answer_by_rebuilding(messages, note=checks.INTERRUPTED):
    """A different repair: rebuild the list front to back, carrying the unanswered ids forward."""
    out, pending = [], []
    for message in messages:
        if pending and message["role"] == "user":
            content = blocks(message)
            done = {b.get("tool_use_id") for b in content}
            lost = [tool_result(i, note, is_error=True) for i in pending if i not in done]
            n = next((k for k, b in enumerate(content) if b["type"] != "tool_result"), len(content))
            message = {**message, "content": content[:n] + lost + content[n:]} if lost else message
            pending = []
        elif pending:
            out.append(user(*(tool_result(i, note, is_error=True) for i in pending)))
            pending = []
        out.append(message)
        if message["role"] == "assistant":
            pending = [b["id"] for b in tool_use_blocks(message)]
    if pending:
        out.append(user(*(tool_result(i, note, is_error=True) for i in pending)))
    return out


# ---------------------------------------------------------------- known-wrong answers


def naive_problem(messages):
    """Looks for a result anywhere: misses text before results and misplaced results."""
    answered = {b["tool_use_id"] for m in messages for b in blocks(m) if b["type"] == "tool_result"}
    for i, message in enumerate(messages):
        for block in tool_use_blocks(message):
            if block["id"] not in answered:
                return i, "tool_use_unanswered"
    return None


def not_first_before_orphan(messages):
    """Tests its rules in the wrong order: text before an orphan is reported as 'not first'."""
    found = first_problem(messages)
    if found and found[1] == "orphan_tool_result":
        content = blocks(messages[found[0]])
        if content[0]["type"] != "tool_result":
            return found[0], "tool_result_not_first"
    return found


def blames_the_user_message(messages):
    found = first_problem(messages)
    return (
        (found[0] + 1, found[1])
        if found and found[1] == "tool_use_unanswered" and found[0] + 1 < len(messages)
        else found
    )


def ignores_roles(messages):
    found = first_problem(messages)
    return None if found and found[1] in ("first_not_user", "roles_not_alternating") else found


def merge_without_reordering(messages):
    out = []
    for m in messages:
        if out and out[-1]["role"] == m["role"]:
            out[-1] = {"role": m["role"], "content": blocks(out[-1]) + blocks(m)}
        else:
            out.append(m)
    return out


def merge_in_place(messages):
    """Right order, but extends the first message's own content list: the caller's list changes."""
    out = []
    for m in messages:
        if out and out[-1]["role"] == m["role"]:
            if not isinstance(out[-1]["content"], list):
                out[-1]["content"] = blocks(out[-1])
            out[-1]["content"].extend(blocks(m))
            out[-1]["content"].sort(key=lambda b: b["type"] != "tool_result")
        else:
            out.append(m)
    return out


def merge_normalising_everything(messages):
    """Turns every string content into blocks, although nothing needed merging."""
    return [{**m, "content": blocks(m)} for m in merge_by_groups(messages)]


def answer_found_by_value(messages, note=checks.INTERRUPTED):
    """Finds each assistant message with out.index (equality): an equal earlier message is taken instead."""
    out = list(messages)
    for message in messages:
        if message["role"] != "assistant":
            continue
        at = out.index(message)
        nxt = out[at + 1] if at + 1 < len(out) and out[at + 1]["role"] == "user" else None
        answered = {b.get("tool_use_id") for b in blocks(nxt)} if nxt else set()
        missing = [
            tool_result(b["id"], note, is_error=True)
            for b in tool_use_blocks(message)
            if b["id"] not in answered
        ]
        if missing and nxt:
            content = blocks(nxt)
            n = next((k for k, b in enumerate(content) if b["type"] != "tool_result"), len(content))
            out[at + 1] = {**nxt, "content": content[:n] + missing + content[n:]}
        elif missing:
            out.insert(at + 1, user(*missing))
    return out


def answer_with_a_new_message_always(messages, note=checks.INTERRUPTED):
    """Appends a user message after the call even when a user message follows: two users in a row."""
    out = []
    for i, m in enumerate(messages):
        out.append(m)
        nxt = messages[i + 1] if i + 1 < len(messages) else None
        done = {b.get("tool_use_id") for b in blocks(nxt)} if nxt else set()
        lost = [tool_result(b["id"], note, is_error=True) for b in tool_use_blocks(m) if b["id"] not in done]
        if lost:
            out.append(user(*lost))
    return out


def answer_without_is_error(messages, note=checks.INTERRUPTED):
    out = answer_by_rebuilding(messages, note)
    return [
        {**m, "content": [{k: v for k, v in b.items() if k != "is_error"} for b in m["content"]]}
        if m["role"] == "user" and isinstance(m["content"], list)
        else m
        for m in out
    ]


def answer_after_the_text(messages, note=checks.INTERRUPTED):
    """Puts the missing results at the end of the next user message, behind its text."""
    out = copy.deepcopy(messages)
    for i, m in enumerate(out[:-1]):
        nxt = out[i + 1]
        done = {b.get("tool_use_id") for b in blocks(nxt)}
        lost = [tool_result(b["id"], note, is_error=True) for b in tool_use_blocks(m) if b["id"] not in done]
        if lost and nxt["role"] == "user":
            out[i + 1] = {**nxt, "content": blocks(nxt) + lost}
    if out and tool_use_blocks(out[-1]):
        out.append(user(*(tool_result(b["id"], note, is_error=True) for b in tool_use_blocks(out[-1]))))
    return out


def answer_results_sorted_by_id(messages, note=checks.INTERRUPTED):
    """Right results, but each user message's results sorted by id, not in the order of the calls."""
    out = answer_by_rebuilding(messages, note)
    return [
        {**m, "content": sorted(m["content"], key=lambda b: str(b.get("tool_use_id", "")), reverse=True)}
        if m["role"] == "user" and isinstance(m["content"], list)
        else m
        for m in out
    ]


CASES = [
    (
        checks.check_first_problem,
        checks.first_problem_reference,
        [naive_problem, not_first_before_orphan, blames_the_user_message, ignores_roles],
    ),
    (
        checks.check_merge_same_role,
        checks.merge_same_role_reference,
        [merge_without_reordering, merge_in_place, merge_normalising_everything],
    ),
    (
        checks.check_answer_unanswered,
        checks.answer_unanswered_reference,
        [
            answer_found_by_value,
            answer_with_a_new_message_always,
            answer_without_is_error,
            answer_after_the_text,
            answer_results_sorted_by_id,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (checks.check_first_problem, first_problem),
        (checks.check_merge_same_role, merge_by_groups),
        (checks.check_answer_unanswered, answer_by_rebuilding),
    ],
    ids=["first_problem", "merge_by_groups", "answer_by_rebuilding"],
)
def test_a_right_answer_written_differently_passes(check, answer):
    report = check(answer)
    assert report.passed, str(report)


def test_a_failing_row_names_the_list_the_rule_and_the_place():
    report = checks.check_first_problem(not_first_before_orphan)
    (row,) = [r for r in report.failures if "orphan first" in r.name]
    assert (
        "expected (2, 'orphan_tool_result')" in row.detail
        and "got (2, 'tool_result_not_first')" in row.detail
    )
    report = checks.check_answer_unanswered(answer_without_is_error)
    row = report.failures[0]
    assert "`is_error` dropped" in row.detail and "message" in row.detail and "block" in row.detail


def test_each_named_case_holds_lists_of_its_own_kind_only():
    report = checks.check_merge_same_role(merge_without_reordering)
    rows = {r.name: r for r in report.results}
    assert rows["a reminder after results"].passed and rows["an assistant message split in two"].passed
    placeholder = rows["a placeholder before results"]
    assert not placeholder.passed and "placeholder inserted before message" in placeholder.detail
    assert "the sample session" in placeholder.detail


def test_a_result_behind_the_text_is_told_to_come_first():
    report = checks.check_answer_unanswered(answer_after_the_text)
    row = next(r for r in report.failures if r.name == "text where a result belongs")
    assert "the results must come before the text" in row.detail and "list 1 of" in row.detail


def test_the_handmade_session_is_valid_and_every_broken_list_breaks_one_rule():
    session = checks.handmade_session()
    validate(session)
    expected = {
        "text before results": "tool_result_not_first",
        "orphan result": "orphan_tool_result",
        "unanswered tool_use": "tool_use_unanswered",
        "unanswered at the end": "tool_use_unanswered",
        "first message from the assistant": "first_not_user",
        "two user messages in a row": "roles_not_alternating",
        "orphan behind text: orphan first": "orphan_tool_result",
    }
    for kind, lists in checks.form_breaks(session).items():
        assert lists, kind
        assert {checks.first_problem_reference(b)[1] for b in lists} == {expected[kind]}


def test_results_in_another_order_are_named_as_an_order_fault():
    rows = checks.check_answer_unanswered(answer_results_sorted_by_id).failures
    assert rows and all("the same results in another order" in r.detail for r in rows), rows
    assert not any("first difference at character" in r.detail for r in rows)


def test_a_message_found_by_value_fails_the_equal_messages_row_only():
    rows = checks.check_answer_unanswered(answer_found_by_value).failures
    assert [r.name for r in rows] == ["an equal message at two places"], rows
    assert "list 1 of the 2 this row tries" in rows[0].detail and "message 6" in rows[0].detail
    # the row says the cause (the equal earlier message took the answer), not only where the lists differ
    assert "message 6 lacks the results for the calls of message 5 (toolu_r1)" in rows[0].detail
    assert "message 5 is equal to the earlier message 1" in rows[0].detail, rows[0].detail


def test_the_equal_messages_row_names_no_twin_when_the_fault_is_elsewhere():
    def drops_the_last_message(messages, note=checks.INTERRUPTED):
        return checks.answer_unanswered_reference(messages, note)[:-1]

    rows = [
        r
        for r in checks.check_answer_unanswered(drops_the_last_message).failures
        if r.name == "an equal message at two places"
    ]
    assert rows and "is equal to the earlier message" not in rows[0].detail, rows


def test_a_changed_input_is_located():
    def in_place(messages):
        messages[0]["content"] = "changed"
        return checks.merge_same_role_reference(messages)

    row = checks.check_merge_same_role(in_place).failures[0]
    assert "the input list was changed (message 0: `content` changed)" in row.detail, row.detail
