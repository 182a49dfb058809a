"""OpenHands evaluation output (a session per instance), V1 conversation folders, Claude Code project
folders (sub-agents after their session), and a file no format recognises, named with the formats tried."""

from __future__ import annotations

import json

import pytest
from test_importers_openhands import trajectory, v1_events

from compaction import __main__ as cli
from compaction.core.messages import tool_result_blocks, tool_use_blocks, validate
from compaction.importers import TABLE, NotASession, load, load_all, session_paths


def output_line(instance, history, **extra):
    """One line of an evaluation's output.jsonl, as EvalOutput writes it."""
    return json.dumps({"instance_id": instance, "instruction": "Fix it.", "history": history,
                       "test_result": {"git_patch": ""}, "metrics": {}, "error": None, **extra})  # fmt: skip


def test_an_evaluation_output_is_one_session_per_instance(tmp_path):
    """output.jsonl was 'not a session', even with --format openhands."""
    path = tmp_path / "output.jsonl"
    path.write_text(
        "\n".join([output_line("repo__pkg-1", trajectory()), output_line("repo__pkg-2", v1_events())]) + "\n"
    )
    sessions = load_all(path)
    assert [(s.format, s.label) for s in sessions] == [
        ("openhands", "output.jsonl#repo__pkg-1"),
        ("openhands", "output.jsonl#repo__pkg-2"),
    ]
    for session in sessions:
        validate(session.messages)
        assert sum(session.tally().values()) == session.records
    assert len([u for m in sessions[0].messages for u in tool_use_blocks(m)]) == 3
    with pytest.raises(NotASession, match="not one session but 2 .*load_all reads them"):
        load(path)


def test_an_instance_without_events_and_a_damaged_line_are_named_and_the_rest_is_read(tmp_path):
    pairs = [
        [trajectory()[1], {}],
        [trajectory()[5], trajectory()[6]],
    ]  # the older (action, observation) pairs
    lines = [
        output_line("a-1", [], error="RuntimeError: sandbox failed"),
        "{cut",
        json.dumps(
            {"issue": {"owner": "o", "repo": "r", "number": 7}, "history": trajectory(), "success": True}
        ),
        output_line("a-3", pairs),
    ]
    path = tmp_path / "output.jsonl"
    path.write_text("\n".join(lines) + "\n")
    sessions = load_all(path)
    assert [s.instance for s in sessions] == ["o/r#7", "a-3"]
    assert [(p.where, p.rule) for p in sessions[0].problems[:2]] == [
        ("line 1", "malformed_record"),
        ("line 2", "not_json"),
    ]
    assert (
        "instance a-1 has no events (error: RuntimeError: sandbox failed)" in sessions[0].problems[0].detail
    )
    assert [u["id"] for m in sessions[1].messages for u in tool_use_blocks(m)] == ["toolu_ls"]


def write_conversation(folder, events, base=True):
    (folder / "events").mkdir(parents=True)
    if base:
        (folder / "base_state.json").write_text(json.dumps({"id": "c0ffee", "agent": {"kind": "Agent"}}))
    for index, event in enumerate(events):
        name = f"event-{index:05d}-{event['id'].removeprefix('ev-').rjust(8, '0')}.json"
        (folder / "events" / name).write_text(json.dumps(event))


def test_a_v1_conversation_folder_is_one_session_read_in_event_order(tmp_path):
    """A V1 conversation folder was 'no session found'."""
    folder = tmp_path / "c0ffee"
    events = v1_events()
    write_conversation(folder, events)
    (folder / "events" / "event-00002-00000002.json").write_text("{not json")  # one damaged event file
    session = load(folder)
    validate(session.messages)
    assert session.format == "openhands" and session.file == "c0ffee"
    assert [r["tool_use_id"] for m in session.messages for r in tool_result_blocks(m)] == [
        "call_pwd",
        "call_date",
    ]
    assert [(p.where, p.rule) for p in session.problems] == [("events/event-00002-00000002.json", "not_json")]
    assert session.tally()["left out: base_state.json"] == 1
    assert sum(session.tally().values()) == session.records == len(events) + 1  # and base_state.json
    assert session_paths(tmp_path) == [folder]  # the folder is the session, not its event files


def test_a_claude_code_project_folder_lists_each_session_with_its_sub_agents_after_it(tmp_path):
    def cc(path, records):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
        return path

    def pair(session, side=False, agent=None):
        base = {"sessionId": session, "isSidechain": side, **({"agentId": agent} if agent else {})}
        return [
            {**base, "type": "user", "uuid": "u", "parentUuid": None,
             "message": {"role": "user", "content": "go"}},
            {**base, "type": "assistant", "uuid": "a", "parentUuid": "u",
             "message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]}},
        ]  # fmt: skip

    main_a = cc(tmp_path / "aaaa1111.jsonl", pair("aaaa1111"))
    main_b = cc(tmp_path / "bbbb2222.jsonl", pair("bbbb2222"))
    flat = cc(tmp_path / "agent-0f0f.jsonl", pair("bbbb2222", side=True, agent="0f0f"))  # 2.0: beside it
    nested = cc(
        tmp_path / "aaaa1111" / "subagents" / "agent-a9.jsonl", pair("aaaa1111", side=True, agent="a9")
    )
    (nested.parent / "agent-a9.meta.json").write_text(
        '{"toolUseId": "toolu_1"}'
    )  # Claude Code's own metadata
    (tmp_path / "sessions-index.json").write_text("{}")
    assert session_paths(tmp_path) == [main_a, nested, main_b, flat]
    assert [(s.agent, s.session_id) for s in map(load, session_paths(tmp_path))] == [
        ("", "aaaa1111"),
        ("a9", "aaaa1111"),
        ("", "bbbb2222"),
        ("0f0f", "bbbb2222"),
    ]


def test_replaying_a_project_folder_names_each_sub_agent_under_its_session(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    records = [
        {"type": "user", "uuid": "u", "parentUuid": None, "sessionId": "s1", "isSidechain": True,
         "agentId": "x7", "message": {"role": "user", "content": "look"}},
        {"type": "assistant", "uuid": "a", "parentUuid": "u", "sessionId": "s1", "isSidechain": True,
         "message": {"role": "assistant", "content": [{"type": "text", "text": "seen"}]}},
    ]  # fmt: skip
    folder = tmp_path / "s1" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-x7.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    (tmp_path / "s1.jsonl").write_text(
        "\n".join(json.dumps({**r, "isSidechain": False, "agentId": None}) for r in records) + "\n"
    )
    status = cli.main(["replay", str(tmp_path), "--strategy", "none"])
    out = " ".join(capsys.readouterr().out.split())
    assert status == 0
    main, sub = out.index("s1.jsonl: claude-code, 2 messages"), out.index("sub-agent x7 of session s1")
    assert main < sub
    assert "agent-x7.jsonl: 2 records: 2 read as messages" in out


def test_a_file_no_format_recognises_names_the_formats_tried_and_how_to_name_one(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(json.dumps({"event": "click", "at": n}) for n in range(60)) + "\n")
    with pytest.raises(NotASession) as caught:
        load(path)
    reason = caught.value.reason
    assert reason.startswith("JSON Lines, but none of its first 50 records is a record of a known format")
    tried = [row.name for row in TABLE if row.detect is not None]
    assert f"tried {', '.join(tried)}" in reason and "--format" in reason


def test_every_row_of_the_table_has_one_reader_signature():
    """A format is one module and one row: a name, what it is, detect(source) and read(source)."""
    assert len({row.name for row in TABLE}) == len(TABLE)
    for row in TABLE:
        assert row.what and callable(row.read)
        assert list(row.read.__annotations__) == ["source", "return"]
        if row.detect is not None:
            assert list(row.detect.__annotations__) == ["source", "return"]
