"""Importers: real session files become strict-form lists, nothing the model saw is silently lost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compaction.importers import (
    MISSING_RESULT,
    from_claude_code,
    from_swe_agent,
    load_session,
    normalize,
    sessions_in,
)
from compaction.messages import tool_result_blocks, tool_use_blocks, validate

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")


def record(kind, content, **extra):
    return json.dumps({"type": kind, "message": {"role": kind, "content": content}, **extra})


def test_user_and_assistant_records_become_alternating_messages():
    lines = [record("user", "hi"), record("assistant", [{"type": "text", "text": "hello"}])]
    assert from_claude_code(lines) == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "hello"}]},
    ]


def test_summary_system_meta_and_sidechain_records_are_skipped():
    lines = [
        json.dumps({"type": "summary", "summary": "x", "leafUuid": "u"}),
        json.dumps({"type": "system", "content": "hook ran"}),
        record("user", "caveat", isMeta=True),
        record("user", "side", isSidechain=True),
        record("user", "real"),
        "",
    ]
    assert from_claude_code(lines) == [{"role": "user", "content": [{"type": "text", "text": "real"}]}]


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
    out = from_claude_code(lines)
    validate(out)
    assert [b["type"] for b in out[2]["content"]] == ["tool_result", "tool_result", "text"]
    assert [b["tool_use_id"] for b in tool_result_blocks(out[2])] == ["a", "b"]


def test_a_tool_use_without_a_recorded_result_gets_a_marked_error_result():
    lines = [
        record("user", "go"),
        record("assistant", [{"type": "tool_use", "id": "t", "name": "Bash", "input": {}}]),
    ]
    out = from_claude_code(lines)
    validate(out)
    (result,) = tool_result_blocks(out[-1])
    assert result == {"type": "tool_result", "tool_use_id": "t", "content": MISSING_RESULT, "is_error": True}


def test_orphan_results_empty_text_and_unknown_blocks_are_dropped():
    lines = [
        record("user", "go"),
        record("assistant", [{"type": "text", "text": "ok"}, {"type": "server_tool_use", "id": "s"}]),
        record(
            "user",
            [{"type": "tool_result", "tool_use_id": "ghost", "content": "?"}, {"type": "text", "text": " "}],
        ),
    ]
    out = from_claude_code(lines)
    validate(out)
    assert out[1]["content"] == [{"type": "text", "text": "ok"}]
    assert out[2]["content"] == [{"type": "text", "text": "(no content)"}]


def test_a_line_that_is_not_json_is_named_by_its_number():
    with pytest.raises(ValueError, match="line 2 is not JSON"):
        from_claude_code([record("user", "hi"), "{broken"])


def test_leading_assistant_messages_are_dropped_so_the_user_speaks_first():
    assert (
        normalize([{"role": "assistant", "content": "x"}, {"role": "user", "content": "y"}])[0]["role"]
        == "user"
    )


def test_swe_agent_tool_calls_become_tool_use_and_tool_result_pairs(tmp_path):
    traj = {
        "history": [
            {"role": "system", "content": "SETTING"},
            {"role": "user", "content": "fix it"},
            {
                "role": "assistant",
                "content": "look",
                "tool_calls": [{"id": "c1", "function": {"name": "open", "arguments": '{"path": "a.py"}'}}],
            },
            {"role": "tool", "content": "1: x", "tool_call_ids": ["c1"]},
        ]
    }
    path = tmp_path / "t.traj"
    path.write_text(json.dumps(traj))
    out = from_swe_agent(path)
    validate(out)
    assert tool_use_blocks(out[1]) == [
        {"type": "tool_use", "id": "c1", "name": "open", "input": {"path": "a.py"}}
    ]
    assert tool_result_blocks(out[2])[0]["content"] == "1: x"


def test_swe_agent_text_actions_become_bash_calls_answered_by_the_observation(tmp_path):
    traj = {
        "history": [
            {"role": "user", "content": "solve"},
            {"role": "assistant", "content": "list files", "action": "ls -a\n"},
            {"role": "user", "content": "a.py"},
            {"role": "assistant", "content": "done", "action": "submit"},
        ]
    }
    path = tmp_path / "t.traj"
    path.write_text(json.dumps(traj))
    out = from_swe_agent(path)
    validate(out)
    assert tool_use_blocks(out[1])[0]["input"] == {"command": "ls -a"}
    assert tool_result_blocks(out[2])[0]["content"] == "a.py"
    assert tool_use_blocks(out[3]) == []


def test_a_traj_without_history_is_a_clear_error(tmp_path):
    path = tmp_path / "bad.traj"
    path.write_text("{}")
    with pytest.raises(ValueError, match="history"):
        from_swe_agent(path)


@needs_data
@pytest.mark.parametrize(
    "path", sorted((DATA / "claude-code-transcripts").glob("*.jsonl")), ids=lambda p: p.name
)
def test_every_claude_code_file_in_the_shared_data_imports_in_strict_form(path):
    out = from_claude_code(path)
    validate(out)
    assert len(out) >= 3


@needs_data
@pytest.mark.parametrize(
    "path", sorted((DATA / "swe-agent-trajectories").glob("*.traj")), ids=lambda p: p.name
)
def test_every_swe_agent_file_in_the_shared_data_imports_with_its_tool_calls(path):
    out = from_swe_agent(path)
    validate(out)
    assert sum(len(tool_result_blocks(m)) for m in out) >= 4


def test_load_session_picks_the_importer_by_suffix_and_names_a_file_it_cannot_read(tmp_path):
    odd = tmp_path / "session.txt"
    odd.write_text("{}")
    with pytest.raises(ValueError, match="session.txt: not a session file"):
        load_session(odd)
    line = {"type": "user", "message": {"role": "user", "content": "hello"}}
    (tmp_path / "a.jsonl").write_text(json.dumps(line) + "\n")
    assert load_session(tmp_path / "a.jsonl") == from_claude_code(tmp_path / "a.jsonl")
    assert "hello" in json.dumps(load_session(tmp_path / "a.jsonl"))


def test_sessions_in_lists_every_session_file_of_a_folder_and_nothing_for_a_missing_one(tmp_path):
    assert sessions_in(tmp_path / "absent") == []
    line = {"type": "user", "message": {"role": "user", "content": "hello"}}
    (tmp_path / "b.jsonl").write_text(json.dumps(line) + "\n")
    (tmp_path / "notes.md").write_text("not a session")
    assert [name for name, _ in sessions_in(tmp_path)] == ["b.jsonl"]
