"""The offline server speaks the Messages API on 127.0.0.1 and refuses what the real API refuses.

Every request goes through the real ``anthropic`` SDK (or raw HTTP for what the SDK never sends),
so a rejection here is the same ``anthropic.BadRequestError`` a learner meets with the real API.
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections import OrderedDict

import anthropic
import pytest
from conversations import sessions
from hypothesis import given
from hypothesis import strategies as st

from compaction.agent.backend import DEFAULT_MODEL, connect
from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.core.tokens import estimate_tokens
from compaction.offline import OfflineServer, shared_server
from compaction.offline.server.api import HEADER_MAX_TOKENS_CHECK, HEADER_WINDOW, TokenCounts
from compaction.offline.server.on_demand import BETA_ON_DEMAND

MODEL = "any-model-name"
TOOLS = [{"name": "bash", "description": "Run a command.", "input_schema": {"type": "object"}}]


@pytest.fixture(autouse=True)
def network_cut_off(monkeypatch):
    """Every test here runs with connections refused to anything but loopback."""
    real_connect = socket.socket.connect

    def loopback_only(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in ("127.0.0.1", "localhost", "::1"):
            raise OSError(f"network cut off in tests: {host}")
        return real_connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", loopback_only)


def create(client, messages, **kwargs):
    return client.messages.create(model=MODEL, max_tokens=256, messages=messages, **kwargs)


def rejection(messages, **kwargs) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(connect(), messages, **kwargs)
    assert caught.value.status_code == 400
    assert caught.value.body["type"] == "error"
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    return caught.value.body["error"]["message"]


def test_a_round_trip_through_the_real_sdk_returns_an_api_shaped_message():
    response = create(connect(), [user("Hello")])
    assert response.type == "message" and response.role == "assistant"
    assert response.id.startswith("msg_") and response.model == MODEL
    assert response.stop_reason == "end_turn"
    assert response.content[0].type == "text" and response.content[0].text
    assert response.usage.input_tokens == estimate_tokens([user("Hello")], "tiktoken")
    assert response.usage.output_tokens > 0


def test_with_the_course_tools_offered_the_model_answers_with_tool_use():
    response = create(connect(), [user("Fix the tests.")], tools=TOOL_DEFINITIONS)
    assert response.stop_reason == "tool_use"
    assert [b.type for b in response.content][0] == "text"
    assert any(b.type == "tool_use" and b.id.startswith("toolu_") for b in response.content)


def test_count_tokens_agrees_with_the_input_tokens_of_create():
    messages = [user("Read the file."), assistant(tool_use("toolu_1", "bash", {"command": "ls"}))]
    messages.append(user(tool_result("toolu_1", "a.py\nb.py\n" * 50)))
    client = connect()
    system = "You are a careful agent."
    counted = client.messages.count_tokens(model=MODEL, messages=messages, system=system, tools=TOOLS)
    created = create(client, messages, system=system, tools=TOOLS)
    assert counted.input_tokens == created.usage.input_tokens
    assert counted.input_tokens == estimate_tokens(messages, "tiktoken", system=system, tools=TOOLS)


def test_an_orphan_tool_result_is_refused_with_the_api_wording():
    message = rejection([user(tool_result("toolu_nowhere", "output"))])
    assert message.startswith("messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks")
    assert "toolu_nowhere" in message


def test_text_before_the_tool_results_is_refused_as_an_unanswered_tool_use():
    messages = [user("go"), assistant(tool_use("toolu_a", "bash", {"command": "ls"}))]
    messages.append(user(text("note first"), tool_result("toolu_a", "done")))
    message = rejection(messages, tools=TOOLS)
    assert message.startswith("messages.1: `tool_use` ids were found without `tool_result` blocks")
    assert "toolu_a" in message


def test_an_unanswered_tool_use_is_refused():
    messages = [user("go"), assistant(tool_use("toolu_b", "bash", {"command": "ls"})), user("and now?")]
    message = rejection(messages, tools=TOOLS)
    assert message.startswith("messages.1: `tool_use` ids were found without `tool_result` blocks")


def test_two_user_turns_in_a_row_are_merged_as_the_api_merges_them():
    both = create(connect(), [user("one"), user("two")])
    assert both.stop_reason == "end_turn"
    assert "2 words, in a conversation of 1 messages" in both.content[0].text  # one merged turn


def test_text_merged_in_front_of_tool_results_is_refused_at_the_index_sent():
    messages = [user("go"), assistant(tool_use("toolu_m", "bash", {"command": "ls"}))]
    messages += [user("a note"), user(tool_result("toolu_m", "done"))]
    message = rejection(messages, tools=TOOLS)
    assert message.startswith("messages.1: `tool_use` ids were found without `tool_result` blocks")


def test_two_assistant_turns_in_a_row_are_merged_too():
    messages = [user("go"), assistant("Let me look.")]
    messages.append(assistant(tool_use("toolu_n", "bash", {"command": "ls"})))
    messages.append(user(tool_result("toolu_n", "a.py")))
    assert create(connect(), messages, tools=TOOL_DEFINITIONS).stop_reason == "tool_use"


def test_a_first_message_from_the_assistant_is_refused():
    assert rejection([assistant("I start"), user("hi")]).startswith("messages.0")


def test_empty_content_is_refused():
    assert "non-empty" in rejection([user("hi"), {"role": "assistant", "content": []}])


def test_a_prompt_over_the_window_is_too_long_with_both_figures():
    messages = [user("word " * 400)]
    used = estimate_tokens(messages, "tiktoken")
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(connect(context_window=100), messages)
    assert caught.value.body["error"]["message"] == f"prompt is too long: {used} tokens > 100 maximum"


def test_clients_with_different_windows_share_one_server():
    small, big = connect(context_window=50), connect(context_window=10_000)
    assert str(small.base_url).rstrip("/") == str(big.base_url).rstrip("/") == shared_server().url
    messages = [user("word " * 100)]
    assert create(big, messages).usage.input_tokens > 50
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        create(small, messages)


def test_missing_fields_and_a_stream_that_is_no_boolean_are_refused():
    raw = json.dumps({"model": MODEL, "messages": [user("hi")]})
    status, body = post("/v1/messages", raw)
    assert status == 400 and body["error"]["message"] == "max_tokens: Field required"
    raw = json.dumps({"model": MODEL, "max_tokens": 5, "messages": [user("hi")], "stream": "yes"})
    status, body = post("/v1/messages", raw)
    assert status == 400 and body["error"]["message"] == "stream: Input should be a valid boolean"


def post(path: str, raw: str | bytes, headers: dict | None = None) -> tuple[int, dict]:
    server = shared_server()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        conn.request("POST", path, body=raw, headers={"content-type": "application/json", **(headers or {})})
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def test_malformed_json_is_a_400_in_the_api_error_shape():
    status, body = post("/v1/messages", b"{not json")
    assert status == 400
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"


def test_an_unknown_path_is_a_404():
    status, body = post("/v1/complete", "{}")
    assert status == 404 and body["error"]["type"] == "not_found_error"


def test_a_bad_setting_header_is_refused_clearly():
    raw = json.dumps({"model": MODEL, "max_tokens": 5, "messages": [user("hi")]})
    status, body = post("/v1/messages", raw, {HEADER_WINDOW: "lots"})
    assert status == 400 and HEADER_WINDOW in body["error"]["message"]


def test_the_server_binds_the_loopback_interface_only():
    with OfflineServer() as server:
        assert server._httpd.server_address[0] == "127.0.0.1"
        assert server.url.startswith("http://127.0.0.1:")


def test_stop_closes_the_port_and_leaves_no_thread_behind():
    before = set(threading.enumerate())
    server = OfflineServer().start()
    port = server.port
    client = anthropic.Anthropic(api_key="offline", base_url=server.url, max_retries=0)
    create(client, [user("hi")])  # a keep-alive connection stays open until stop()
    server.stop()
    assert not server.running
    assert set(threading.enumerate()) <= before
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    client.close()


def test_a_stopped_server_has_no_port():
    server = OfflineServer()
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.port


@given(sessions(max_turns=6, huge=False), st.sampled_from([None, "Be brief."]))
def test_the_cached_count_always_equals_estimate_tokens(messages, system):
    counts = TokenCounts()
    for _ in range(2):  # cold, then every message from the cache
        assert counts.count(messages, system, TOOLS) == estimate_tokens(
            messages, "tiktoken", system=system, tools=TOOLS
        )


def test_the_count_cache_tells_apart_messages_that_differ_and_counts_reordered_keys_alike():
    counts = TokenCounts()
    short, longer = user("word " * 10), user("word " * 11)
    reordered = {"content": short["content"], "role": "user"}  # equal to short, keys in another order
    assert counts.count([short]) == estimate_tokens([short], "tiktoken")
    assert counts.count([longer]) == estimate_tokens([longer], "tiktoken") > counts.count([short])
    assert counts.count([reordered]) == counts.count([short])
    assert counts.count([OrderedDict(longer)]) == counts.count([longer])  # marshal cannot write it


def test_every_error_body_carries_a_request_id_that_matches_the_header():
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(connect(), [user(tool_result("toolu_nowhere", "output"))])
    rid = caught.value.body["request_id"]
    assert rid.startswith("req_") and len(rid) == len("req_") + 24
    assert caught.value.response.headers["request-id"] == rid == caught.value.request_id
    status, body = post("/v1/complete", "{}")
    assert status == 404 and body["request_id"].startswith("req_")


def test_input_plus_max_tokens_over_the_window_is_refused_when_the_client_asks_for_the_check():
    messages = [user("word " * 400)]
    used = estimate_tokens(messages, "tiktoken")
    checked = {HEADER_MAX_TOKENS_CHECK: "on"}
    client = connect(context_window=used + 256)
    assert create(client, messages).usage.input_tokens == used  # 256 fit exactly
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=MODEL, max_tokens=257, messages=messages, extra_headers=checked)
    assert caught.value.body["error"]["message"] == (
        f"input length and `max_tokens` exceed context limit: {used} + 257 > {used + 256}, "
        "decrease input length or `max_tokens` and try again"
    )
    assert client.messages.create(model=MODEL, max_tokens=256, messages=messages, extra_headers=checked)
    assert client.messages.create(model=MODEL, max_tokens=4096, messages=messages)  # not asked: no check


def test_a_tool_use_id_outside_the_api_pattern_is_refused_naming_the_block():
    messages = [user("go"), assistant(text("Listing."), tool_use("toolu.01", "bash", {"command": "ls"}))]
    messages.append(user(tool_result("toolu.01", "a.py")))
    assert rejection(messages, tools=TOOLS) == (
        "messages.1.content.1.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'"
    )


def test_the_models_endpoint_tells_each_client_its_window():
    info = connect(context_window=8_000).models.retrieve("claude-anything")
    assert info.id == "claude-anything" and info.max_input_tokens == 8_000 and info.type == "model"
    assert connect().models.retrieve("m").max_input_tokens == 200_000
    assert [m.max_input_tokens for m in connect(context_window=3_000).models.list()] == [3_000]
    status, raw = get("/v1/models/claude-anything")
    assert status == 200 and anthropic.types.ModelInfo.model_validate(raw).max_input_tokens == 200_000
    status, _ = get("/v1/nothing")
    assert status == 404


def test_the_window_models_retrieve_reports_is_the_one_at_which_the_server_refuses():
    client = connect(context_window=1_000)
    window = client.models.retrieve(DEFAULT_MODEL).max_input_tokens
    fits = [user("word " * (window - 20))]
    assert estimate_tokens(fits, "tiktoken") <= window
    client.messages.create(model=MODEL, max_tokens=1, messages=fits)
    over = [user("word " * (window + 10))]
    with pytest.raises(anthropic.BadRequestError, match=f"prompt is too long: .* > {window} maximum"):
        client.messages.create(model=MODEL, max_tokens=1, messages=over)


def test_capabilities_name_the_edits_and_the_compaction_the_server_emulates():
    info = connect().beta.models.retrieve(DEFAULT_MODEL, betas=[BETA_ON_DEMAND])
    edits = info.capabilities.context_management
    assert edits.supported and edits.clear_tool_uses_20250919.supported
    assert edits.clear_thinking_20251015.supported and edits.compact_20260112.supported
    assert info.capabilities.compaction.supported and info.capabilities.compaction.summarize.supported
    assert not info.capabilities.batch.supported and info.capabilities.thinking.supported
    assert info.capabilities.thinking.types.adaptive.supported  # it writes bound thinking blocks when asked
    assert info.lifecycle == "active" and info.retires_at is None
    plain = connect().models.retrieve(DEFAULT_MODEL)  # the non-beta type reads the same answer
    assert plain.capabilities.context_management.compact_20260112.supported


def test_a_deprecated_model_reports_its_lifecycle_and_retirement_date():
    info = connect().models.retrieve("claude-opus-4-5")
    assert info.lifecycle == "deprecated" and info.retires_at.date().isoformat() == "2027-01-22"


def get(path: str) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", shared_server().port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()
