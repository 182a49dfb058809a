"""Prompt caching on the offline server: what ``usage`` reports, derived here independently.

Every figure below is recomputed from ``estimate_tokens`` over the prefix the test marked, never
read back from the server's own arithmetic. The clock is the server's ``ManualClock``.
"""

from __future__ import annotations

import copy
from collections import OrderedDict

import anthropic
import pytest
from api_sessions import MODEL, TOOLS, client_for, strict, tool_session

from compaction.core.messages import assistant, blocks, text, user
from compaction.core.tokens import estimate_tokens
from compaction.offline import OfflineServer
from compaction.offline.server.caching import (
    MIN_CACHEABLE_TOKENS,
    ManualClock,
    Prefix,
    PromptCache,
    value_digest,
)

SYSTEM_TEXT = "You are a careful reviewer. " * 200  # about 1,200 tokens: cacheable on its own
SYSTEM = [{"type": "text", "text": SYSTEM_TEXT, "cache_control": {"type": "ephemeral"}}]


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock()


@pytest.fixture
def private_server(clock):
    """A server of the test's own, so its prompt cache starts empty, on the test's clock."""
    with OfflineServer(clock=clock) as server:
        yield server


def marked(messages: list, ttl: str | None = None) -> list:
    """The messages with a cache breakpoint on the last block of the last message."""
    last = dict(messages[-1])
    content = [dict(b) for b in last["content"]] if isinstance(last["content"], list) else []
    content = content or [text(last["content"])]
    content[-1]["cache_control"] = {"type": "ephemeral", **({"ttl": ttl} if ttl else {})}
    return messages[:-1] + [{**last, "content": content}]


def ask(client, messages, **kwargs):
    raw = client.messages.with_raw_response.create(model=MODEL, max_tokens=64, messages=messages, **kwargs)
    return strict(anthropic.types.Message, raw.http_response.json())


def total(messages, system=SYSTEM_TEXT, tools=TOOLS) -> int:
    return estimate_tokens(messages, "tiktoken", system=system, tools=tools)


def test_a_first_request_writes_its_prefix_and_the_next_one_reads_it(private_server):
    client = client_for(private_server)
    first, second = tool_session(4), tool_session(6)
    one = ask(client, marked(first), system=SYSTEM, tools=TOOLS).usage
    assert (one.cache_read_input_tokens, one.cache_creation_input_tokens) == (0, total(first))
    assert one.input_tokens == 0 and one.cache_creation.ephemeral_5m_input_tokens == total(first)
    two = ask(client, marked(second), system=SYSTEM, tools=TOOLS).usage
    assert two.cache_read_input_tokens == total(first)
    assert two.cache_creation_input_tokens == total(second) - total(first)
    assert two.input_tokens == 0


def test_what_follows_the_last_breakpoint_is_plain_input(private_server):
    client = client_for(private_server)
    messages = tool_session(3)
    usage = ask(client, messages, system=SYSTEM, tools=TOOLS).usage  # only the system is marked
    head = estimate_tokens([], "tiktoken", system=SYSTEM_TEXT, tools=TOOLS)
    assert usage.cache_creation_input_tokens == head
    assert usage.input_tokens == total(messages) - head


def test_a_changed_earlier_message_misses_back_to_the_last_unchanged_breakpoint(private_server):
    client = client_for(private_server)
    messages = tool_session(6)
    ask(client, marked(messages), system=SYSTEM, tools=TOOLS)

    edited = [dict(m) for m in messages]
    edited[1] = assistant(text("Reading module 0, again."), messages[1]["content"][1])
    usage = ask(client, marked(edited), system=SYSTEM, tools=TOOLS).usage
    head = estimate_tokens([], "tiktoken", system=SYSTEM_TEXT, tools=TOOLS)
    assert usage.cache_read_input_tokens == head  # the system breakpoint still matches
    assert usage.cache_creation_input_tokens == total(edited) - head


def test_entries_expire_after_five_minutes_unless_read_and_one_hour_lasts_longer(private_server, clock):
    client = client_for(private_server)
    messages = tool_session(4)
    ask(client, marked(messages), tools=TOOLS)
    clock.advance(299)
    assert ask(client, marked(messages), tools=TOOLS).usage.cache_read_input_tokens == total(messages, None)
    clock.advance(299)  # the read above refreshed the entry: still alive at 598 s
    assert ask(client, marked(messages), tools=TOOLS).usage.cache_read_input_tokens > 0
    clock.advance(301)
    expired = ask(client, marked(messages), tools=TOOLS).usage
    assert expired.cache_read_input_tokens == 0
    assert expired.cache_creation_input_tokens == total(messages, None)
    longer = tool_session(5)
    ask(client, marked(longer, "1h"), tools=TOOLS)
    clock.advance(3000)
    usage = ask(client, marked(longer, "1h"), tools=TOOLS).usage
    assert usage.cache_read_input_tokens == total(longer, None)
    clock.advance(3601)
    assert ask(client, marked(longer, "1h"), tools=TOOLS).usage.cache_read_input_tokens == 0


def test_a_one_hour_write_is_reported_apart(private_server):
    usage = ask(client_for(private_server), marked(tool_session(4), "1h"), tools=TOOLS).usage
    assert usage.cache_creation.ephemeral_1h_input_tokens == usage.cache_creation_input_tokens > 0
    assert usage.cache_creation.ephemeral_5m_input_tokens == 0


def test_a_prefix_below_the_minimum_is_not_cached(private_server):
    client = client_for(private_server)
    short = [user({**text("Short question."), "cache_control": {"type": "ephemeral"}})]
    assert estimate_tokens(short, "tiktoken") < MIN_CACHEABLE_TOKENS
    for _ in range(2):
        usage = ask(client, short).usage
        assert (usage.cache_read_input_tokens, usage.cache_creation_input_tokens) == (0, 0)
        assert usage.input_tokens == estimate_tokens(short, "tiktoken")


def test_the_lookback_finds_a_hit_twenty_blocks_back_but_not_twenty_one(private_server):
    client = client_for(private_server)
    base = tool_session(4)
    ask(client, marked(base), tools=TOOLS)
    near = base + [assistant(*[text(f"note {k}") for k in range(20)])]  # the hit is 20 blocks back
    assert ask(client, marked(near), tools=TOOLS).usage.cache_read_input_tokens == total(base, None)
    private_server.cache.clear()
    ask(client, marked(base), tools=TOOLS)
    far = base + [assistant(*[text(f"note {k}") for k in range(21)])]
    assert ask(client, marked(far), tools=TOOLS).usage.cache_read_input_tokens == 0


def test_five_breakpoints_are_refused_with_the_api_wording(private_server):
    blocks = [{**text(f"part {k}"), "cache_control": {"type": "ephemeral"}} for k in range(5)]
    with pytest.raises(anthropic.BadRequestError) as caught:
        client_for(private_server).messages.create(
            model=MODEL, max_tokens=5, messages=[{"role": "user", "content": blocks}]
        )
    assert caught.value.body["error"]["message"] == (
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    )


def test_a_bad_ttl_is_refused_naming_the_block(private_server):
    block = {**text("part"), "cache_control": {"type": "ephemeral", "ttl": "2h"}}
    with pytest.raises(anthropic.BadRequestError, match=r"messages\.0\.content\.0\.cache_control\.ttl"):
        client_for(private_server).messages.create(
            model=MODEL, max_tokens=5, messages=[{"role": "user", "content": [block]}]
        )


def test_the_top_level_cache_control_marks_the_last_block(private_server):
    client = client_for(private_server)
    messages = tool_session(4)
    ask(client, messages, tools=TOOLS, extra_body={"cache_control": {"type": "ephemeral"}})
    again = ask(client, messages, tools=TOOLS, extra_body={"cache_control": {"type": "ephemeral"}})
    assert again.usage.cache_read_input_tokens == total(messages, None)


def test_without_breakpoints_nothing_is_cached_and_the_course_figures_stay_as_they_were(private_server):
    client = client_for(private_server)
    messages = tool_session(4)
    for _ in range(2):
        usage = ask(client, messages, tools=TOOLS).usage
        assert usage.input_tokens == total(messages, None)
        assert usage.cache_read_input_tokens == usage.cache_creation_input_tokens == 0


def test_a_request_that_extends_an_equal_copy_of_the_last_one_reads_all_of_it(clock):
    """The cache keys on what a prefix equals, not on how its objects happen to be shared."""
    shown = [{**m, "content": blocks(m)} for m in tool_session(4)]
    first = Prefix(MODEL, TOOLS, [], marked(shown))
    extended = copy.deepcopy(shown) + [assistant(text("Done reading."))]  # equal, not identical objects
    second = Prefix(MODEL, copy.deepcopy(TOOLS), [], marked(extended))

    def tokens_to(k: int) -> int:
        return 100 * (k + 1)  # any increasing count: the test is about which prefix is found

    cache = PromptCache(clock, min_tokens=0)
    cache.account(first, tokens_to, tokens_to(len(first.digests) - 1))
    usage = cache.account(second, tokens_to, tokens_to(len(second.digests) - 1))
    assert usage["cache_read_input_tokens"] == tokens_to(len(first.digests) - 1)
    assert usage["cache_creation_input_tokens"] == tokens_to(len(second.digests) - 1) - tokens_to(
        len(first.digests) - 1
    )


def test_a_block_digest_follows_its_value_not_its_key_order_or_type_of_mapping():
    block = {"type": "text", "text": "hello", "citations": None}
    reordered = {"citations": None, "text": "hello", "type": "text"}  # other marshal bytes, same value
    assert value_digest(block) == value_digest(reordered) == value_digest(OrderedDict(block))  # no marshal
    assert value_digest(block) == value_digest(copy.deepcopy(block))  # the remembered digest
    assert value_digest({**block, "text": "hello!"}) != value_digest(block)
    assert value_digest(1) != value_digest(True) != value_digest("1")
