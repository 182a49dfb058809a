"""OpenHands event streams: a saved V0 trajectory and a V1 SDK event list become strict lists, every
call paired with its observation, every skipped event counted or named by its place."""

from __future__ import annotations

import json
import tempfile

import pytest

from compaction import __main__ as cli
from compaction.core.messages import tool_result_blocks, tool_use_blocks, validate
from compaction.importers import FORMATS, MISSING_RESULT, NotASession, load


def write(path, data, indent=4):
    path.write_text(json.dumps(data, indent=indent))  # save_trajectory_path writes indent=4
    return path


def response(rid, said, calls):
    """A model_response as ToolCallMetadata records it (litellm's OpenAI-shaped completion)."""
    return {
        "id": rid,
        "model": "claude-sonnet-4",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": said,
                    "tool_calls": [
                        {
                            "id": cid,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(args)},
                        }
                        for cid, name, args in calls
                    ],
                },
            }
        ],
    }


def metadata(call_id, name, model_response):
    return {
        "function_name": name,
        "tool_call_id": call_id,
        "model_response": model_response,
        "total_calls_in_response": len(model_response["choices"][0]["message"]["tool_calls"]),
    }


def action(id, kind, args, source="agent", meta=None):
    event = {
        "id": id,
        "timestamp": f"2025-06-01T10:00:{id:02d}",
        "source": source,
        "message": "",
        "action": kind,
    }
    event["args"] = args
    if meta:
        event["tool_call_metadata"] = meta
    return event


def observation(id, kind, content, cause, meta=None, **extra):
    event = {"id": id, "timestamp": f"2025-06-01T10:00:{id:02d}", "source": "environment", "message": ""}
    event.update({"observation": kind, "content": content, "extras": {}, **extra})
    if cause is not None:  # event_to_dict writes only the keys that are set
        event["cause"] = cause
    if meta:
        event["tool_call_metadata"] = meta
    return event


def trajectory():
    """A CodeActAgent run: two calls in one response (interleaved with their results), then one more."""
    first = response(
        "chatcmpl-a1",
        "I will list the files and open the test.",
        [
            ("toolu_ls", "execute_bash", {"command": "ls tests"}),
            ("toolu_view", "str_replace_editor", {"command": "view", "path": "/workspace/tests/test_io.py"}),
        ],
    )
    second = response("chatcmpl-a2", "", [("toolu_run", "execute_bash", {"command": "pytest -q"})])
    ls, view, run = (
        metadata("toolu_ls", "execute_bash", first),
        metadata("toolu_view", "str_replace_editor", first),
        metadata("toolu_run", "execute_bash", second),
    )
    return [
        action(
            0,
            "system",
            {"content": "You are a careful engineer.", "tools": [], "agent_class": "CodeActAgent"},
        ),
        action(1, "message", {"content": "Make tests/test_io.py pass.", "image_urls": None}, source="user"),
        action(2, "recall", {"recall_type": "workspace_context", "query": "Make tests pass"}, source="user"),
        observation(3, "recall", "Added workspace context", 2),
        observation(4, "agent_state_changed", "", None, extras={"agent_state": "running"}),
        action(5, "run", {"command": "ls tests", "thought": "I will list...", "security_risk": 0}, meta=ls),
        observation(6, "run", "test_io.py", 5, meta=ls, success=True),
        action(7, "read", {"path": "/workspace/tests/test_io.py", "impl_source": "oh_aci"}, meta=view),
        observation(8, "read", "1\timport io", 7, meta=view),
        action(9, "run", {"command": "pytest -q", "thought": "", "blocking": False}, meta=run),
        observation(10, "run", "1 failed", 9, meta=run, success=False),
        action(11, "finish", {"final_thought": "The test fails on purpose; I stopped.", "thought": ""}),
        observation(12, "agent_state_changed", "", None, extras={"agent_state": "finished"}),
    ]


def calls(messages):
    return [(u["id"], u["name"], u["input"]) for m in messages for u in tool_use_blocks(m)]


def results(messages):
    return [
        (r["tool_use_id"], r["content"], r.get("is_error", False))
        for m in messages
        for r in tool_result_blocks(m)
    ]


def test_a_saved_trajectory_pairs_every_call_with_its_observation(tmp_path):
    events = trajectory()
    session = load(write(tmp_path / "trajectory.json", events))
    validate(session.messages)
    assert (session.format, session.system) == ("openhands", "You are a careful engineer.")
    tool_actions = [e for e in events if e.get("action") in ("run", "read")]
    answers = [e for e in events if e.get("observation") in ("run", "read")]
    assert len(calls(session.messages)) == len(tool_actions) == 3
    assert len(results(session.messages)) == len(answers) == 3
    assert calls(session.messages) == [
        ("toolu_ls", "execute_bash", {"command": "ls tests"}),
        ("toolu_view", "str_replace_editor", {"command": "view", "path": "/workspace/tests/test_io.py"}),
        ("toolu_run", "execute_bash", {"command": "pytest -q"}),
    ]
    assert results(session.messages) == [
        ("toolu_ls", "test_io.py", False),
        ("toolu_view", "1\timport io", False),
        ("toolu_run", "1 failed", True),  # success: false
    ]
    assert session.problems == []


def test_the_calls_of_one_model_response_form_one_assistant_message_with_its_text_once(tmp_path):
    session = load(write(tmp_path / "trajectory.json", trajectory()))
    roles = [m["role"] for m in session.messages]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]
    first_turn = session.messages[1]["content"]
    assert [b["type"] for b in first_turn] == ["text", "tool_use", "tool_use"]
    assert first_turn[0]["text"] == "I will list the files and open the test."
    assert [b["tool_use_id"] for b in session.messages[2]["content"]] == ["toolu_ls", "toolu_view"]
    assert session.messages[-1]["content"] == [
        {"type": "text", "text": "The test fails on purpose; I stopped."}
    ]


def test_bookkeeping_events_are_counted_not_sent(tmp_path):
    session = load(write(tmp_path / "trajectory.json", trajectory()))
    assert session.ignored == {
        "recall action": 1,
        "recall observation": 1,
        "agent_state_changed observation": 2,
    }
    assert session.skipped == 0


def test_without_model_response_the_action_type_and_its_args_make_the_call(tmp_path):
    events = [
        action(1, "message", {"content": "Write a greeting file."}, source="user"),
        action(
            2, "write", {"path": "/w/hi.txt", "content": "hi", "thought": "Writing it.", "security_risk": 0}
        ),
        observation(3, "write", "I wrote to the file /w/hi.txt.", 2),
        action(
            4, "call_tool_mcp", {"name": "fetch", "arguments": {"url": "https://example.org"}, "thought": ""}
        ),
        observation(5, "mcp", '{"status": 200}', 4),
    ]
    session = load(write(tmp_path / "old.json", events))
    validate(session.messages)
    assert calls(session.messages) == [
        ("event_2", "write", {"path": "/w/hi.txt", "content": "hi"}),
        ("event_4", "fetch", {"url": "https://example.org"}),
    ]
    assert [r[:2] for r in results(session.messages)] == [
        ("event_2", "I wrote to the file /w/hi.txt."),
        ("event_4", '{"status": 200}'),
    ]
    assert session.messages[1]["content"][0] == {"type": "text", "text": "Writing it."}


def test_repeated_call_ids_are_renamed_with_their_results(tmp_path):
    """Some providers number calls per response, so ``call_0`` comes back in every turn."""
    events = [action(1, "message", {"content": "Count the lines twice."}, source="user")]
    for n, (a, o) in enumerate([(2, 3), (4, 5)]):
        said = response(f"resp-{n}", f"pass {n}", [("call_0", "execute_bash", {"command": "wc -l a.py"})])
        meta = metadata("call_0", "execute_bash", said)
        events += [
            action(a, "run", {"command": "wc -l a.py"}, meta=meta),
            observation(o, "run", f"{n + 10} a.py", a, meta=meta),
        ]
    session = load(write(tmp_path / "ids.json", events))
    validate(session.messages)
    assert [c[0] for c in calls(session.messages)] == ["call_0", "call_0_2"]
    assert [r[:2] for r in results(session.messages)] == [("call_0", "10 a.py"), ("call_0_2", "11 a.py")]
    assert [(p.where, p.rule) for p in session.problems] == [("events[3] (id 4)", "renamed_id")]


def test_error_and_rejected_observations_are_error_results(tmp_path):
    events = [
        action(1, "message", {"content": "Open the config."}, source="user"),
        action(2, "read", {"path": "/w/missing.toml"}),
        observation(3, "error", "File not found: /w/missing.toml", 2, extras={"error_id": ""}),
        action(4, "run", {"command": "rm -rf build"}),
        observation(5, "user_rejected", "Action has been rejected by the user.", 4),
        action(6, "run", {"command": "true"}),
        observation(7, "run", "", 6, success=True),
    ]
    session = load(write(tmp_path / "errors.json", events))
    validate(session.messages)
    assert [(r[0], r[2]) for r in results(session.messages)] == [
        ("event_2", True),
        ("event_4", True),
        ("event_6", False),
    ]


def test_what_cannot_be_paired_is_kept_and_named_by_its_place(tmp_path):
    events = [
        action(1, "message", {"content": "Start."}, source="user"),
        action(2, "run", {"command": "make"}),  # the run was cut before its output
        action(3, "message", {"content": "Stop, please."}, source="user"),
        observation(4, "run", "late output", 99),  # answers an action that is not in the file
        "not an event",
        action(6, "launch_rocket", {"when": "now"}),
    ]
    session = load(write(tmp_path / "cut.json", events))
    validate(session.messages)
    assert [(p.where, p.rule) for p in session.problems] == [
        ("events[4]", "malformed_record"),
        ("events[5] (id 6)", "unknown_record"),
        ("events[3] (id 4)", "orphan_tool_result"),
        ("events[1] (id 2)", "unanswered_tool_use"),
    ]
    assert session.skipped == 2
    assert results(session.messages) == [("event_2", MISSING_RESULT, True)]
    assert "late output" in json.dumps(session.messages[-1])


def test_the_users_own_command_and_its_output_stay_user_text(tmp_path):
    events = [
        action(1, "message", {"content": "Look at this."}, source="user"),
        action(2, "run", {"command": "git status", "thought": ""}, source="user"),
        observation(3, "run", "On branch main", 2),
        action(4, "message", {"content": "I see a clean tree."}),
        action(5, "finish", {"thought": "That is all for today.", "outputs": {}}, source="user"),
    ]
    session = load(write(tmp_path / "user.json", events))
    validate(session.messages)
    assert calls(session.messages) == []
    said = json.dumps(session.messages[0])
    assert "git status" in said and "On branch main" in said
    assert session.messages[-1] == {
        "role": "user",
        "content": [{"type": "text", "text": "That is all for today."}],
    }
    assert session.problems == []


def test_a_condensation_is_an_earlier_compaction_at_its_place(tmp_path):
    events = [
        action(1, "message", {"content": "Refactor the parser."}, source="user"),
        action(2, "message", {"content": "Reading the parser now."}),
        action(3, "condensation", {"forgotten_event_ids": [2], "summary": "The user wants a refactor."}),
        action(4, "message", {"content": "Go on."}, source="user"),
    ]
    session = load(write(tmp_path / "condensed.json", events))
    validate(session.messages)
    [earlier] = session.earlier_compactions
    assert (earlier.index, earlier.where, earlier.summary) == (
        2,
        "events[2] (id 3)",
        "The user wants a refactor.",
    )
    assert session.messages[earlier.index]["content"][0]["text"] == "Go on."


def v1_events():
    """A software-agent-sdk conversation: its event-*.json files joined into one list."""

    def event(n, kind, source, **fields):
        return {
            "kind": kind,
            "id": f"ev-{n}",
            "timestamp": f"2025-09-01T08:00:{n:02d}",
            "source": source,
            **fields,
        }

    def act(n, call_id, name, args, thought=()):
        call = {"id": call_id, "name": name, "arguments": json.dumps(args), "origin": "completion"}
        return event(
            n,
            "ActionEvent",
            "agent",
            thought=[{"type": "text", "text": t} for t in thought],
            tool_name=name,
            tool_call_id=call_id,
            tool_call=call,
            llm_response_id="resp-1",
            action={"kind": "TerminalAction", **args},
        )

    def obs(n, call_id, action_id, said, is_error=False):
        payload = {
            "kind": "TerminalObservation",
            "content": [{"type": "text", "text": said}],
            "is_error": is_error,
        }
        return event(
            n,
            "ObservationEvent",
            "environment",
            tool_name="terminal",
            tool_call_id=call_id,
            action_id=action_id,
            observation=payload,
        )

    return [
        event(
            0,
            "SystemPromptEvent",
            "agent",
            system_prompt={"type": "text", "text": "You are an SDK agent."},
            tools=[],
        ),
        event(
            1,
            "MessageEvent",
            "user",
            llm_message={"role": "user", "content": [{"type": "text", "text": "Run pwd and date."}]},
        ),
        event(2, "ConversationStateUpdateEvent", "environment", key="execution_status", value="running"),
        act(3, "call_pwd", "terminal", {"command": "pwd"}, thought=["Two quick commands."]),
        act(4, "call_date", "terminal", {"command": "date"}),
        obs(5, "call_pwd", "ev-3", "/workspace"),
        obs(6, "call_date", "ev-4", "date: not found", is_error=True),
        event(
            7,
            "MessageEvent",
            "agent",
            llm_message={"role": "assistant", "content": [{"type": "text", "text": "/workspace; no date."}]},
        ),
    ]


def test_a_v1_sdk_event_list_pairs_calls_by_tool_call_id(tmp_path):
    session = load(write(tmp_path / "events.json", v1_events()))
    validate(session.messages)
    assert (session.format, session.system) == ("openhands", "You are an SDK agent.")
    assert calls(session.messages) == [
        ("call_pwd", "terminal", {"command": "pwd"}),
        ("call_date", "terminal", {"command": "date"}),
    ]
    assert results(session.messages) == [
        ("call_pwd", "/workspace", False),
        ("call_date", "date: not found", True),
    ]
    assert [m["role"] for m in session.messages] == ["user", "assistant", "user", "assistant"]
    assert session.messages[1]["content"][0] == {"type": "text", "text": "Two quick commands."}
    assert session.ignored == {"ConversationStateUpdateEvent": 1}
    assert session.problems == []


@pytest.mark.parametrize("indent", [4, None])
def test_openhands_is_told_from_the_content(tmp_path, indent):
    assert load(write(tmp_path / "a.json", trajectory(), indent)).format == "openhands"
    assert load(write(tmp_path / "b.json", v1_events(), indent)).format == "openhands"
    chat = [{"role": "user", "content": "hi", "source": "me", "kind": "note"}]
    assert load(write(tmp_path / "c.json", chat, indent)).format == "anthropic-messages"
    assert "openhands" in FORMATS
    assert load(write(tmp_path / "d.json", trajectory(), indent), format="openhands").format == "openhands"


def test_one_v1_event_file_alone_is_named_as_such(tmp_path):
    path = write(tmp_path / "event-00001-ev-1.json", v1_events()[1])
    with pytest.raises(NotASession, match="one OpenHands event"):
        load(path)


def test_replay_on_a_trajectory_exits_0_and_prints_a_table(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    path = write(tmp_path / "trajectory.json", trajectory())
    status = cli.main(["replay", str(path), "--strategy", "none"])
    captured = capsys.readouterr()
    out, err = " ".join(captured.out.split()), " ".join(captured.err.split())
    assert status == 0
    assert "trajectory.json: openhands, 6 messages" in out
    assert "trajectory.json: window" in out
    # what the importer left out is a problem report: on stderr, with the tables on stdout
    assert "left out by design (never sent to the model): 2 agent_state_changed observation records" in err
    status = cli.main(["replay", str(path), "--format", "openhands", "--strategy", "none"])
    assert status == 0 and "openhands" in capsys.readouterr().out


def test_an_observation_of_a_type_openhands_does_not_define_is_kept_and_reported(tmp_path):
    events = [
        action(1, "message", {"content": "Build it."}, source="user"),
        action(2, "run", {"command": "make"}),
        observation(3, "teleport", "arrived", 2),  # not in openhands/core/schema/observation.py
    ]
    session = load(write(tmp_path / "odd.json", events))
    validate(session.messages)
    assert results(session.messages) == [("event_2", "arrived", False)]  # kept as the call's result
    assert [(p.where, p.rule, p.detail) for p in session.problems] == [
        ("events[2] (id 3)", "unknown_kept", "observation 'teleport', kept as a result")
    ]


def test_fields_of_an_unexpected_type_are_read_or_the_event_is_named_never_a_traceback(tmp_path):
    ls = metadata(
        "toolu_ls", "execute_bash", response("r1", "", [("toolu_ls", "execute_bash", {"command": "ls"})])
    )
    events = [
        action(1, "message", {"content": "Look.", "image_urls": "https://example.com/a.png"}, source="user"),
        action(2, "run", {"command": "ls"}, meta=ls),
        observation(3, "run", "a.txt", [2], meta=ls),  # a cause that is a list: no id to pair by
        {**action(5, "message", {"content": "Done."}), "id": {"odd": 1}},  # an id that is an object
    ]
    session = load(write(tmp_path / "odd.json", events))
    validate(session.messages)
    first = session.messages[0]["content"]
    assert [b["type"] for b in first] == ["text", "image"]  # one image for the one url, not one per letter
    assert results(session.messages) == [("toolu_ls", "a.txt", False)]  # paired by its tool-call id
    assert "Done." in json.dumps(session.messages[-1])


def test_a_v1_message_whose_content_is_plain_text_is_kept(tmp_path):
    events = v1_events()
    message = next(e for e in events if e.get("kind") == "MessageEvent")
    message["llm_message"]["content"] = "Fix the parser."
    session = load(write(tmp_path / "v1.json", events))
    assert session.messages[0]["content"] == [{"type": "text", "text": "Fix the parser."}]


def finish_session(tmp_path, args, said):
    """A user question, the agent's answer, then the agent's call to ``finish`` (basic_interactions)."""
    meta = metadata("call_fin", "finish", response("chatcmpl-9", said, [("call_fin", "finish", {})]))
    events = [
        action(0, "message", {"content": "what's 1+1?"}, source="user"),
        action(3, "message", {"content": "1 + 1 equals 2."}),
        action(6, "message", {"content": "Finish please"}, source="user"),
        action(9, "finish", args, meta=meta),
    ]
    events[-1]["message"] = "All done! What's next on the agenda?"  # OpenHands' default, not the model's
    return load(write(tmp_path / "finish.json", events))


def test_a_bare_call_to_finish_is_the_agents_last_message_not_an_empty_record(tmp_path):
    session = finish_session(tmp_path, {"outputs": {}, "thought": ""}, None)
    validate(session.messages)
    assert session.messages[-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "[tool call finish {}]"}],
    }
    assert "empty" not in session.ignored and session.problems == []
    assert session.tally() == {"read as messages": 4}


def test_a_finish_says_its_thought_then_the_models_own_text_as_conversation_memory_does(tmp_path):
    session = finish_session(tmp_path, {"outputs": {}, "thought": "The sum is 2."}, "Goodbye.")
    assert session.messages[-1]["content"] == [{"type": "text", "text": "The sum is 2.\nGoodbye."}]
