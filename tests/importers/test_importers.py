"""Importers, Claude Code: the chain the user kept, every repair reported with file and line."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from compaction.core.messages import tool_result_blocks, tool_use_blocks, validate
from compaction.importers import MISSING_RESULT, NotASession, load, normalize


def record(kind, content, uuid=None, parent=None, **extra):
    body = {"type": kind, "message": {"role": kind, "content": content}, **extra}
    if uuid:
        body.update(uuid=uuid, parentUuid=parent)
    return json.dumps(body)


def read_claude_code(lines):
    """The session ``load`` reads from these lines, written to a file of their own."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.jsonl"
        path.write_text("\n".join(lines) + "\n")
        return load(path, "claude-code")


def texts(messages):
    return [b.get("text") for m in messages for b in m["content"] if b["type"] == "text"]


def rules(session):
    return [(p.where, p.rule) for p in session.problems]


def test_user_and_assistant_records_become_alternating_messages():
    lines = [record("user", "hi"), record("assistant", [{"type": "text", "text": "hello"}])]
    assert read_claude_code(lines).messages == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
    ]


def test_summary_system_and_sidechain_records_are_left_out_and_counted_and_meta_records_are_sent():
    lines = [
        json.dumps({"type": "summary", "summary": "x", "leafUuid": "u"}),
        json.dumps({"type": "system", "content": "hook ran"}),
        record("user", "caveat", isMeta=True),  # a note the model reads (a local command's caveat)
        record("user", "side", isSidechain=True),
        record("user", "real"),
        "",
    ]
    session = read_claude_code(lines)
    assert session.messages == [
        {"role": "user", "content": [{"type": "text", "text": "caveat"}, {"type": "text", "text": "real"}]}
    ]
    assert session.ignored == {"summary": 1, "plain system": 1, "sidechain": 1}
    assert session.problems == []
    assert session.tally() == {
        "read as messages": 2,
        "left out: plain system": 1,
        "left out: sidechain": 1,
        "left out: summary": 1,
    }


def test_parallel_tool_results_in_separate_records_are_merged_into_one_message_results_first():
    uses = [
        {"type": "tool_use", "id": "a", "name": "Read", "input": {"file_path": "x"}},
        {"type": "tool_use", "id": "b", "name": "Read", "input": {"file_path": "y"}},
    ]
    lines = [
        record("user", "read both"),
        record("assistant", uses),
        record("user", [{"type": "text", "text": "also this"}]),
        record("user", [{"type": "tool_result", "tool_use_id": "b", "content": "Y"}]),
        record("user", [{"type": "tool_result", "tool_use_id": "a", "content": "X"}]),
    ]
    out = read_claude_code(lines).messages
    validate(out)
    assert [b["type"] for b in out[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert [b["tool_use_id"] for b in tool_result_blocks(out[2])] == ["a", "b"]


def test_a_tool_use_without_a_recorded_result_gets_a_marked_error_result_and_a_problem_on_its_line():
    lines = [
        record("user", "go"),
        record("assistant", [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]),
    ]
    session = read_claude_code(lines)
    validate(session.messages)
    (result,) = tool_result_blocks(session.messages[-1])
    assert result == {"type": "tool_result", "tool_use_id": "t", "content": MISSING_RESULT, "is_error": True}
    assert rules(session) == [("line 2", "unanswered_tool_use")]


def test_a_result_with_no_call_before_it_is_kept_as_text_and_reported():
    lines = [
        record("user", "go"),
        record("assistant", [{"type": "text", "text": "ok"}]),
        record("user", [{"type": "tool_result", "tool_use_id": "ghost", "content": "the output"}]),
    ]
    session = read_claude_code(lines)
    validate(session.messages)
    assert "the output" in session.messages[2]["content"][0]["text"]
    assert rules(session) == [("line 3", "orphan_tool_result")]


def test_an_unsupported_block_is_dropped_and_reported_with_its_line():
    lines = [
        record("user", "go"),
        record("assistant", [{"type": "text", "text": "ok"}, {"type": "server_x"}]),
    ]
    session = read_claude_code(lines)
    assert session.messages[1]["content"] == [{"type": "text", "text": "ok"}]
    assert rules(session) == [("line 2", "unsupported_block")]


def test_a_block_dropped_from_inside_a_tool_result_is_reported_and_its_text_kept():
    call = {"type": "tool_use", "id": "toolu_1", "name": "ToolSearch", "input": {"query": "x"}}
    inner = [
        {"type": "text", "text": "found one tool"},
        {"type": "tool_reference", "tool_name": "Grep"},  # the SDK allows it: ToolResultBlockParam.content
        {"type": "text", "text": ""},  # empty: noise, not reported
    ]
    lines = [
        record("user", "go"),
        record("assistant", [call]),
        record("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": inner}]),
    ]
    session = read_claude_code(lines)
    (result,) = tool_result_blocks(session.messages[2])
    assert result["content"] == [{"type": "text", "text": "found one tool"}]
    assert rules(session) == [("line 3", "unsupported_block")]
    assert "'tool_reference' block inside a tool result" in session.problems[0].detail


def test_a_call_whose_id_is_a_number_or_whose_input_is_text_keeps_its_result_and_arguments():
    calls = [
        {"type": "tool_use", "id": 7, "name": "bash", "input": '{"command": "ls"}'},  # arguments as JSON text
        {"type": "tool_use", "id": "t2", "name": "note", "input": "plain words"},
    ]
    results = [
        {"type": "tool_result", "tool_use_id": 7, "content": "a.txt"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "ok"},
    ]
    session = read_claude_code([record("user", "go"), record("assistant", calls), record("user", results)])
    uses, answers = tool_use_blocks(session.messages[1]), tool_result_blocks(session.messages[2])
    expected = [("7", {"command": "ls"}), ("t2", {"input": "plain words"})]
    assert [(u["id"], u["input"]) for u in uses] == expected
    assert [(r["tool_use_id"], r["content"]) for r in answers] == [("7", "a.txt"), ("t2", "ok")]
    assert rules(session) == []


@pytest.mark.parametrize(
    "bad, rule",
    [
        ("{broken\n", "not_json"),
        (json.dumps({"type": "telemetry", "data": 1}) + "\n", "unknown_record"),
        (json.dumps({"silly": "this"}) + "\n", "unknown_record"),
        (json.dumps({"type": "user", "message": "error"}) + "\n", "malformed_record"),
        (
            json.dumps({"type": "user", "message": {"role": "user", "contenst": []}}) + "\n",
            "malformed_record",
        ),
        (
            json.dumps({"type": "user", "message": {"role": "assistant", "content": "x"}}) + "\n",
            "malformed_record",
        ),
    ],
)
def test_each_unreadable_record_is_skipped_counted_and_named_by_file_and_line(tmp_path, bad, rule):
    path = tmp_path / "s.jsonl"
    path.write_text(record("user", "hi") + "\n" + bad + record("assistant", "hello") + "\n")
    session = load(path)
    assert rules(session) == [("line 2", rule)]
    assert session.skipped == 1
    assert str(session.problems[0]).startswith(f"s.jsonl:line 2: {rule}: ")
    assert texts(session.messages) == ["hi", "hello"]


def test_a_truncated_last_line_is_its_own_rule(tmp_path):
    path = tmp_path / "cut.jsonl"
    path.write_text(record("user", "hi") + "\n" + record("assistant", "hello")[:30])
    session = load(path)
    assert rules(session) == [("line 2", "truncated_last_line")]
    assert texts(session.messages) == ["hi"]


def test_a_byte_order_mark_before_the_first_record_loses_no_record(tmp_path):
    path = tmp_path / "bom.jsonl"  # some editors write one
    lines = record("user", "hi") + "\n" + record("assistant", "hello") + "\n"
    path.write_bytes(b"\xef\xbb\xbf" + lines.encode())
    session = load(path)
    assert session.format == "claude-code" and rules(session) == []
    assert texts(session.messages) == ["hi", "hello"]


def test_bytes_that_are_not_utf8_are_replaced_and_reported_on_their_line(tmp_path):
    path = tmp_path / "latin1.jsonl"
    second = record("assistant", "caf\u00e9 ok").replace("\\u00e9", "\u00e9").encode("latin-1")
    path.write_bytes(record("user", "hi").encode() + b"\n" + second + b"\n")
    session = load(path)
    assert rules(session) == [("line 2", "not_utf8")]
    column = second.index(bytes([0xE9])) + 1  # the bad byte, counted from 1
    assert f"column {column} " in session.problems[0].detail
    assert texts(session.messages) == ["hi", "caf\ufffd ok"]


def test_half_of_a_surrogate_pair_is_replaced_and_reported_so_the_list_can_be_sent(tmp_path):
    path = tmp_path / "cut_emoji.jsonl"  # "\ud83d" alone: an emoji cut in two by a truncated output
    whole = json.dumps({"type": "text", "text": "ok \U0001f600"})  # a whole pair stays as it is
    path.write_text(
        record("user", "hi \ud83d") + "\n" + record("assistant", [json.loads(whole)]) + "\n", encoding="ascii"
    )
    session = load(path)
    assert rules(session) == [("line 1", "lone_surrogate")]
    assert texts(session.messages) == ["hi \ufffd", "ok \U0001f600"]
    assert json.dumps(session.messages, ensure_ascii=False).encode("utf-8")  # every string encodes now


def test_the_chain_of_the_last_record_is_replayed_and_a_rewound_branch_is_not():
    lines = [
        record("user", "task", uuid="u1"),
        record("assistant", "first try", uuid="a1", parent="u1"),
        record("user", "no, not like that", uuid="u2", parent="a1"),
        record("assistant", "second try", uuid="a2", parent="u1"),  # the user rewound to u1
        record("user", "good", uuid="u3", parent="a2"),
    ]
    session = read_claude_code(lines)
    assert texts(session.messages) == ["task", "second try", "good"]
    assert session.off_branch == 2


def test_two_records_with_one_uuid_are_named_and_links_follow_the_later():
    lines = [
        record("user", "task", uuid="u1"),
        record("assistant", "old answer", uuid="a1", parent="u1"),
        record("assistant", "new answer", uuid="a1", parent="u1"),  # a uuid written twice
        record("user", "thanks", uuid="u2", parent="a1"),
    ]
    session = read_claude_code(lines)
    assert texts(session.messages) == ["task", "new answer", "thanks"]
    assert rules(session) == [("line 3", "repeated_uuid")] and "line 2" in session.problems[0].detail


def test_a_parent_missing_from_the_file_goes_on_in_file_order_and_names_the_line():
    lines = [
        record("user", "a", uuid="u1"),
        record("assistant", "b", uuid="a1", parent="u1"),
        record("user", "c", uuid="u2", parent="gone"),
        record("assistant", "d", uuid="a2", parent="u2"),
    ]
    session = read_claude_code(lines)
    assert texts(session.messages) == ["a", "b", "c", "d"]
    assert rules(session) == [("line 3", "broken_chain")]
    assert "read on in file order from line 2" in session.problems[0].detail


def boundary(uuid, logical, **meta):
    return json.dumps(
        {
            "type": "system",
            "subtype": "compact_boundary",
            "uuid": uuid,
            "parentUuid": None,
            "logicalParentUuid": logical,
            "compactMetadata": meta,
        }
    )


def test_an_earlier_compaction_is_listed_and_the_history_before_it_is_replayed():
    lines = [
        record("user", "task", uuid="u1"),
        record("assistant", "work", uuid="a1", parent="u1"),
        boundary("b1", "a1", trigger="auto", preTokens=155_000),
        record("user", "Summary: task, work", uuid="s1", parent="b1", isCompactSummary=True),
        record("assistant", "continuing", uuid="a2", parent="s1"),
        record("user", "thanks", uuid="u2", parent="a2"),
    ]
    session = read_claude_code(lines)
    assert texts(session.messages) == ["task", "work", "continuing", "thanks"]
    (earlier,) = session.earlier_compactions  # "continuing" joins "work": message 1 holds what came after
    assert (earlier.index, earlier.where, earlier.trigger, earlier.tokens_before) == (
        1,
        "line 3",
        "auto",
        155_000,
    )
    assert earlier.summary == "Summary: task, work"


def test_a_file_that_starts_at_a_compaction_keeps_the_summary_it_continued_from():
    lines = [
        boundary("b1", "in-another-file", trigger="manual"),
        record("user", "Summary: earlier work", uuid="s1", parent="b1", isCompactSummary=True),
        record("assistant", "continuing", uuid="a2", parent="s1"),
    ]
    session = read_claude_code(lines)
    assert texts(session.messages) == ["Summary: earlier work", "continuing"]
    assert session.earlier_compactions == []


def test_repeated_and_invalid_ids_are_renamed_with_their_results_and_every_call_is_kept():
    call = {"type": "tool_use", "id": "c1", "name": "bash", "input": {"command": "ls"}}
    odd = {"type": "tool_use", "id": "functions.Bash:0", "name": "bash", "input": {}}
    raw = [
        {"role": "user", "content": "go", "where": "line 1"},
        {"role": "assistant", "content": [call], "where": "line 2"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "one"}]},
        {"role": "assistant", "content": [call, odd], "where": "line 4"},
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "functions.Bash:0", "content": "three"},
                {"type": "tool_result", "tool_use_id": "c1", "content": "two"},
            ],
        },
    ]
    problems = []
    out = normalize(raw, file="f", problems=problems)
    validate(out)
    assert [u["id"] for u in tool_use_blocks(out[3])] == ["c1_2", "functions_Bash_0"]
    assert [(r["tool_use_id"], r["content"]) for r in tool_result_blocks(out[4])] == [
        ("c1_2", "two"),
        ("functions_Bash_0", "three"),
    ]
    assert [(p.where, p.rule) for p in problems] == [("line 4", "renamed_id"), ("line 4", "renamed_id")]


def test_the_same_id_twice_in_one_message_pairs_its_results_in_order():
    call = {"type": "tool_use", "id": "x", "name": "bash", "input": {}}
    raw = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [call, call]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "x", "content": c} for c in "ab"],
        },
    ]
    out = normalize(raw)
    assert [(r["tool_use_id"], r["content"]) for r in tool_result_blocks(out[2])] == [
        ("x", "a"),
        ("x_2", "b"),
    ]


def test_a_session_that_starts_with_the_assistant_keeps_it_behind_a_marked_user_message():
    session = read_claude_code([record("assistant", "hello"), record("user", "hi")])
    validate(session.messages)
    assert texts(session.messages)[1:] == ["hello", "hi"]
    assert rules(session) == [("line 1", "leading_assistant")]


def test_a_jsonl_file_with_no_messages_is_not_a_session(tmp_path):
    path = tmp_path / "meta.jsonl"
    path.write_text(json.dumps({"type": "summary", "summary": "t", "leafUuid": "x"}) + "\n")
    with pytest.raises(NotASession, match="meta.jsonl: not a session: no user or assistant records"):
        load(path)
