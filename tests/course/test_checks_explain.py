"""A check's failing row names the first fault: message index, block and tool id, and the field."""

from __future__ import annotations

import pytest

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.course.checks import assert_same_messages, explain_difference, run_cases, text_difference
from compaction.course.notebooks import failing_rows

WANT = [
    user("Run the tests."),
    assistant("Running them.", tool_use("toolu_08", "bash", {"command": "pytest"})),
    user(tool_result("toolu_08", "1 failed", is_error=True), text("[snip] 4 messages removed")),
    assistant("One fails."),
]


def changed(index: int, **fields) -> list[dict]:
    out = [dict(m) for m in WANT]
    block = dict(out[index]["content"][0])
    block.update(fields)
    for key, value in fields.items():
        if value is None:
            del block[key]
    out[index] = {**out[index], "content": [block, *out[index]["content"][1:]]}
    return out


def test_equal_lists_have_no_fault():
    assert explain_difference(list(WANT), WANT) is None


@pytest.mark.parametrize(
    ("got", "fault"),
    [
        (changed(2, is_error=None), "message 2, block 0 (tool_result toolu_08): `is_error` dropped"),
        (
            changed(2, content="[x]"),
            "message 2, block 0 (tool_result toolu_08): `content` differs; first difference at character 0",
        ),
        (changed(1, extra=1), None),  # block 0 of message 1 is text: the field added is named
        (WANT[:3], "3 messages returned, expected 4: message 3 is missing"),
        ([*WANT, user("more")], "5 messages returned, expected 4: message 4 should not be there"),
        ([*WANT[:2], {**WANT[2], "content": WANT[2]["content"][:1]}, WANT[3]], "a block missing at block 1"),
        ([WANT[0], {**WANT[1], "role": "user"}, *WANT[2:]], "message 1: role is 'user', expected"),
        ("not a list", "expected a list of messages, got str"),
    ],
)
def test_the_first_fault_is_named_with_its_place(got, fault):
    found = explain_difference(got, WANT)
    assert found is not None
    if fault is None:
        assert found.startswith("message 1, block 0 (text): `extra` added")
    else:
        assert fault in found


def test_a_case_that_fails_shows_the_fault_in_its_row():
    case = ("session 1", lambda: assert_same_messages(WANT[:3], WANT, "max_messages=20"))
    report = run_cases("snip", [case])
    (row,) = report.failures
    assert row.detail == "max_messages=20: 3 messages returned, expected 4: message 3 is missing"
    assert failing_rows(str(report)) == [f"FAIL  session 1  {row.detail}"]


def test_a_list_of_another_length_names_both_lengths_and_the_first_difference():
    got = [WANT[0], {**WANT[1], "content": "Running them."}]
    found = explain_difference(got, WANT)
    assert found.startswith("2 messages returned, expected 4; the first difference: message 1:")


def test_a_text_difference_is_shown_from_where_it_starts():
    long = "[12 messages snipped; the user asked for " + "x" * 80
    fault = text_difference(long + " tests]", long + " docs]")
    assert fault.startswith(f"first difference at character {len(long) + 1}:")
    assert "got ...'xxxxxxxxx tests]', expected ...'xxxxxxxxx docs]'" in fault
    assert text_difference("abc", "abcdef") == "first difference at character 3: got 'abc', expected 'abcdef'"
