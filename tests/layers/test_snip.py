"""L1 snip_compact: head and tail kept, the middle replaced by one placeholder, no pair split."""

from __future__ import annotations

import copy

import pytest
from conversations import Call, Turn, build_session

from compaction.core.messages import (
    InvalidConversation,
    assistant,
    blocks,
    has_tool_use,
    is_tool_result_message,
    tool_result,
    tool_use,
    user,
    validate,
)
from compaction.layers.snip import current_request, is_snip_placeholder, snip_compact, snip_cuts


def tool_turns(n, calls=2):
    """n turns, each with ``calls`` parallel tool uses and no user words."""
    return [Turn([Call("read_file", f"contents {i}-{c}") for c in range(calls)]) for i in range(n)]


def placeholders(messages):
    return [b["text"] for m in messages for b in blocks(m) if is_snip_placeholder(b)]


def test_a_short_conversation_comes_back_unchanged_as_a_new_list():
    session = build_session(tool_turns(5))
    out = snip_compact(session, max_messages=50)
    assert out == session and out is not session


def test_the_head_and_the_tail_are_kept_and_one_placeholder_says_how_many_went():
    session = build_session(tool_turns(40))  # 81 messages
    out = snip_compact(session, max_messages=20, keep_head=3)
    validate(out)
    assert len(out) <= 20
    assert out[:2] == session[:2] and out[-10:] == session[-10:]
    (note,) = placeholders(out)
    assert note.startswith(f"[snip] {len(session) - len(out)} earlier messages were removed")


def test_the_placeholder_comes_after_the_tool_results_of_the_head_s_last_message():
    session = build_session(tool_turns(40))
    out = snip_compact(session, max_messages=20, keep_head=3)
    last_head = out[2]["content"]
    assert [b["type"] for b in last_head] == ["tool_result", "tool_result", "text"]
    assert is_snip_placeholder(last_head[-1])


@pytest.mark.parametrize("keep_head", range(0, 9))
@pytest.mark.parametrize("max_messages", [10, 11, 12, 13])
def test_no_cut_parts_a_tool_use_from_its_result_whatever_the_sizes(keep_head, max_messages):
    session = build_session(tool_turns(30, calls=3))
    head, tail = snip_cuts(session, max_messages=max_messages, keep_head=keep_head)
    assert not has_tool_use(session[head - 1])
    assert tail == len(session) or not is_tool_result_message(session[tail])
    validate(snip_compact(session, max_messages=max_messages, keep_head=keep_head))


def test_results_followed_by_user_text_keep_their_order():
    turns = tool_turns(30)
    turns[1].note = "Also update the changelog."
    out = snip_compact(build_session(turns), max_messages=12, keep_head=4)
    validate(out)
    kinds = [b["type"] for b in out[4]["content"]]
    assert kinds == ["tool_result", "tool_result", "text", "text"]


def test_an_extra_user_message_merged_by_the_api_can_put_text_before_tool_results():
    """The failure this layer avoids: a placeholder as its own user message before tool results."""
    ask = assistant(tool_use("toolu_1", "bash", {"command": "ls"}))
    results = user(tool_result("toolu_1", "a.py"))
    merged = {"role": "user", "content": [*blocks(user("[snipped]")), *blocks(results)]}  # what the API does
    with pytest.raises(InvalidConversation, match="tool_result_not_first"):
        validate([user("task"), ask, merged])


def test_the_current_request_in_the_dropped_middle_is_quoted_in_the_placeholder():
    turns = tool_turns(40)
    turns[15].note = "Please also add a test for the empty input."
    session = build_session(turns)
    out = snip_compact(session, max_messages=12)
    (note,) = placeholders(out)
    assert note.endswith("Please also add a test for the empty input.")


def test_a_request_in_the_tail_is_not_quoted_again():
    turns = tool_turns(40)
    turns[-1].note = "Now rename the module."
    out = snip_compact(build_session(turns), max_messages=12)
    (note,) = placeholders(out)
    assert "Now rename" not in note and out[-1]["content"][-1]["text"] == "Now rename the module."


def test_repeated_snips_add_up_and_keep_one_placeholder_and_the_request():
    turns = tool_turns(30)
    turns[3].note = "Keep the public API stable."
    out = snip_compact(build_session(turns), max_messages=10)
    total = len(build_session(turns))
    for k in range(5):
        for j in range(6):
            use_id = f"more_{k}_{j}"
            out += [assistant(tool_use(use_id, "bash", {"command": "ls"})), user(tool_result(use_id, "ok"))]
            total += 2
        out = snip_compact(out, max_messages=10)
        validate(out)
        (note,) = placeholders(out)
        assert note.startswith(f"[snip] {total - len(out)} earlier")
        assert note.endswith("Keep the public API stable.")
    assert out[0] == {"role": "user", "content": "Fix the failing test."}


def test_the_first_task_is_kept_even_with_keep_head_zero():
    session = build_session(tool_turns(20), task="Port the parser to Rust.")
    out = snip_compact(session, max_messages=6, keep_head=0)
    validate(out)
    assert blocks(out[0])[0]["text"] == "Port the parser to Rust."


def test_current_request_ignores_the_placeholder_s_own_words():
    out = snip_compact(build_session(tool_turns(20)), max_messages=6)
    index, request = current_request(out)
    assert (index, request) == (0, "Fix the failing test.")


def test_the_input_is_never_mutated():
    session = build_session(tool_turns(30))
    before = copy.deepcopy(session)
    snip_compact(session, max_messages=8)
    assert session == before


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"max_messages": 5, "keep_head": 5}, "keep_head"),
        ({"max_messages": 5, "keep_head": 9}, "keep_head"),
        ({"max_messages": -1}, "max_messages"),
        ({"keep_head": -2}, "keep_head"),
        ({"max_messages": 10.0}, "max_messages"),
        ({"keep_head": True}, "keep_head"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        snip_compact(build_session(tool_turns(3)), **kwargs)


def test_a_list_of_non_messages_is_a_type_error():
    with pytest.raises(TypeError, match="messages"):
        snip_compact(["hello"], max_messages=5)
