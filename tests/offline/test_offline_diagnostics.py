"""Cache-miss diagnostics and top-level fields on the offline server, through the real SDK.

A request that names an earlier response in ``diagnostics`` is told why its prefix could not be
reused (the SDK's ``BetaCacheMissReason`` types), with ``cache_missed_input_tokens`` counted as the
server's caching counts; unknown top-level fields are refused, every field the SDK sends accepted.
"""

from __future__ import annotations

import inspect
import re

import anthropic
import pytest
from anthropic.resources.beta.messages import messages as beta_messages
from anthropic.types.beta import BetaMessage
from api_sessions import MODEL, TOOLS, client_for, strict, tool_session

from compaction.core.messages import user
from compaction.offline import OfflineServer
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.fields import COUNT_FIELDS, CREATE_FIELDS


@pytest.fixture(scope="module")
def server():
    with OfflineServer(clock=ManualClock()) as running:
        yield running


def create(server, messages, *, tools=TOOLS, **params) -> BetaMessage:
    raw = client_for(server).beta.messages.with_raw_response.create(
        model=params.pop("model", MODEL), max_tokens=64, messages=messages, tools=tools, **params
    )
    strict(BetaMessage, raw.http_response.json())
    return raw.parse()


def diagnosed(server, first: dict, second: dict):
    """The second request's diagnostics, naming the first's response."""
    before = create(server, diagnostics={"previous_message_id": None}, **first)
    return create(server, diagnostics={"previous_message_id": before.id}, **second).diagnostics


def test_messages_changed_before_the_end_names_the_missed_tokens(server):
    messages = tool_session(4)
    changed = [messages[0], {**messages[1], "content": [messages[1]["content"][0]] + [
        {**messages[1]["content"][1], "input": {"path": "other.py"}}
    ]}] + messages[2:]  # fmt: skip
    reason = diagnosed(server, {"messages": messages}, {"messages": changed}).cache_miss_reason
    assert reason.type == "messages_changed"
    counts = server.tokens
    whole = counts.count(messages, None, TOOLS)
    kept = counts.count(messages[:1], None, TOOLS)
    assert reason.cache_missed_input_tokens == whole - kept > 0


def test_appending_only_diverges_nowhere(server):
    messages = tool_session(2)
    assert diagnosed(server, {"messages": messages}, {"messages": messages + [user("Go on.")]}) is None


def test_the_first_turn_opts_in_without_a_reason(server):
    assert create(server, tool_session(1), diagnostics={"previous_message_id": None}).diagnostics is None


def test_without_diagnostics_the_answer_has_none(server):
    assert create(server, tool_session(1)).diagnostics is None


@pytest.mark.parametrize(
    "second, kind",
    [
        ({"model": "another-model"}, "model_changed"),
        ({"tools": TOOLS[:1]}, "tools_changed"),
        ({"system": "You are terse."}, "system_changed"),
        ({"tool_choice": {"type": "any"}}, "unavailable"),
    ],
)
def test_each_part_of_the_prefix_has_its_reason(server, second, kind):
    messages = tool_session(2)
    reason = diagnosed(server, {"messages": messages}, {"messages": messages, **second}).cache_miss_reason
    assert reason.type == kind
    if kind != "unavailable":
        assert reason.cache_missed_input_tokens > 0


def test_a_system_change_keeps_the_tools(server):
    messages = tool_session(2)
    reason = diagnosed(server, {"messages": messages}, {"messages": messages, "system": "Be brief."})
    whole = server.tokens.count(messages, None, TOOLS)
    tools = server.tokens.head(None, TOOLS)
    assert reason.cache_miss_reason.cache_missed_input_tokens == whole - tools


def test_an_unknown_previous_message_is_not_found(server):
    answer = create(server, tool_session(1), diagnostics={"previous_message_id": "msg_never_sent"})
    assert answer.diagnostics.cache_miss_reason.type == "previous_message_not_found"


def test_a_request_without_diagnostics_leaves_no_fingerprint(server):
    before = create(server, tool_session(3))
    answer = create(server, tool_session(3), diagnostics={"previous_message_id": before.id})
    assert answer.diagnostics.cache_miss_reason.type == "previous_message_not_found"


def test_a_wrong_diagnostics_shape_is_refused_naming_the_field(server):
    with pytest.raises(anthropic.BadRequestError, match=r"diagnostics\.previous: Extra inputs"):
        create(server, tool_session(1), diagnostics={"previous": "msg_x"})


def test_an_unknown_top_level_field_is_refused_naming_it(server):
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(server, tool_session(1), extra_body={"temperatur": 0.2})
    assert caught.value.body["error"]["message"] == "temperatur: Extra inputs are not permitted"


def test_count_tokens_refuses_a_field_only_create_takes(server):
    client = client_for(server)
    with pytest.raises(anthropic.BadRequestError, match="max_tokens: Extra inputs are not permitted"):
        client.messages.count_tokens(model=MODEL, messages=tool_session(1), extra_body={"max_tokens": 5})


def _body_fields(method) -> set[str]:
    """The keys of the body dict a resource method of the SDK posts."""
    source = inspect.getsource(method)
    body = source.split("body=", 1)[1].split("options=", 1)[0]
    return set(re.findall(r'"([a-z_]+)":', body))


def test_every_field_the_sdk_sends_is_known():
    from anthropic.resources.messages import messages as plain_messages

    for module in (beta_messages, plain_messages):
        assert _body_fields(module.Messages.create) <= CREATE_FIELDS
        assert _body_fields(module.Messages.count_tokens) <= COUNT_FIELDS
    assert _body_fields(beta_messages.Messages.parse) <= CREATE_FIELDS


def test_fields_the_offline_model_ignores_are_accepted(server):
    answer = create(
        server,
        tool_session(1),
        metadata={"user_id": "u1"},
        service_tier="auto",
        stop_sequences=["###"],
        tool_choice={"type": "auto"},
        inference_geo="us",
    )
    assert answer.stop_reason in ("tool_use", "end_turn")
