"""Reactive compaction: recognise "prompt is too long", summarize all but a pair-safe tail, retry once."""

from __future__ import annotations

import copy

import anthropic
import pytest
from conversations import Call, Turn, build_session, sessions
from fake_summarizer import FakeClient, api_error, too_long
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compaction.agent.backend import connect
from compaction.core.failures import SummaryFailed
from compaction.core.messages import is_tool_result_message, validate
from compaction.core.models import DEFAULT_MODEL
from compaction.core.tokens import estimate_tokens
from compaction.core.transcript import read_transcript
from compaction.layers.reactive import (
    ReactiveCompactFailed,
    is_prompt_too_long,
    pair_safe_tail,
    reactive_compact,
    send_with_recovery,
)

SESSION = build_session(
    [
        Turn([Call("read_file", "x = 1")]),
        Turn([Call("bash", "ok"), Call("glob", "a.py")]),
        Turn([Call("bash")]),
    ],
    final="All done.",
)  # 8 messages: user, (assistant, user) x 3, assistant


def test_prompt_is_too_long_is_recognised_as_400_and_as_413():
    assert is_prompt_too_long(too_long(9120, 8000))
    assert is_prompt_too_long(api_error(413, "request_too_large: Request exceeds the maximum size"))


@pytest.mark.parametrize(
    "error",
    [
        api_error(400, "messages.3: `tool_use` ids were found without `tool_result` blocks"),
        api_error(429, "prompt is too long"),  # the words alone are not enough
        api_error(500, "prompt is too long: 1 tokens > 0 maximum"),
        ValueError("prompt is too long"),
        anthropic.APIConnectionError(request=None),
    ],
)
def test_nothing_else_counts_as_prompt_too_long(error):
    assert not is_prompt_too_long(error)


def test_the_tail_keeps_about_keep_messages_and_starts_at_an_assistant_message():
    assert pair_safe_tail(SESSION, 5) == SESSION[3:]  # starts at an assistant message: 5 kept
    assert pair_safe_tail(SESSION, 4) == SESSION[3:]  # would start at a tool result: one more kept
    assert pair_safe_tail(SESSION, 1) == SESSION[7:]
    assert pair_safe_tail(SESSION, 50) == SESSION[1:]  # the first message is always summarized


@given(sessions(max_turns=8, huge=False), st.integers(1, 20))
def test_a_tail_never_starts_with_an_orphan_result_and_follows_a_user_summary(messages, keep):
    tail = pair_safe_tail(messages, keep)
    if len(messages) > 1:
        assert tail and tail[0]["role"] == "assistant" and not is_tool_result_message(tail[0])
        assert len(tail) >= min(keep, len(messages) - 1)
        validate([{"role": "user", "content": "summary"}, *tail])


def test_reactive_compact_returns_the_summary_then_the_tail(tmp_path):
    result = reactive_compact(SESSION, client=FakeClient(), transcript_dir=tmp_path, keep_tail=4)
    validate(result)
    assert result[1:] == SESSION[3:]
    assert "continues from a summary" in result[0]["content"][0]["text"]


def test_reactive_compact_writes_the_whole_list_first_and_summarizes_only_the_head(tmp_path):
    client = FakeClient()
    before = copy.deepcopy(SESSION)
    reactive_compact(SESSION, client=client, transcript_dir=tmp_path, keep_tail=4)
    assert read_transcript(next(tmp_path.iterdir())) == SESSION == before
    assert client.requests[0]["messages"][:-1] == SESSION[:2]


def test_a_tail_too_big_for_the_window_is_shortened(tmp_path):
    big = build_session([Turn([Call("bash", "y" * 9000)]) for _ in range(4)])
    window = estimate_tokens(big, "tiktoken") // 2
    result = reactive_compact(
        big, client=FakeClient(), transcript_dir=tmp_path, keep_tail=5, context_window=window
    )
    validate(result)
    assert estimate_tokens(result[1:], "tiktoken") <= window // 2


def test_a_single_message_cannot_be_compacted(tmp_path):
    with pytest.raises(SummaryFailed, match="nothing to summarize"):
        reactive_compact(SESSION[:1], client=FakeClient(), transcript_dir=tmp_path)


def long_session(turns=20):
    return build_session([Turn([Call("bash", f"{k} " + "z" * 800)]) for k in range(turns)], task="Go.")


def test_send_with_recovery_compacts_once_and_retries_after_prompt_too_long(tmp_path):
    messages = long_session()
    window = estimate_tokens(messages, "tiktoken") // 2
    client = FakeClient("<summary>1. Primary Request and Intent: go</summary>", window=window)
    response, sent = send_with_recovery(
        client, messages, transcript_dir=tmp_path, context_window=window, model="m", max_tokens=100
    )
    validate(sent)
    assert len(sent) < len(messages) and response.content[0].text.startswith("<summary>")
    assert len(list(tmp_path.iterdir())) == 1


def test_an_answer_cut_at_the_window_is_compacted_and_asked_again_like_a_refusal(tmp_path):
    messages = long_session()
    window = estimate_tokens(messages, "tiktoken") + 40  # room for a few output tokens only
    client = connect(context_window=window)
    first = client.messages.create(model=DEFAULT_MODEL, max_tokens=4096, messages=messages)
    assert first.stop_reason == "model_context_window_exceeded"  # the answer alone did not fit
    response, sent = send_with_recovery(
        client, messages, transcript_dir=tmp_path, context_window=window, model=DEFAULT_MODEL, max_tokens=4096
    )
    assert response.stop_reason != "model_context_window_exceeded" and len(sent) < len(messages)
    assert len(list(tmp_path.iterdir())) == 1  # the transcript of the list whose answer was cut


def test_a_second_refusal_raises_reactive_compact_failed_naming_the_transcript(tmp_path):
    messages = long_session()
    client = FakeClient(too_long(99_999, 8_000), "<summary>s</summary>", too_long(99_999, 8_000))
    with pytest.raises(ReactiveCompactFailed) as caught:
        send_with_recovery(client, messages, transcript_dir=tmp_path, model="m", max_tokens=100)
    (path,) = tmp_path.iterdir()
    assert caught.value.transcript == path and str(path) in str(caught.value)
    assert read_transcript(path) == messages
    assert len(client.requests) == 3  # the call, the summary, the one retry: bounded


def test_other_errors_pass_through_untouched(tmp_path):
    client = FakeClient(api_error(429, "rate limited"))
    with pytest.raises(anthropic.RateLimitError):
        send_with_recovery(client, SESSION, transcript_dir=tmp_path, model="m", max_tokens=10)
    assert not list(tmp_path.iterdir())


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(sessions(max_turns=6, huge=False), st.integers(1, 8))
def test_any_valid_session_compacts_to_summary_plus_an_untouched_valid_tail(tmp_path_factory, messages, keep):
    if len(messages) < 2:
        return
    directory = tmp_path_factory.mktemp("t")
    before = copy.deepcopy(messages)
    result = reactive_compact(messages, client=FakeClient(), transcript_dir=directory, keep_tail=keep)
    validate(result)
    assert messages == before
    assert result[1:] == messages[len(messages) - len(result) + 1 :]
    (path,) = directory.iterdir()
    assert read_transcript(path) == messages
