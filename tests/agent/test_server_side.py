"""Letting the API manage the context, through the real SDK against ``compaction.connect()``.

The issue's "done when" figures first (24 tool results, keep 3: 21 cleared; a paused compaction and
its round trip; count_tokens' original count), then the client side: ``ServerManaged``, ``UsageLog``,
``client_keeps``, and a session that runs with every non-loopback connection refused.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from api_sessions import COMPACT, CONTEXT, TOOLS, tool_session

from compaction.agent.backend import connect
from compaction.agent.server_side import (
    PRICE,
    ServerManaged,
    UsageLog,
    cache_breaks_from_usage,
    client_keeps,
    input_cost,
    run_managed_session,
)
from compaction.core.messages import assistant, from_response, text, tool_result, tool_use, user
from compaction.core.models import CLAUDE_MODEL, MODELS
from compaction.core.tokens import estimate_tokens
from compaction.offline.server.context_edits import PLACEHOLDER

MODEL = "claude-any"


def tokens(messages) -> int:
    return estimate_tokens(messages, "tiktoken", tools=TOOLS)


def test_done_when_keep_3_of_24_tool_results_clears_21_and_sends_fewer_tokens():
    session = tool_session(24)
    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000}}
    edit["keep"] = {"type": "tool_uses", "value": 3}
    answer = connect().beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=session,
        tools=TOOLS,
        betas=[CONTEXT],
        context_management={"edits": [edit]},
    )
    [applied] = answer.context_management.applied_edits
    assert applied.cleared_tool_uses == 21
    assert answer.usage.input_tokens < tokens(session)
    cleared = sum(
        b.get("content") == PLACEHOLDER for m in session for b in m["content"] if isinstance(b, dict)
    )
    assert cleared == 0  # the client's list is untouched: the edit happened on the server


def test_done_when_a_paused_compaction_returns_the_block_and_sending_it_back_cuts_the_input():
    session = tool_session(24)
    edits = {
        "edits": [
            {
                "type": "compact_20260112",
                "trigger": {"type": "input_tokens", "value": 3000},
                "pause_after_compaction": True,
            }
        ]
    }
    client = connect(course_scale=True)  # a 3,000-token trigger: the offline server's own scale
    paused = client.beta.messages.create(
        model=MODEL, max_tokens=64, messages=session, tools=TOOLS, betas=[COMPACT], context_management=edits
    )
    assert paused.stop_reason == "compaction" and [b.type for b in paused.content] == ["compaction"]
    block = from_response(paused)
    again = client.beta.messages.create(
        model=MODEL,
        max_tokens=64,
        messages=session + [block],
        tools=TOOLS,
        betas=[COMPACT],
        context_management=edits,
    )
    assert again.usage.input_tokens == tokens([block]) < tokens(session)


def test_done_when_count_tokens_reports_the_original_input_tokens():
    session = tool_session(24)
    edit = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1000}}
    counted = connect().beta.messages.count_tokens(
        model=MODEL, messages=session, tools=TOOLS, betas=[CONTEXT], context_management={"edits": [edit]}
    )
    assert counted.context_management.original_input_tokens == tokens(session) > counted.input_tokens


def test_server_managed_sends_the_edits_their_betas_and_a_cache_mark():
    clear = {"type": "clear_tool_uses_20250919"}
    both = ServerManaged(connect(), edits=[clear, {"type": "compact_20260112"}]).options()
    assert both["betas"] == [COMPACT, CONTEXT] and both["context_management"]["edits"][0] == clear
    assert both["cache_control"] == {"type": "ephemeral"}
    assert ServerManaged(connect(), cache=False).options() == {}
    with pytest.raises(ValueError, match="clear_everything"):
        ServerManaged(connect(), edits=[{"type": "clear_everything"}])
    scoped = ServerManaged(connect(), cache=False, betas=["mid-conversation-system-clear-at-2026-08-21"])
    assert scoped.options() == {"betas": ["mid-conversation-system-clear-at-2026-08-21"]}  # no edit: its own


def test_a_managed_session_takes_the_users_task_and_a_prepare_hook_whose_list_it_keeps():
    note = {"role": "system", "content": "Keep answers short.", "clear_at": "next_user_message"}

    def remind(messages):
        """A turn-scoped note after each tool-result message."""
        last = messages[-1]
        results = last["role"] == "user" and isinstance(last["content"], list)
        return messages + [note] if results else messages

    betas = ["mid-conversation-system-clear-at-2026-08-21"]
    log, result = run_managed_session(
        [], window=8_000, turns=3, task="Look around.", prepare=remind, betas=betas
    )
    assert result.error is None and result.messages[0]["content"] == "Look around."
    roles = [m["role"] for m in result.messages]
    assert roles[:5] == ["user", "assistant", "user", "system", "assistant"]  # appended, kept, answered after
    assert roles.count("system") == 2 and len(log.sent) == 3
    with pytest.raises(ValueError, match="prepare: the course's pipeline prepares the list itself"):
        run_managed_session([], window=8_000, turns=1, pipeline=True, prepare=remind)


def test_a_ledger_records_usage_reads_and_breaks_of_real_responses():
    log, client = UsageLog(), ServerManaged(connect())
    session = tool_session(6)
    for messages in (session, session + [assistant(text("More.")), user("Go on.")], session):
        response = client.create(model=MODEL, max_tokens=64, messages=messages, tools=TOOLS)
        log.on_response(messages, response)
    assert log.sent == [
        tokens(session),
        tokens(session[:]) + log.sent[1] - tokens(session),
        tokens(session),
    ]
    assert log.read[1] == log.sent[0]  # appended: the whole first request read back
    assert log.breaks() == [2]  # the third request dropped what the second added
    assert log.cost[0] == pytest.approx(PRICE["5m"] * log.written[0] + log.sent[0] - log.written[0])


def test_input_cost_reads_dicts_and_sdk_objects_alike():
    usage = {
        "input_tokens": 10,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 20,
        "cache_creation": {"ephemeral_5m_input_tokens": 20, "ephemeral_1h_input_tokens": 0},
    }
    row = MODELS[CLAUDE_MODEL]  # the default model's documented prices, as multiples of its input price
    assert PRICE == {"input": 1.0, "5m": 1.25, "1h": 2.0, "read": row.cache_read / row.input_price}
    assert PRICE["read"] == pytest.approx(0.05)  # Claude Sonnet 5.5: "0.05x the base input price"
    assert input_cost(usage) == pytest.approx(10 + 0.05 * 100 + 1.25 * 20)
    one_hour = {**usage, "cache_creation": {"ephemeral_5m_input_tokens": 5, "ephemeral_1h_input_tokens": 15}}
    assert input_cost(one_hour) == pytest.approx(10 + 0.05 * 100 + 1.25 * 5 + 2.0 * 15)
    response = connect().messages.create(model=MODEL, max_tokens=8, messages=[user("hi")])
    assert input_cost(response.usage) == response.usage.input_tokens


def test_a_cache_break_in_usage_is_a_read_shorter_than_what_the_call_before_left():
    assert cache_breaks_from_usage([0, 1100, 500, 1200], [1100, 400, 700, 0]) == [2]  # read 500 of 1,500 left
    assert cache_breaks_from_usage([0, 0, 0, 1100], [0, 0, 1100, 300]) == []  # under the minimum: none
    assert cache_breaks_from_usage([], []) == [] and cache_breaks_from_usage([0], [5000]) == []


def test_client_keeps_the_users_words_and_each_changed_file_once():
    messages = [
        user("Fix it, but never touch tests/."),
        assistant(tool_use("toolu_1", "edit_file", {"path": "a.py", "old_text": "x", "new_text": "y"})),
        user(tool_result("toolu_1", "ok"), text("And keep the API stable.")),
        assistant(
            tool_use("toolu_2", "write_file", {"path": "a.py", "content": "z"}),
            tool_use("toolu_3", "write_file", {"path": "NOTES.md", "content": "n"}),
        ),
        user(tool_result("toolu_2", "ok"), tool_result("toolu_3", "ok")),
    ]
    assert client_keeps(messages) == {
        "user_words": ["Fix it, but never touch tests/.", "And keep the API stable."],
        "files_changed": ["a.py", "NOTES.md"],
    }


OFFLINE_RUN = """
import socket

real_connect, real_create = socket.socket.connect, socket.create_connection

def loopback_only(self, address):
    if isinstance(address, tuple) and address[0] not in ("127.0.0.1", "::1", "localhost"):
        raise OSError(101, f"network is unreachable (test): {address!r}")
    return real_connect(self, address)

def create_loopback_only(address, *args, **kwargs):
    if address[0] not in ("127.0.0.1", "::1", "localhost"):
        raise OSError(101, f"network is unreachable (test): {address!r}")
    return real_create(address, *args, **kwargs)

socket.socket.connect, socket.create_connection = loopback_only, create_loopback_only

from compaction.agent.server_side import run_managed_session

edits = [
    {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 4000},
     "clear_at_least": {"type": "input_tokens", "value": 2000}},
    {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 5000}},
]
log, result = run_managed_session(edits, window=8000, turns=30, server_options={"course_scale": True})
assert result.error is None, result.error
print("calls", len(log.sent), "cleared", max(log.cleared), "read", sum(log.read))
"""


def test_server_side_management_runs_with_the_network_cut_off_except_loopback(tmp_path):
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty-cache")}
    env.pop("COMPACTION_BACKEND", None)
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_RUN], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    words = done.stdout.split()
    assert words[1] == "30" and int(words[3]) > 0 and int(words[5]) > 0
