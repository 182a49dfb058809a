"""The model table and the offline server's per-model behaviour, through the real SDK and ``connect()``.

Each test is one of issue 23's "done when" figures: input plus ``max_tokens`` over the window on the
default model comes back with ``stop_reason`` "model_context_window_exceeded" (a refusing model gets
the 400); a ``compact_20260112`` trigger of 7,000 tokens is refused naming the field; ``keep`` 3 on 24
tool uses over the trigger clears 21; a 2,000-token prefix on a model whose cache minimum is 4,096
writes nothing to the cache (and on a model whose minimum is 1,024 it does).
"""

from __future__ import annotations

import typing

import anthropic
import pytest
from anthropic.types import StopReason
from api_sessions import tool_session

from compaction import connect
from compaction.core.models import (
    CLAUDE_MODEL,
    MODELS,
    REFUSE,
    STOP_REASON,
    WINDOW_EXCEEDED,
    behaves_as,
    model,
)
from compaction.core.tokens import estimate_tokens

WINDOW = 3_000


def filler(tokens: int) -> str:
    """A user text of about ``tokens`` cl100k tokens."""
    return "word " * tokens


def test_every_row_is_sourced_and_names_a_known_overflow_behaviour():
    assert WINDOW_EXCEEDED in typing.get_args(StopReason)  # the wire value is the SDK's
    for row in MODELS.values():
        assert row.source.startswith("https://") and row.overflow in (STOP_REASON, REFUSE)
        if row.input_price is not None:  # the pricing page: 0.05x on Sonnet 5.5, else the 0.1x multiplier
            read = 0.05 if row.id == "claude-sonnet-5-5" else 0.1
            assert row.cache_read == pytest.approx(row.input_price * read)
            assert row.cache_write_5m == pytest.approx(row.input_price * 1.25)
            assert row.cache_write_1h == pytest.approx(row.input_price * 2)
    assert model("claude-haiku-4-5-20251001") is MODELS["claude-haiku-4-5"]
    assert behaves_as("some-future-model") is MODELS[CLAUDE_MODEL]


def test_the_default_model_answers_input_plus_max_tokens_over_the_window_with_the_stop_reason():
    client = connect(context_window=WINDOW)
    messages = [{"role": "user", "content": filler(WINDOW - 20)}]
    used = client.messages.count_tokens(model=CLAUDE_MODEL, messages=messages).input_tokens
    assert used < WINDOW
    answer = client.messages.create(model=CLAUDE_MODEL, max_tokens=4096, messages=messages)
    assert answer.stop_reason == WINDOW_EXCEEDED
    assert answer.usage.input_tokens + answer.usage.output_tokens == WINDOW  # as many as fit
    small = client.messages.create(
        model=CLAUDE_MODEL, max_tokens=4096, messages=[messages[0] | {"content": "hi"}]
    )
    assert small.stop_reason != WINDOW_EXCEEDED  # an answer that fits ends as it would


def test_input_alone_over_the_window_is_still_the_400_and_a_refusing_model_refuses_the_sum():
    client = connect(context_window=WINDOW)
    with pytest.raises(anthropic.BadRequestError, match="prompt is too long"):
        client.messages.create(
            model=CLAUDE_MODEL, max_tokens=10, messages=[{"role": "user", "content": filler(WINDOW)}]
        )
    older = "claude-sonnet-4-20250514"
    assert behaves_as(older).overflow == REFUSE
    with pytest.raises(anthropic.BadRequestError, match="input length and `max_tokens` exceed context limit"):
        client.messages.create(
            model=older, max_tokens=4096, messages=[{"role": "user", "content": filler(WINDOW // 2)}]
        )


def test_a_compaction_trigger_of_7000_is_refused_naming_the_field_unless_course_scaled():
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 7_000}}
    request = {
        "model": CLAUDE_MODEL,
        "max_tokens": 64,
        "messages": tool_session(3),
        "betas": ["compact-2026-01-12"],
    }
    with pytest.raises(anthropic.BadRequestError) as caught:
        connect(context_window=200_000).beta.messages.create(context_management={"edits": [edit]}, **request)
    assert "context_management.edits.0.compact_20260112: trigger.value must be at least 50000" in str(
        caught.value
    )
    scaled = connect(context_window=200_000, course_scale=True)
    assert scaled.beta.messages.create(context_management={"edits": [edit]}, **request).stop_reason


def test_keep_three_on_twenty_four_tool_uses_over_the_trigger_clears_twenty_one():
    edit = {
        "type": "clear_tool_uses_20250919",
        "trigger": {"type": "input_tokens", "value": 1_000},
        "keep": {"type": "tool_uses", "value": 3},
    }
    session = tool_session(24)
    assert estimate_tokens(session, "tiktoken") > 1_000
    answer = connect(context_window=200_000).beta.messages.create(
        model=CLAUDE_MODEL,
        max_tokens=64,
        messages=session,
        context_management={"edits": [edit]},
        betas=["context-management-2025-06-27"],
    )
    [applied] = answer.context_management.applied_edits
    assert applied.cleared_tool_uses == 21


@pytest.mark.parametrize(
    ("name", "prefix", "written", "minimum"),
    [
        ("claude-haiku-4-5", 2_000, False, 4096),
        ("claude-sonnet-4-5", 2_000, True, 1024),
        (CLAUDE_MODEL, 700, True, 512),
        ("claude-sonnet-5", 700, False, 1024),
    ],
)
def test_a_prefix_is_cached_only_on_a_model_whose_minimum_it_reaches(name, prefix, written, minimum):
    client = connect(context_window=200_000).with_options(default_headers={"x-compaction-cache-scope": name})
    system = [{"type": "text", "text": filler(prefix), "cache_control": {"type": "ephemeral"}}]
    answer = client.messages.create(
        model=name, max_tokens=64, system=system, messages=[{"role": "user", "content": "hi"}]
    )
    assert (answer.usage.cache_creation_input_tokens > 0) is written
    assert MODELS[name].cache_minimum == minimum  # the prompt-caching page
