"""The offline model called in the process answers as the loopback server does through the SDK.

``DirectClient`` sends a request's JSON to the server's own functions: the same answer to the
byte as the SDK's client gets over HTTP (a scenario turn, a summary request, a server-side
compaction with ``extra_body`` and ``extra_headers``, a token count), a refusal the package's
refusal questions recognise with the same counts, and the settings checked when it is made.
"""

from __future__ import annotations

import pytest

import compaction
from compaction.core.api_errors import Refusal, is_prompt_too_long, too_long_counts
from compaction.core.summary_prompt import SUMMARY_PROMPT
from compaction.layers.server_summary import BETA
from compaction.offline.direct import Answer, DirectClient

MODEL = "claude-sonnet-4-5"
TASK = [{"role": "user", "content": "Fix the failing test in calc.py."}]
SUMMARY = [
    {"role": "user", "content": "Fix the failing test in calc.py."},
    {"role": "assistant", "content": "I read calc.py: add() returns a - b; the test expects add(2, 3) == 5."},
    {"role": "user", "content": SUMMARY_PROMPT},
]


def without_nones(value):
    """``value`` with the keys whose value is None left out (the SDK's objects fill unset fields so)."""
    if isinstance(value, dict):
        return {k: without_nones(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_nones(v) for v in value]
    return value


def both(**request):
    """The SDK's answer from the loopback server and the direct client's, as plain dicts."""
    sdk = compaction.connect("offline", context_window=8_000)
    direct = DirectClient(context_window=8_000)
    through_sdk = sdk.messages.create(**request).model_dump(mode="json", warnings=False)
    return without_nones(through_sdk), without_nones(dict(direct.messages.create(**request)))


@pytest.mark.parametrize("messages", [TASK, SUMMARY], ids=["scenario turn", "summary request"])
def test_an_answer_is_the_loopback_servers_to_the_byte(messages):
    through_sdk, direct = both(model=MODEL, max_tokens=1024, messages=messages)
    assert direct == through_sdk


def test_extra_body_and_extra_headers_reach_the_server_as_the_sdk_sends_them():
    request = dict(
        model=MODEL,
        max_tokens=4096,
        messages=SUMMARY[:2],
        extra_body={"compaction": {"type": "summarize"}},
        extra_headers={"anthropic-beta": BETA},
    )
    through_sdk, direct = both(**request)
    assert [b["type"] for b in direct["content"]] == ["compaction"]
    assert direct["content"] == through_sdk["content"]


def test_an_answer_reads_as_attributes_and_as_a_dict():
    answer = DirectClient(context_window=8_000).messages.create(model=MODEL, max_tokens=512, messages=TASK)
    assert isinstance(answer, Answer)
    assert answer.stop_reason == answer["stop_reason"] and answer.content == answer["content"]
    assert answer.model_dump() == dict(answer)
    with pytest.raises(AttributeError):
        answer.no_such_field  # noqa: B018 - the access is what is tested


def test_a_token_count_is_the_servers():
    sdk = compaction.connect("offline", context_window=8_000)
    counted = sdk.messages.count_tokens(model=MODEL, messages=SUMMARY).input_tokens
    direct = DirectClient(context_window=8_000).messages.count_tokens(model=MODEL, messages=SUMMARY)
    assert direct.input_tokens == counted


def test_a_request_over_the_window_is_refused_in_the_apis_words():
    client = DirectClient(context_window=4_000)
    long = [{"role": "user", "content": "word " * 6_000}]
    with pytest.raises(Refusal) as refused:
        client.messages.create(model=MODEL, max_tokens=256, messages=long)
    assert refused.value.status_code == 400
    assert is_prompt_too_long(refused.value)
    sent, window = too_long_counts(refused.value)
    assert window == 4_000 and sent > window


def test_a_refusal_that_is_not_about_length_is_not_taken_for_one():
    with pytest.raises(Refusal) as refused:
        DirectClient().messages.create(model=MODEL, max_tokens=256, messages=[])
    assert not is_prompt_too_long(refused.value) and too_long_counts(refused.value) is None
    assert not is_prompt_too_long(Refusal(500, "prompt is too long: 9 tokens > 5 maximum"))


def test_bad_settings_are_said_when_the_client_is_made():
    with pytest.raises(Exception, match="unknown offline scenario 'nope'"):
        DirectClient(scenario="nope")


def test_streaming_is_refused_with_where_to_go_instead():
    with pytest.raises(ValueError, match="connect"):
        DirectClient().messages.create(model=MODEL, max_tokens=16, messages=TASK, stream=True)
