"""``stream: true`` on the offline server: the same answer, as the streaming page's server-sent events.

The SDK's own accumulator (``client.beta.messages.stream(...).get_final_message()``) rebuilds from the events
exactly the message a request without ``stream`` gets: a turn with thinking, text and a tool call; a
threshold compaction with its usage iterations and applied edits; an on-demand compaction's signed block.
The events come in the page's order, each named as its ``type``; a refused request is a plain 400 before
any event.
"""

from __future__ import annotations

import http.client
import json

import anthropic
import pytest
from api_sessions import COMPACT, MODEL, TOOLS, client_for, private_server, tool_session

from compaction.core.messages import user
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.context_config import HEADER_COURSE_SCALE
from compaction.offline.server.on_demand import BETA_ON_DEMAND

COMPACT_EDIT = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 2000}}]}
CASES = {
    "thinking, text and a tool call": {"messages": [user("Read m1.py, then say what it does.")],
                                       "thinking": {"type": "adaptive", "display": "summarized"}},
    "a threshold compaction": {"messages": tool_session(24), "betas": [COMPACT],
                               "context_management": COMPACT_EDIT},
    "an on-demand compaction": {"messages": tool_session(6), "betas": [BETA_ON_DEMAND],
                                "compaction": {"type": "summarize"}},
}  # fmt: skip


@pytest.fixture(scope="module")
def client():
    with private_server(ManualClock()) as server:
        yield client_for(server).with_options(default_headers={HEADER_COURSE_SCALE: "on"})


@pytest.mark.parametrize("case", list(CASES))
def test_a_streamed_answer_rebuilds_into_the_same_message(client, case):
    params = {"model": MODEL, "max_tokens": 2048, "tools": TOOLS, **CASES[case]}
    whole = client.beta.messages.create(**params)
    with client.beta.messages.stream(**params) as stream:
        kinds = [event.type for event in stream]
        rebuilt = stream.get_final_message()
    assert rebuilt.model_dump(exclude={"content"}) == whole.model_dump(exclude={"content"})
    assert [b.model_dump(exclude={"parsed_output"}) for b in rebuilt.content] == [
        b.model_dump() for b in whole.content
    ]
    assert kinds[0] == "message_start" and kinds[-2:] == ["message_delta", "message_stop"]
    assert kinds.count("content_block_start") == kinds.count("content_block_stop") == len(whole.content)


def raw_stream(client, body: dict) -> tuple[int, str, str]:
    url = client.base_url
    conn = http.client.HTTPConnection(url.host, url.port, timeout=10)
    try:
        headers = {"content-type": "application/json"}
        conn.request("POST", "/v1/messages", body=json.dumps(body), headers=headers)
        answer = conn.getresponse()
        return answer.status, answer.getheader("content-type"), answer.read().decode()
    finally:
        conn.close()


def test_the_events_are_named_as_their_type_in_the_pages_order(client):
    body = {"model": MODEL, "max_tokens": 64, "messages": [user("Say hello.")], "stream": True}
    status, kind, text = raw_stream(client, body)
    assert status == 200 and kind == "text/event-stream"
    frames = [f for f in text.split("\n\n") if f]
    names = [f.split("\n")[0].removeprefix("event: ") for f in frames]
    assert names == [json.loads(f.split("\n")[1].removeprefix("data: "))["type"] for f in frames]
    deltas = ["content_block_delta"] * (len(names) - 6)
    ends = ["content_block_stop", "message_delta", "message_stop"]
    assert names == ["message_start", "ping", "content_block_start", *deltas, *ends]
    start = json.loads(frames[0].split("\n")[1].removeprefix("data: "))["message"]
    assert start["content"] == [] and start["stop_reason"] is None


def test_a_refused_streaming_request_is_a_plain_400_before_any_event(client):
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        small = client.with_options(default_headers={"x-compaction-window": "50"})
        with small.beta.messages.stream(model=MODEL, max_tokens=8, messages=tool_session(4)) as stream:
            list(stream)
