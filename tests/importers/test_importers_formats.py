"""Importers, every other format: told from the content, round trips where the format allows."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from compaction.core.messages import tool_result_blocks, tool_use_blocks, validate
from compaction.importers import NotASession, load, sessions_in
from compaction.importers.nesting import MAX_DEPTH

TASK = {"role": "user", "content": "fix the bug"}


def write(path, data):
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def calls(messages):
    return [(u["name"], u["input"]) for m in messages for u in tool_use_blocks(m)]


def results(messages):
    return [r["content"] for m in messages for r in tool_result_blocks(m)]


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
            {"role": "tool", "content": [{"type": "text", "text": "1: x"}], "tool_call_ids": ["c1"]},
        ]
    }
    session = load(write(tmp_path / "t.traj", traj))
    validate(session.messages)
    assert (session.format, session.system) == ("swe-agent", "SETTING")
    assert calls(session.messages) == [("open", {"path": "a.py"})]
    assert results(session.messages) == ["1: x"]


def test_swe_agent_text_actions_become_bash_calls_answered_by_the_observation(tmp_path):
    traj = {
        "history": [
            {"role": "user", "content": "solve"},
            {"role": "assistant", "content": "list files", "action": "ls -a\n"},
            {"role": "user", "content": "a.py"},
            {"role": "assistant", "content": "done", "action": "submit"},
        ]
    }
    out = load(write(tmp_path / "t.traj", traj), "swe-agent").messages
    validate(out)
    assert calls(out) == [("bash", {"command": "ls -a"})]
    assert results(out) == ["a.py"]


def test_mini_swe_agent_text_commands_become_calls_answered_by_the_next_user_message(tmp_path):
    data = {
        "trajectory_format": "mini-swe-agent-1",
        "info": {},
        "messages": [
            {"role": "system", "content": "You run bash."},
            TASK,
            {"role": "assistant", "content": "THOUGHT: look\n```bash\nls\n```"},
            {"role": "user", "content": "<output>a.py</output>"},
            {"role": "assistant", "content": "THOUGHT: v2 style\n```mswea_bash_command\ncat a.py\n```"},
            {"role": "user", "content": "print(1)"},
            {"role": "assistant", "content": "no command here"},
            {"role": "user", "content": "please use a command"},
        ],
    }
    session = load(write(tmp_path / "run.traj.json", data))
    validate(session.messages)
    assert session.format == "mini-swe-agent"
    assert calls(session.messages) == [("bash", {"command": "ls"}), ("bash", {"command": "cat a.py"})]
    assert results(session.messages) == ["<output>a.py</output>", "print(1)"]
    assert session.messages[-1]["content"][0]["text"] == "please use a command"


def test_mini_swe_agent_tool_calling_runs_use_tool_messages(tmp_path):
    data = {
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [
            TASK,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "a.py"},
        ],
    }
    session = load(write(tmp_path / "run.traj.json", data))
    assert calls(session.messages) == [("bash", {"command": "ls"})]
    assert results(session.messages) == ["a.py"]


def submit_call(call_id):
    arguments = json.dumps({"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff"})
    return {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}


def test_mini_swe_agent_exit_after_the_submitting_command_is_that_commands_output(tmp_path):
    """mini-swe-agent 1.1's normal end was reported as a malformed message and an unanswered call."""
    exit_message = {"role": "exit", "content": "diff --git a/x b/x", "extra": {"exit_status": "Submitted"}}
    data = {
        "trajectory_format": "mini-swe-agent-1.1",
        "messages": [
            TASK,
            {"role": "assistant", "content": "submit", "tool_calls": [submit_call("c9")]},
            exit_message,
        ],
    }
    session = load(write(tmp_path / "run.traj.json", data))
    assert results(session.messages) == ["diff --git a/x b/x"]
    assert (session.problems, session.ended) == ([], "Submitted")
    assert session.tally() == {"read as messages": 3}


def test_mini_swe_agent_exit_without_a_command_ends_the_run_and_is_counted(tmp_path):
    limit = {"role": "exit", "content": "LimitsExceeded", "extra": {"exit_status": "LimitsExceeded"}}
    text_mode = {
        "role": "assistant",
        "content": "THOUGHT: submit\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```",
    }
    data = {
        "trajectory_format": "mini-swe-agent-1",
        "messages": [TASK, {"role": "assistant", "content": "thinking"}, limit],
    }
    session = load(write(tmp_path / "limit.traj.json", data))
    assert (session.problems, session.ended) == ([], "LimitsExceeded")
    assert session.tally() == {"read as messages": 2, "left out: exit (LimitsExceeded)": 1}
    data["messages"][1:] = [
        text_mode,
        {"role": "exit", "content": "patch", "extra": {"exit_status": "Submitted"}},
    ]
    session = load(write(tmp_path / "text.traj.json", data))
    assert calls(session.messages) == [("bash", {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"})]
    assert results(session.messages) == ["patch"]


OPENAI = [
    {"role": "system", "content": "be brief"},
    TASK,
    {
        "role": "assistant",
        "content": "reading",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": "read", "arguments": '{"path": "x.py"}'},
            },
            {"id": "call_b", "type": "function", "function": {"name": "read", "arguments": "not json"}},
        ],
    },
    {"role": "tool", "tool_call_id": "call_b", "content": "B"},
    {"role": "tool", "tool_call_id": "call_a", "content": [{"type": "text", "text": "A"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
]


def test_openai_chat_lists_become_strict_messages_with_results_in_call_order(tmp_path):
    session = load(write(tmp_path / "chat.json", OPENAI))
    validate(session.messages)
    assert (session.format, session.system) == ("openai-chat", "be brief")
    assert calls(session.messages) == [("read", {"path": "x.py"}), ("read", {"arguments": "not json"})]
    assert results(session.messages) == ["A", "B"]


def test_the_same_chat_as_json_lines_or_inside_a_messages_object_reads_the_same(tmp_path):
    lines = write(tmp_path / "chat.jsonl", "\n".join(json.dumps(m) for m in OPENAI) + "\n")
    wrapped = write(tmp_path / "body.json", {"model": "m", "messages": OPENAI})
    reference = load(write(tmp_path / "chat.json", OPENAI)).messages
    assert load(lines).messages == reference
    assert load(wrapped).messages == reference


def test_a_strict_anthropic_list_round_trips_unchanged(tmp_path):
    strict = [
        {"role": "user", "content": [{"type": "text", "text": "go"}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x", "is_error": True}],
        },
    ]
    session = load(write(tmp_path / "messages.json", strict))
    assert session.format == "anthropic-messages"
    assert session.messages == strict
    assert session.problems == []
    again = load(write(tmp_path / "again.json", session.messages))
    assert again.messages == strict


def test_a_strict_list_written_as_claude_code_records_round_trips(tmp_path):
    strict = load(write(tmp_path / "chat.json", OPENAI)).messages
    records = [
        {"type": m["role"], "uuid": f"r{i}", "parentUuid": f"r{i - 1}" if i else None, "message": m}
        for i, m in enumerate(strict)
    ]
    path = write(tmp_path / "cc.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    assert load(path).messages == strict


def test_the_format_comes_from_the_content_not_the_file_name(tmp_path):
    traj = {"history": [{"role": "user", "content": "hi"}]}
    assert load(write(tmp_path / "looks-like.jsonl", traj)).format == "swe-agent"
    line = json.dumps({"type": "user", "uuid": "u", "message": {"role": "user", "content": "hi"}})
    assert load(write(tmp_path / "looks-like.traj", line + "\n")).format == "claude-code"


def test_a_given_format_overrides_detection(tmp_path):
    plain = [{"role": "user", "content": "hi"}]
    assert load(write(tmp_path / "m.json", plain), format="openai").format == "openai-chat"
    assert load(write(tmp_path / "m.json", plain)).format == "anthropic-messages"


@pytest.mark.parametrize(
    "content, reason",
    [
        ("", "the file is empty"),
        ("hello, world\n", "not JSON or JSON Lines: Expecting value at line 1"),
        ('{"name": "x", "version": 1}', "a JSON object with none of 'history' or 'messages'"),
        ("[1, 2, 3]", "JSON, but not a list of messages"),
        ("{\n", "the JSON ends early, cut off? (Expecting property name enclosed in double quotes at line 2"),
        ('{"history": [1, 2}', "not JSON or JSON Lines: Expecting ',' delimiter at line 1, column 18"),
        (
            '{"history": [{"role": "user", "content": "a',
            "the JSON ends early, cut off? (Unterminated string at",
        ),
    ],
)
def test_a_file_that_is_no_session_is_named_with_the_reason(tmp_path, content, reason):
    path = write(tmp_path / "notes.json", content)
    with pytest.raises(NotASession) as caught:
        load(path)
    assert str(caught.value).startswith(f"notes.json: not a session: {reason}")
    assert path.read_text() == content


def test_a_binary_file_is_not_a_session(tmp_path):
    path = tmp_path / "image.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    with pytest.raises(NotASession, match="image.json: not a session"):
        load(path)


def test_sessions_in_reads_every_session_of_a_folder_and_passes_over_the_rest(tmp_path):
    assert sessions_in(tmp_path / "absent") == []
    write(tmp_path / "b.jsonl", json.dumps({"type": "user", "message": {"role": "user", "content": "hello"}}))
    write(tmp_path / "sub" / "a.traj" if (tmp_path / "sub").mkdir() is None else "", {"history": [TASK]})
    write(tmp_path / "package.json", {"name": "x"})
    write(tmp_path / "notes.md", "not a session")
    assert [name for name, _ in sessions_in(tmp_path)] == ["b.jsonl", "a.traj"]


def test_a_large_claude_code_file_is_read_once_line_by_line(tmp_path):
    """Peak memory stays near one parsed copy of the records (2 MB here; the benchmark reads 50 MB)."""
    path = tmp_path / "big.jsonl"
    body = "x" * 4_000
    with open(path, "w") as f:
        for i in range(500):
            f.write(
                json.dumps({"type": "user", "message": {"role": "user", "content": f"{i} {body}"}}) + "\n"
            )
            f.write(
                json.dumps({"type": "assistant", "message": {"role": "assistant", "content": "ok"}}) + "\n"
            )
    tracemalloc.start()
    with open(path) as f:
        parsed = [json.loads(line) for line in f]  # one parsed copy: the floor
    one_copy = tracemalloc.get_traced_memory()[0]
    del parsed
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    session = load(path)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    assert len(session.messages) == 1_000
    assert peak < 1.6 * one_copy, f"peak {peak:,} bytes; one parsed copy is {one_copy:,}"


def codex_lines():
    def rec(kind, payload):
        return json.dumps({"timestamp": "2025-12-08T00:37:46Z", "type": kind, "payload": payload})

    return [
        rec("session_meta", {"id": "s1", "cwd": "/home/me/app", "cli_version": "0.65.0"}),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "developer",
                "content": [{"type": "input_text", "text": "Be careful."}],
            },
        ),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "List the files."}],
            },
        ),
        rec("turn_context", {"model": "o4-mini"}),
        rec("response_item", {"type": "reasoning", "encrypted_content": "xyz"}),
        rec(
            "response_item",
            {
                "type": "function_call",
                "name": "shell",
                "arguments": '{"command": ["ls"]}',
                "call_id": "call_1",
            },
        ),
        rec("response_item", {"type": "function_call_output", "call_id": "call_1", "output": "a.py\nb.py"}),
        rec(
            "response_item",
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "input": "*** Begin Patch",
                "call_id": "call_2",
            },
        ),
        rec(
            "response_item",
            {"type": "custom_tool_call_output", "call_id": "call_2", "output": {"content": "Done."}},
        ),
        rec("event_msg", {"type": "agent_message", "message": "Two files."}),
        rec(
            "response_item",
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "Two files."}],
            },
        ),
    ]


def test_a_codex_cli_rollout_becomes_calls_results_and_text(tmp_path):
    path = write(tmp_path / "rollout-2025-12-08T00-37-46-abc.jsonl", "\n".join(codex_lines()) + "\n")
    session = load(path)
    validate(session.messages)
    assert (session.format, session.system) == ("codex", "Be careful.")
    assert calls(session.messages) == [
        ("shell", {"command": ["ls"]}),
        ("apply_patch", {"input": "*** Begin Patch"}),
    ]
    assert results(session.messages) == ["a.py\nb.py", "Done."]
    assert session.messages[-1]["content"] == [{"type": "text", "text": "Two files."}]
    assert session.ignored == {"session_meta": 1, "turn_context": 1, "reasoning": 1, "event_msg": 1}
    assert session.problems == []


def test_a_codex_item_the_importer_does_not_know_is_reported_with_its_line(tmp_path):
    lines = codex_lines()
    lines.insert(3, json.dumps({"type": "response_item", "payload": {"type": "hologram_call", "id": "w"}}))
    session = load(write(tmp_path / "rollout.jsonl", "\n".join(lines) + "\n"))
    assert [(p.where, p.rule) for p in session.problems] == [("line 4", "unknown_record")]


def test_codex_arguments_nested_too_deep_to_read_are_kept_as_their_text(tmp_path):
    deep = "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5)
    call = {"type": "function_call", "call_id": "c1", "name": "shell", "arguments": deep}
    lines = codex_lines()
    lines[3] = json.dumps({"type": "response_item", "payload": call})
    session = load(write(tmp_path / "rollout.jsonl", "\n".join(lines) + "\n"))
    assert ("shell", {"input": deep}) in calls(session.messages)


def test_json_lines_whose_first_line_is_broken_are_still_read_and_the_line_is_named(tmp_path):
    good = [
        json.dumps({"type": "user", "uuid": "a", "parentUuid": None, "message": TASK}),
        json.dumps(
            {
                "type": "assistant",
                "uuid": "b",
                "parentUuid": "a",
                "message": {"role": "assistant", "content": "ok"},
            }
        ),
    ]
    path = write(tmp_path / "s.jsonl", "{not json\n" + "\n".join(good) + "\n")
    session = load(path)
    assert session.format == "claude-code" and len(session.messages) == 2
    assert [(p.where, p.rule) for p in session.problems] == [("line 1", "not_json")]


@pytest.mark.parametrize(
    "line, said",
    [
        ("42", "not a JSON object but a number"),
        ('"x"', "not a JSON object but a string"),
        ("{}", "an object without"),
    ],
)
def test_a_line_that_is_no_record_says_what_it_is(tmp_path, line, said):
    first = json.dumps({"type": "user", "uuid": "a", "parentUuid": None, "message": TASK})
    session = load(write(tmp_path / "s.jsonl", f"{first}\n{line}\n"))
    [problem] = session.problems
    assert (problem.where, problem.rule) == ("line 2", "unknown_record") and problem.detail.startswith(said)


def test_codex_items_of_current_rollouts_are_kept_as_what_they_are_and_compacted_is_an_earlier_compaction(
    tmp_path,
):
    """A rollout's 7 web_search_call items were skipped as unknown and its compacted record dropped."""

    def item(payload):
        return json.dumps({"timestamp": "2026-01-05T10:00:00Z", "type": "response_item", "payload": payload})

    search = {"type": "search", "query": "tiktoken cl100k offline"}
    lines = [
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Find it."}]}),
        item({"type": "web_search_call", "id": "ws_1", "status": "completed", "action": search}),
        item(
            {
                "type": "local_shell_call",
                "call_id": "sh_1",
                "status": "completed",
                "action": {"type": "exec", "command": ["ls", "-a"]},
            }
        ),  # fmt: skip
        item({"type": "function_call_output", "call_id": "sh_1", "output": ".\n..\nsetup.py"}),
        item({"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
        json.dumps({"type": "compacted", "payload": {"message": "Summary: searched, listed files."}}),
        item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Go on."}]}),
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Done."}]}),
    ]
    session = load(write(tmp_path / "rollout-2026.jsonl", "\n".join(lines) + "\n"))
    validate(session.messages)
    assert session.problems == []
    assert "[web search (completed): tiktoken cl100k offline]" in json.dumps(session.messages)
    assert calls(session.messages) == [("local_shell", {"type": "exec", "command": ["ls", "-a"]})]
    assert results(session.messages) == [".\n..\nsetup.py"]
    (earlier,) = session.earlier_compactions
    assert (earlier.where, earlier.summary) == ("line 6", "Summary: searched, listed files.")
    assert session.tally() == {"read as messages": 6, "left out: compacted": 1, "left out: ghost_snapshot": 1}
