"""The strict Messages API form: what validate accepts, what it rejects, and where it points."""

from __future__ import annotations

import copy
import re

import pytest
from anthropic.types import Message, TextBlock, ToolUseBlock, Usage
from hypothesis import given
from hypothesis import strategies as st

from compaction.core import messages as m
from compaction.core.messages import (
    RULES,
    InvalidConversation,
    assistant,
    text,
    tool_result,
    tool_use,
    user,
    validate,
)

# ---------------------------------------------------------------- generated valid sessions

TOOLS = ("bash", "read_file", "write_file", "edit_file", "glob")


@st.composite
def sessions(draw, max_turns: int = 12) -> list[dict]:
    """A valid conversation: a task, then assistant turns with tool calls answered in order."""
    out = [user(draw(st.text(min_size=1, max_size=40).filter(str.strip)))]
    counter = 0
    for _ in range(draw(st.integers(0, max_turns))):
        n_tools = draw(st.integers(0, 3))
        content = [text("Let me look.")] if draw(st.booleans()) or n_tools == 0 else []
        ids = []
        for _ in range(n_tools):
            counter += 1
            ids.append(f"toolu_{counter:03d}")
            content.append(tool_use(ids[-1], draw(st.sampled_from(TOOLS)), {"path": f"f{counter}.py"}))
        out.append({"role": "assistant", "content": content})
        answers = [
            tool_result(i, draw(st.text(max_size=30)), is_error=draw(st.booleans()))
            for i in draw(st.permutations(ids))
        ]
        if draw(st.booleans()) or not answers:
            answers.append(text("go on"))
        out.append({"role": "user", "content": answers})
    return out


def long_session(turns: int) -> list[dict]:
    """A deterministic session of ``turns`` tool round trips (two calls each) after one task."""
    out = [user("Fix the failing tests in the project.")]
    for t in range(turns):
        a, b = f"toolu_{t:05d}a", f"toolu_{t:05d}b"
        out.append(
            assistant(
                "Reading two files.",
                tool_use(a, "read_file", {"path": "a.py"}),
                tool_use(b, "bash", {"command": "pytest -q"}),
            )
        )
        out.append(user(tool_result(b, "1 failed", is_error=True), tool_result(a, "def f():\n    pass")))
    out.append(assistant("All tests pass now."))
    return out


# ---------------------------------------------------------------- one minimal violation per rule

T1 = tool_use("toolu_1", "bash", {"command": "ls"})
R1 = tool_result("toolu_1", "a.py")

# rule -> (a minimal list that breaks it first, the index validate must name)
VIOLATIONS = {
    "not_a_list": ({"role": "user", "content": "hi"}, None),
    "empty_conversation": ([], None),
    "message_not_dict": (["hi"], 0),
    "unknown_role": ([{"role": "system", "content": "hi"}], 0),
    "content_type": ([user("hi"), {"role": "assistant", "content": 5}], 1),
    "empty_content": ([user("hi"), {"role": "assistant", "content": []}], 1),
    "block_not_dict": ([{"role": "user", "content": ["hi"]}], 0),
    "block_without_type": ([{"role": "user", "content": [{"text": "hi"}]}], 0),
    "empty_text": ([{"role": "user", "content": [{"type": "text", "text": "  "}]}], 0),
    "first_not_user": ([assistant("hello")], 0),
    "roles_not_alternating": ([user("a"), assistant("b"), assistant("c")], 2),
    "tool_use_in_user": ([user(T1)], 0),
    "tool_result_in_assistant": ([user("a"), assistant(R1)], 1),
    "malformed_tool_use": ([user("a"), assistant({"type": "tool_use", "id": "toolu_1", "name": "bash"})], 1),
    "duplicate_tool_use_id": ([user("a"), assistant(T1), user(R1), assistant(T1), user(R1)], 3),
    "malformed_tool_result": (
        [user("a"), assistant(T1), user({"type": "tool_result", "tool_use_id": 1, "content": "x"})],
        2,
    ),
    "tool_result_not_first": ([user("a"), assistant(T1), user("note first", R1)], 2),
    "orphan_tool_result": ([user("a"), assistant("hi"), user(tool_result("toolu_9", "x"))], 2),
    "duplicate_tool_result": ([user("a"), assistant(T1), user(R1, R1)], 2),
    "tool_use_unanswered": ([user("a"), assistant(T1), user("thanks")], 1),
}


SYSTEM = {"role": "system", "content": "Write Go from now on."}
# rules only ``validate(..., system_messages=True)`` checks -> (a minimal list, the index it names)
SYSTEM_VIOLATIONS = {
    "system_message_first": ([SYSTEM, user("hi")], 0),
    "system_message_misplaced": ([user("a"), assistant("b"), SYSTEM, user("c")], 2),
    "tool_block_in_system": ([user("a"), {"role": "system", "content": [R1]}], 1),
}


def test_every_rule_has_a_minimal_violation_in_this_table():
    assert set(VIOLATIONS) | set(SYSTEM_VIOLATIONS) == set(RULES)


@pytest.mark.parametrize("rule", list(SYSTEM_VIOLATIONS))
def test_a_misplaced_system_message_is_refused_naming_it_where_system_messages_are_allowed(rule):
    bad, index = SYSTEM_VIOLATIONS[rule]
    with pytest.raises(InvalidConversation) as info:
        validate(bad, system_messages=True)
    assert (info.value.index, info.value.rule) == (index, rule)
    with pytest.raises(InvalidConversation) as strict:  # the course's strict form: no system role at all
        validate(bad)
    assert strict.value.rule in ("unknown_role", "first_not_user", "roles_not_alternating")


@pytest.mark.parametrize(
    "place",
    [
        [user("a"), SYSTEM],  # the last entry
        [user("a"), SYSTEM, assistant("b")],  # between a user and an assistant turn
        [user("a"), assistant(T1), user(R1), SYSTEM, SYSTEM, assistant("done")],  # after results, twice
        [user("a"), assistant({"type": "web_search_tool_result", "tool_use_id": "s", "content": []}), SYSTEM],
    ],
)
def test_system_messages_where_the_api_places_them_pass_only_when_allowed(place):
    validate(place, system_messages=True)
    with pytest.raises(InvalidConversation, match="unknown_role"):
        validate(place)


@pytest.mark.parametrize(
    "bad, index",
    [
        ([user("a"), assistant(T1), SYSTEM, user(R1)], 2),  # between a tool_use and its result
        ([user("a"), SYSTEM, SYSTEM, user("b")], 1),  # a section judged as a whole: followed by a user turn
        ([user("a"), assistant("b"), SYSTEM], 2),  # after a plain assistant turn
    ],
)
def test_a_system_section_out_of_place_names_its_first_offending_message(bad, index):
    with pytest.raises(InvalidConversation) as info:
        validate(bad, system_messages=True)
    assert (info.value.rule, info.value.index) == ("system_message_misplaced", index)


def test_the_turns_around_system_messages_keep_the_strict_rules_with_their_own_indexes():
    with pytest.raises(InvalidConversation) as info:
        validate([user("a"), SYSTEM, assistant(T1), user("thanks")], system_messages=True)
    assert (info.value.rule, info.value.index) == ("tool_use_unanswered", 2)
    with pytest.raises(InvalidConversation) as info:
        validate([user("a"), {"role": "system", "content": ""}, assistant("b")], system_messages=True)
    assert (info.value.rule, info.value.index) == ("empty_content", 1)


@pytest.mark.parametrize("rule", list(VIOLATIONS))
def test_validate_rejects_each_rule_naming_the_message_and_the_rule(rule):
    bad, index = VIOLATIONS[rule]
    with pytest.raises(InvalidConversation) as info:
        validate(bad)
    assert (info.value.index, info.value.rule) == (index, rule)
    assert f"'{rule}'" in str(info.value)
    if index is not None:
        assert f"messages[{index}]" in str(info.value)


@pytest.mark.parametrize("rule", list(VIOLATIONS))
def test_is_valid_is_false_for_each_violation(rule):
    assert not m.is_valid(VIOLATIONS[rule][0])


def test_an_unanswered_tool_use_at_the_very_end_is_rejected_at_the_assistant_message():
    with pytest.raises(InvalidConversation) as info:
        validate([user("a"), assistant(T1)])
    assert (info.value.index, info.value.rule) == (1, "tool_use_unanswered")


def test_a_missing_content_key_is_a_content_type_error():
    with pytest.raises(InvalidConversation, match="content_type"):
        validate([{"role": "user"}])


def test_a_result_for_only_one_of_two_tool_uses_names_the_unanswered_id():
    t2 = tool_use("toolu_2", "bash", {"command": "pwd"})
    with pytest.raises(InvalidConversation) as info:
        validate([user("a"), assistant(T1, t2), user(R1)])
    assert info.value.rule == "tool_use_unanswered" and "toolu_2" in info.value.detail
    assert "toolu_1" not in info.value.detail


@pytest.mark.parametrize(
    "block",
    [
        {"type": "tool_result", "content": "x"},
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": 5},
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x", "is_error": "yes"},
    ],
)
def test_a_malformed_tool_result_is_named_as_such(block):
    with pytest.raises(InvalidConversation) as info:
        validate([user("a"), assistant(T1), user(block)])
    assert (info.value.index, info.value.rule, info.value.block) == (2, "malformed_tool_result", 0)


def test_the_violating_block_is_named_when_there_is_one():
    with pytest.raises(InvalidConversation) as info:
        validate([user("a"), assistant(T1), user(R1, tool_result("toolu_7", "x"))])
    assert (info.value.index, info.value.block) == (2, 1)
    assert "messages[2].content[1]" in str(info.value)


# ---------------------------------------------------------------- the API's wording

UNANSWERED = re.compile(
    r"^messages\.(\d+): `tool_use` ids were found without `tool_result` blocks immediately after: "
    r"(\S+)\. Each `tool_use` block must have a corresponding `tool_result` block in the next message\.$"
)
ORPHAN = re.compile(
    r"^messages\.(\d+)\.content\.(\d+): unexpected `tool_use_id` found in `tool_result` blocks: "
    r"(\S+)\. Each `tool_result` block must have a corresponding `tool_use` block in the previous message\.$"
)


def _api_message(bad: list) -> str:
    with pytest.raises(InvalidConversation) as info:
        validate(bad)
    return info.value.api_message


def test_an_unanswered_tool_use_reads_like_the_real_api():
    match = UNANSWERED.match(_api_message(VIOLATIONS["tool_use_unanswered"][0]))
    assert match and match.groups() == ("1", "toolu_1")


def test_an_orphan_result_reads_like_the_real_api_with_its_block():
    match = ORPHAN.match(_api_message(VIOLATIONS["orphan_tool_result"][0]))
    assert match and match.groups() == ("2", "0", "toolu_9")


def test_text_before_the_results_is_reported_as_the_api_does_against_the_tool_use():
    match = UNANSWERED.match(_api_message(VIOLATIONS["tool_result_not_first"][0]))
    assert match and match.groups() == ("1", "toolu_1")


def test_a_conversation_level_error_has_no_index_in_its_api_message():
    assert _api_message([]).startswith("messages: ")


# ---------------------------------------------------------------- long valid sessions


def test_a_long_generated_session_is_accepted():
    session = long_session(600)
    assert len(session) == 1202
    validate(session)


@given(sessions())
def test_every_generated_session_is_accepted(session):
    validate(session)


@given(sessions(), st.data())
def test_dropping_a_middle_message_breaks_alternation_at_that_index(session, data):
    if len(session) < 3:
        return
    i = data.draw(st.integers(1, len(session) - 2))
    with pytest.raises(InvalidConversation) as info:
        validate(session[:i] + session[i + 1 :])
    assert (info.value.index, info.value.rule) == (i, "roles_not_alternating")


@given(sessions(), st.data())
def test_text_put_in_front_of_tool_results_is_always_rejected(session, data):
    targets = [i for i, msg in enumerate(session) if m.is_tool_result_message(msg)]
    if not targets:
        return
    i = data.draw(st.sampled_from(targets))
    broken = copy.deepcopy(session)
    broken[i]["content"].insert(0, text("a reminder the harness added"))
    with pytest.raises(InvalidConversation) as info:
        validate(broken)
    assert (info.value.index, info.value.rule) == (i, "tool_result_not_first")
    assert info.value.api_message.startswith(f"messages.{i - 1}: ")


@given(sessions())
def test_validate_never_changes_its_input(session):
    before = copy.deepcopy(session)
    validate(session)
    assert session == before


# ---------------------------------------------------------------- builders and readers


def test_builders_make_plain_api_dicts():
    assert user("hi") == {"role": "user", "content": "hi"}
    assert assistant("a", T1)["content"] == [{"type": "text", "text": "a"}, T1]
    assert tool_result("toolu_1", "boom", is_error=True)["is_error"] is True
    assert "is_error" not in tool_result("toolu_1", "fine")


def test_readers_find_tool_uses_results_and_names():
    session = long_session(2)
    assert m.has_tool_use(session[1]) and not m.has_tool_use(session[2])
    assert m.is_tool_result_message(session[2]) and not m.is_tool_result_message(session[0])
    assert m.has_user_text(session[0]) and not m.has_user_text(session[2])
    assert m.tool_name_for(session, "toolu_00001b") == "bash"
    assert m.tool_name_for(session, "toolu_nope") is None
    assert m.tool_inputs(session)["toolu_00000a"] == {"path": "a.py"}
    assert [b["type"] for b in m.blocks(session[1])] == ["text", "tool_use", "tool_use"]
    assert m.text_of([text("a"), T1, text("b")]) == "a\nb"


def test_from_response_turns_an_sdk_message_into_a_plain_dict():
    response = Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="offline",
        content=[
            TextBlock(type="text", text="Listing."),
            ToolUseBlock(type="tool_use", id="toolu_1", name="bash", input={"command": "ls"}),
        ],
        stop_reason="tool_use",
        stop_sequence=None,
        usage=Usage(input_tokens=10, output_tokens=5),
    )
    assert m.from_response(response) == assistant("Listing.", T1)


def test_from_response_of_an_empty_answer_is_still_a_valid_message():
    message = m.from_response({"content": [{"type": "text", "text": ""}]})
    validate([user("a"), message])


# public helper, arguments -> it must raise TypeError naming the helper
WRONG_TYPES = [
    (m.text, (5,)),
    (m.tool_use, (1, "bash", {})),
    (m.tool_use, ("toolu_1", None, {})),
    (m.tool_use, ("toolu_1", "bash", ["ls"])),
    (m.tool_result, (None, "x")),
    (m.tool_result, ("toolu_1", 3)),
    (m.user, (5,)),
    (m.assistant, (None,)),
    (m.blocks, ("hello",)),
    (m.blocks, ({"role": "user", "content": 5},)),
    (m.tool_use_blocks, (None,)),
    (m.tool_result_blocks, ([],)),
    (m.has_tool_use, ("x",)),
    (m.is_tool_result_message, (3,)),
    (m.has_user_text, (None,)),
    (m.tool_names, (5,)),
    (m.tool_names, ({"role": "user"},)),
    (m.tool_inputs, ("abc",)),
    (m.tool_name_for, ([], 5)),
    (m.text_of, (5,)),
    (m.to_json, ("x",)),
    (m.from_response, (42,)),
]


@pytest.mark.parametrize(("helper", "args"), WRONG_TYPES, ids=[f"{h.__name__}{a!r}" for h, a in WRONG_TYPES])
def test_every_public_helper_rejects_a_wrong_type_with_a_clear_error(helper, args):
    with pytest.raises(TypeError) as info:
        helper(*args)
    assert helper.__name__ in str(info.value) or "must be" in str(info.value)


def test_from_response_names_a_malformed_block():
    with pytest.raises(ValueError, match=r"content\[0\]"):
        m.from_response({"content": [{"type": "tool_use", "input": {}}]})
