"""The SDK 2.16 tool runner's surface against ``compaction.connect()``: threads, streaming, tools, refusals.

Driven through the installed SDK (``anthropic/lib/tools/_beta_runner.py``): ``thread=False`` sends no
``thread`` and the whole history every turn (the default asks for a thread, and the offline server's
``thread_unsupported_request`` makes the runner go on without one); ``stream=True`` with
``run_tools_eagerly`` runs each call while the reply streams, from the server's server-sent events;
``add_tools()`` and ``remove_tools()`` reach the server as ``tool_addition`` and ``tool_removal`` blocks
and change what the model calls, while the cached prefix is read back, where changing ``tools`` (which
``thread=False`` allows) misses it; the runner refuses ``compaction=`` and ``compact_before_next_turn()``
with a compaction edit before anything is sent.
"""

from __future__ import annotations

import json

import anthropic
import httpx
import pytest
from anthropic import beta_tool

from compaction.agent.backend import DEFAULT_MODEL, connect
from compaction.offline.server.tool_changes import BETA_INLINE_TOOLS

TASK = [{"role": "user", "content": "Read src/a.py and src/b.py, then say what they do."}]
ran: list[str] = []


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the user's project and return its text."""
    ran.append(f"read {path}")
    return f"def {path.split('/')[-1][0]}():\n    return 1\n" * 40


@beta_tool
def fetch_file(path: str) -> str:
    """Fetch a file of the user's project and return its text."""
    ran.append(f"fetch {path}")
    return f"def {path.split('/')[-1][0]}():\n    return 2\n" * 40


def recording(sent: list[tuple[dict, int]]) -> anthropic.Anthropic:
    """An offline client that records each request body with the status it got."""
    bodies: list[dict] = []

    def request(req: httpx.Request) -> None:
        bodies.append(json.loads(req.read() or b"null"))

    def response(res: httpx.Response) -> None:
        sent.append((bodies[-1], res.status_code))

    hooks = {"request": [request], "response": [response]}
    return connect().with_options(http_client=anthropic.DefaultHttpxClient(event_hooks=hooks))


def runner_for(client, **params):
    ran.clear()
    options = {"model": DEFAULT_MODEL, "max_tokens": 512, "tools": [read_file], "messages": TASK}
    return client.beta.messages.tool_runner(**{**options, **params})


def test_thread_false_sends_no_thread_and_the_default_recovers_from_the_refusal():
    seen = {}
    for thread in (None, False):
        sent: list[tuple[dict, int]] = []
        runner = runner_for(recording(sent), **({} if thread is None else {"thread": thread}))
        assert runner.until_done().stop_reason == "end_turn"
        seen[thread] = [("thread" in body, len(body["messages"]), status) for body, status in sent]
    # the default asks for a thread, is refused (thread_unsupported_request), sends the turn unthreaded
    assert seen[None] == [(True, 1, 400), (False, 1, 200), (False, 3, 200), (False, 5, 200)]
    assert seen[False] == seen[None][1:]  # thread=False: the whole history every turn from the start


def test_run_tools_eagerly_runs_each_call_while_the_reply_streams():
    for eager in (False, True):
        runner = runner_for(connect(), stream=True, run_tools_eagerly=eager)
        during = []
        for stream in runner:
            kinds = [event.type for event in stream]
            during.append(len(ran))  # calls run before the loop body has ended
            if stream.get_final_message().stop_reason == "end_turn":
                assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
        assert during == ([1, 2, 2] if eager else [0, 1, 2])
    with pytest.raises(ValueError, match="mutually exclusive"):
        runner_for(connect(), run_tools_eagerly=True)


SYSTEM = "You help with a small Python project. " * 80  # a prefix long enough to be cached


def test_add_tools_and_remove_tools_change_what_the_model_calls_and_keep_the_cached_prefix():
    sent: list[tuple[dict, int]] = []
    cached = {"cache_control": {"type": "ephemeral"}, "betas": [BETA_INLINE_TOOLS], "thread": False}
    runner = runner_for(recording(sent), system=SYSTEM, **cached)
    usage = []
    with pytest.warns(UserWarning, match="Tool 'read_file' not found in tool runner"):
        for k, message in enumerate(runner):
            usage.append(message.usage)
            if k == 0:  # read_file stops running at once: its pending call gets an error result
                runner.add_tools(fetch_file)
                runner.remove_tools("read_file")
    assert ran == ["fetch src/b.py", "fetch src/a.py"]  # then the model calls the tool it was given
    changes = sent[1][0]["messages"][-1]
    assert changes["role"] == "system"
    assert [b["type"] for b in changes["content"]] == ["tool_addition", "tool_removal"]
    first = usage[0].input_tokens + usage[0].cache_creation_input_tokens + usage[0].cache_read_input_tokens
    assert usage[1].cache_read_input_tokens == first  # the tools array and every earlier message
    edited = runner_for(connect(), system=SYSTEM, **cached)  # the same change made by editing tools
    reads = []
    for k, message in enumerate(edited):
        reads.append(message.usage.cache_read_input_tokens)
        if k == 0:  # allowed with thread=False
            edited.set_messages_params(lambda p: {**p, "tools": [read_file.to_dict(), fetch_file.to_dict()]})
    assert reads[1] == 0  # the tools come first in the prefix: nothing is read back


def test_the_runner_refuses_compaction_and_a_compaction_edit_with_compact_before_next_turn():
    runner = runner_for(connect())
    with pytest.raises(ValueError, match="`compaction` cannot be set on a tool runner"):
        runner.set_messages_params(lambda p: {**p, "compaction": {"type": "summarize"}})
    edit = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}]}
    runner = runner_for(connect(), context_management=edit, betas=["compact-2026-01-12"])
    with pytest.raises(ValueError, match="can't be used while `context_management` has a compaction edit"):
        runner.compact_before_next_turn()
