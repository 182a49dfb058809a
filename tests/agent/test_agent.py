"""The agent loop, against a tiny scripted client: turns, records, hooks, and errors kept, not raised."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anthropic
import httpx
import pytest

from compaction.agent.backend import connect
from compaction.agent.loop import SessionResult, _sample_json, new_workspace, run_agent, sample_session
from compaction.core.api_errors import is_prompt_too_long
from compaction.core.failures import ReactiveCompactFailed, SummaryFailed
from compaction.core.messages import tool_result_blocks, validate
from compaction.core.placeholders import continuation_text
from compaction.pipeline.hooks import Hooks


def response(*blocks, stop_reason=None, input_tokens=100):
    """A real SDK Message, as client.messages.create returns it."""
    content = [{"type": "text", "text": b} if isinstance(b, str) else b for b in blocks]
    uses = any(b["type"] == "tool_use" for b in content)
    return anthropic.types.Message(
        id="msg_1",
        type="message",
        role="assistant",
        model="fake",
        content=content,
        stop_reason=stop_reason or ("tool_use" if uses else "end_turn"),
        stop_sequence=None,
        usage={"input_tokens": input_tokens, "output_tokens": 7},
    )


def use(id, name, **args):
    return {"type": "tool_use", "id": id, "name": name, "input": args}


def bad_request(message):
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return anthropic.BadRequestError(
        f"Error code: 400 - {body}", response=httpx.Response(400, request=request), body=body
    )


class FakeClient:
    """Answers messages.create from a script: each item is a Message or an exception to raise."""

    def __init__(self, *script):
        self.script = list(script)
        self.calls = []  # the kwargs of every create call, messages copied
        self.messages = self

    def create(self, **kwargs):
        self.calls.append(json.loads(json.dumps(kwargs)))
        validate(kwargs["messages"])
        item = self.script.pop(0)
        if isinstance(item, Exception):
            raise item
        return item


@pytest.fixture
def workspace(tmp_path):
    (tmp_path / "notes.txt").write_text("hello\n")
    return tmp_path


def test_a_session_runs_tools_until_the_model_stops(workspace):
    client = FakeClient(
        response("Let me look.", use("t1", "read_file", path="notes.txt"), use("t2", "glob", pattern="*")),
        response("Done."),
    )
    result = run_agent(client, workspace=workspace, task="Read the notes.")
    assert isinstance(result, SessionResult) and result.error is None
    assert [m["role"] for m in result.messages] == ["user", "assistant", "user", "assistant"]
    results = tool_result_blocks(result.messages[2])
    assert [r["tool_use_id"] for r in results] == ["t1", "t2"]
    assert results[0]["content"] == "     1\thello"
    assert results[1]["content"] == "notes.txt"
    validate(result.messages)


def test_every_call_sends_the_task_system_prompt_and_tools(workspace):
    client = FakeClient(response("Done."))
    run_agent(client, workspace=workspace, task="Do it.", system="Be brief.", model="m", max_tokens=9)
    call = client.calls[0]
    assert call["messages"] == [{"role": "user", "content": "Do it."}]
    assert (call["system"], call["model"], call["max_tokens"]) == ("Be brief.", "m", 9)
    assert [t["name"] for t in call["tools"]][:2] == ["bash", "read_file"]


def test_prepare_runs_before_every_call_and_its_output_is_what_is_sent_and_kept(workspace):
    seen = []

    def prepare(messages):
        seen.append(len(messages))
        return messages[:1] + [dict(m) for m in messages[1:]]  # a new list, as a layer returns

    client = FakeClient(
        response(use("t1", "bash", command="echo hi")),
        response(use("t2", "bash", command="true")),
        response("ok"),
    )
    result = run_agent(client, workspace=workspace, task="go", hooks=Hooks(prepare=prepare))
    assert seen == [1, 3, 5]
    assert [len(c["messages"]) for c in client.calls] == [1, 3, 5]
    assert [len(t.messages) for t in result.turns] == [1, 3, 5]


def test_each_turn_is_recorded_with_tokens_tool_calls_and_stop_reason(workspace):
    client = FakeClient(
        response(use("t1", "glob", pattern="*"), input_tokens=321), response("bye", input_tokens=400)
    )
    seen = []
    result = run_agent(client, workspace=workspace, task="go", on_turn=seen.append)
    first, second = result.turns
    assert (first.index, first.input_tokens, first.output_tokens) == (0, 321, 7)
    assert (first.tool_calls, first.stop_reason) == (["glob"], "tool_use")
    assert (second.index, second.tool_calls, second.stop_reason) == (1, [], "end_turn")
    assert 0 < first.estimated_tokens < second.estimated_tokens
    assert seen == result.turns


def test_max_turns_bounds_the_number_of_calls(workspace):
    client = FakeClient(*[response(use(f"t{i}", "bash", command="true")) for i in range(10)])
    result = run_agent(client, workspace=workspace, task="loop", max_turns=3)
    assert len(client.calls) == 3 and len(result.turns) == 3
    validate(result.messages)


def test_a_tool_error_is_a_result_for_the_model_not_an_exception(workspace):
    client = FakeClient(response(use("t1", "read_file", path="../etc/passwd")), response("sorry"))
    result = run_agent(client, workspace=workspace, task="go")
    block = tool_result_blocks(result.messages[2])[0]
    assert block["is_error"] is True and result.error is None


def test_an_sdk_error_ends_the_session_and_is_stored_not_raised(workspace):
    error = bad_request("prompt is too long: 9120 tokens > 8000 maximum")
    client = FakeClient(response(use("t1", "glob", pattern="*")), error)
    result = run_agent(client, workspace=workspace, task="go")
    assert result.error is error
    assert is_prompt_too_long(result.error)
    assert result.turns[-1].input_tokens is None
    assert result.turns[-1].error.startswith("BadRequestError: Error code: 400")
    assert len(result.messages) == 3  # the list that was refused


def test_raise_errors_re_raises_the_sdk_error(workspace):
    client = FakeClient(bad_request("prompt is too long: 10 tokens > 5 maximum"))
    with pytest.raises(anthropic.BadRequestError):
        run_agent(client, workspace=workspace, task="go", raise_errors=True)


def test_on_prompt_too_long_gets_one_retry_with_what_it_returns(workspace):
    calls = []

    def shrink(messages, error):
        calls.append(str(error))
        return [{"role": "user", "content": "summary of earlier work"}]

    client = FakeClient(
        response(use("t1", "glob", pattern="*")),
        bad_request("prompt is too long: 9 > 8 maximum"),
        response("ok"),
    )
    result = run_agent(client, workspace=workspace, task="go", hooks=Hooks(on_prompt_too_long=shrink))
    assert result.error is None and len(calls) == 1
    assert client.calls[-1]["messages"] == [{"role": "user", "content": "summary of earlier work"}]
    assert [t.error is None for t in result.turns] == [True, False, True]
    assert [t.index for t in result.turns] == [0, 1, 1]  # the refused call and its retry: one turn


def test_a_second_refusal_after_the_retry_ends_the_session(workspace):
    first, second = (
        bad_request("prompt is too long: 9 > 8 maximum"),
        bad_request("prompt is too long: 9 > 8 maximum"),
    )
    summary = continuation_text("S", ".transcripts/transcript-0001.jsonl", messages=9)
    client = FakeClient(first, second, response("never"))
    result = run_agent(
        client,
        workspace=workspace,
        task="go",
        hooks=Hooks(on_prompt_too_long=lambda m, e: [{"role": "user", "content": summary}]),
    )
    assert isinstance(result.error, ReactiveCompactFailed) and len(client.calls) == 2
    assert result.error.error is second
    assert ".transcripts/transcript-0001.jsonl" in str(result.error)  # where the full history is


def test_a_413_request_too_large_is_recovered_like_a_prompt_too_long(workspace):
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    too_large = anthropic.APIStatusError(
        "Error code: 413 - request too large", response=httpx.Response(413, request=request), body=None
    )
    client = FakeClient(too_large, response("ok"))
    result = run_agent(
        client,
        workspace=workspace,
        task="go",
        hooks=Hooks(on_prompt_too_long=lambda m, e: [{"role": "user", "content": "s"}]),
    )
    assert result.error is None and client.calls[-1]["messages"] == [{"role": "user", "content": "s"}]


def test_a_recovery_that_cannot_summarize_ends_the_session_with_a_clear_error(workspace):
    def cannot(messages, error):
        raise SummaryFailed("the summary answer is empty", Path("t/transcript-0002.jsonl"))

    client = FakeClient(bad_request("prompt is too long: 9 > 8 maximum"))
    result = run_agent(client, workspace=workspace, task="go", hooks=Hooks(on_prompt_too_long=cannot))
    assert isinstance(result.error, ReactiveCompactFailed)
    assert "transcript-0002.jsonl" in str(result.error) and "empty" in str(result.error)


def test_other_bad_requests_do_not_trigger_the_retry_hook(workspace):
    hook = []
    client = FakeClient(bad_request("messages.0: something else"))
    result = run_agent(
        client, workspace=workspace, task="go", hooks=Hooks(on_prompt_too_long=lambda m, e: hook.append(m))
    )
    assert hook == [] and isinstance(result.error, anthropic.BadRequestError)


def test_on_response_sees_what_was_sent_and_the_sdk_response(workspace):
    seen = []
    client = FakeClient(response("hi", input_tokens=55))
    run_agent(
        client,
        workspace=workspace,
        task="go",
        hooks=Hooks(on_response=lambda sent, r: seen.append((sent, r))),
    )
    ((sent, r),) = seen
    assert sent == [{"role": "user", "content": "go"}] and r.usage.input_tokens == 55


def test_the_compact_tool_calls_on_compact_with_the_focus_after_the_results(workspace):
    seen = []

    def on_compact(messages, focus):
        seen.append((len(messages), focus))
        return [messages[0]] + messages[-2:]  # keep the task and the compact exchange

    client = FakeClient(
        response(use("t1", "glob", pattern="*")),
        response(use("t2", "bash", command="echo x"), use("t3", "compact", focus="the tests")),
        response("done"),
    )
    result = run_agent(client, workspace=workspace, task="go", hooks=Hooks(on_compact=on_compact))
    assert seen == [(5, "the tests")]
    sent = client.calls[-1]["messages"]
    assert len(sent) == 3
    bash_result, compact_result = tool_result_blocks(sent[-1])
    assert bash_result["content"] == "x\n"
    assert compact_result["content"] == "Compacted the conversation: 5 messages -> 3 messages."
    validate(result.messages)


def test_the_compact_tool_without_a_hook_is_an_error_result(workspace):
    client = FakeClient(response(use("t1", "compact")), response("ok"))
    result = run_agent(client, workspace=workspace, task="go")
    block = tool_result_blocks(result.messages[2])[0]
    assert block["is_error"] is True and "not available" in block["content"]


def test_the_loop_never_mutates_what_prepare_returned(workspace):
    kept = []

    def prepare(messages):
        kept.append((messages, json.dumps(messages)))
        return messages

    client = FakeClient(
        response(use("t1", "glob", pattern="*")), response(use("t2", "glob", pattern="*")), response("ok")
    )
    run_agent(client, workspace=workspace, task="go", hooks=Hooks(prepare=prepare))
    assert all(json.dumps(m) == snapshot for m, snapshot in kept)


def test_a_bad_max_turns_is_refused_by_name(workspace):
    with pytest.raises(ValueError, match="max_turns"):
        run_agent(FakeClient(), workspace=workspace, task="go", max_turns=0)


# ------------------------------------------------------------ against the offline model


def test_new_workspace_copies_the_practice_project(tmp_path):
    folder = new_workspace(tmp_path / "ws")
    assert folder == tmp_path / "ws"
    assert (folder / "run_tests.py").is_file()
    assert not list(folder.rglob("__pycache__"))
    fresh = new_workspace()
    try:
        assert fresh != folder and (fresh / "run_tests.py").is_file()
    finally:
        shutil.rmtree(fresh)


def test_the_offline_agent_fills_a_small_window_and_gets_the_apis_error(tmp_path):
    result = run_agent(connect(context_window=6000), workspace=new_workspace(tmp_path / "ws"), max_turns=80)
    assert is_prompt_too_long(result.error)
    assert isinstance(result.error, anthropic.BadRequestError)
    last = result.turns[-1]
    assert last.input_tokens is None and last.estimated_tokens > 6000
    answered = [t for t in result.turns if t.input_tokens is not None]
    assert all(t.input_tokens <= 6000 for t in answered)
    assert [t.estimated_tokens for t in answered] == sorted(t.estimated_tokens for t in answered)
    validate(result.messages)


def test_sample_session_is_deterministic_valid_and_a_fresh_copy_each_time():
    first = sample_session(turns=12, seed=3)
    first[0]["content"] = "mutated by a caller"
    second = sample_session(turns=12, seed=3)
    assert second[0]["content"] != "mutated by a caller"
    validate(second)
    assert json.loads(json.dumps(second)) == second
    assert sum(1 for m in second if m["role"] == "assistant") == 12
    text = json.dumps(second)
    assert "/tmp" not in text and "compaction-ws-" not in text


def test_two_fresh_runs_of_the_sample_session_are_identical():
    first = sample_session(turns=8, seed=5)
    _sample_json.cache_clear()
    assert sample_session(turns=8, seed=5) == first
    assert sample_session(turns=8, seed=6) != first  # the seed changes the ids
