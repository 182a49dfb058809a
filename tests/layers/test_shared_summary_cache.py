"""A summary request sharing the agent's cached prefix; the default pipeline's cache settings (issue 20)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from fake_summarizer import FakeClient

from compaction.core.messages import assistant, tool_result, tool_use, user, validate
from compaction.core.tokens import estimate_tokens
from compaction.evaluate.cost import Tokens, framing_tokens, price
from compaction.evaluate.recording import RecordingClient
from compaction.evaluate.strategies import build
from compaction.layers import micro as micro_module
from compaction.layers.micro import Micro
from compaction.layers.summarize import Summary
from compaction.layers.summary_request import fit_request, lean, with_summary_prompt
from compaction.pipeline.compactor import Compactor, default_layers

SYSTEM = "You are a coding agent. Use the tools."
TOOLS = [{"name": "read_file", "description": "read a file", "input_schema": {"type": "object"}}]


def session(turns: int, size: int = 3_000) -> list[dict]:
    """A task, then ``turns`` reads, each answered by a long file."""
    messages = [user("Read every module and fix the failing test.")]
    for k in range(turns):
        messages.append(assistant(tool_use(f"t{k}", "read_file", {"path": f"m{k}.py"})))
        messages.append(user(tool_result(f"t{k}", f"def f{k}():\n" + "    x = 1\n" * (size // 10))))
    return messages


def test_fit_request_keeps_the_cached_prefix_whole_and_leans_only_what_came_after():
    messages = session(4)
    cached = len(messages) - 2  # the agent's last request: all but the newest read
    full = estimate_tokens(with_summary_prompt(messages), "tiktoken")
    tail = estimate_tokens(messages[-1:], "tiktoken") - estimate_tokens(lean(messages[-1:]), "tiktoken")
    budget = full - tail // 2  # the whole request does not fit; with the newest output left out it does
    request, dropped = fit_request(messages, budget, cached=cached)
    validate(request)
    assert dropped == 0 and request[:cached] == messages[:cached]  # read from the cache as it was
    assert "characters of output left out" in str(request[-1]["content"][0]["content"])
    plain, plain_dropped = fit_request(messages, budget)  # without it the oldest groups go
    assert plain_dropped > 0 and plain[:2] != messages[:2]


def agent_request(client: RecordingClient, messages: list[dict]) -> None:
    client.messages.create(model="m", max_tokens=100, system=SYSTEM, tools=TOOLS, messages=messages)


def summary_reads(summary: Summary, tmp_path) -> tuple[int, int]:
    """(tokens the summary request read from the cache, its system prompt + tools + messages sent)."""
    client = RecordingClient(FakeClient())
    compactor = Compactor([summary], client=client, transcript_dir=tmp_path, threshold=1_000)
    messages = session(3, size=600)
    agent_request(client, messages)
    compactor.observe(messages, {"input_tokens": estimate_tokens(messages, "tiktoken")})
    newest = session(4, size=600)[-2:]  # the next read arrives; the list is now over the threshold
    out = compactor.prepare(messages + newest)
    assert compactor.counts()["summary"] == 1 and len(out) == 1
    summary_request = client.requests[-1]
    assert summary_request.summary
    tokens = Tokens()
    cost = price(client.requests, tokens)
    read_by_summary = cost.read  # the agent request read nothing: it was the first
    sent = summary_request.framing + sum(tokens(m) for m in summary_request.messages)
    return read_by_summary, sent


def test_a_shared_summary_request_reads_the_agents_prefix_from_the_cache(tmp_path):
    shared = Summary(share_cache=True, options={"system": SYSTEM, "tools": TOOLS})
    read, sent = summary_reads(shared, tmp_path / "shared")
    prefix = framing_tokens(SYSTEM, TOOLS) + estimate_tokens(session(3, size=600), "tiktoken")
    assert read == prefix and sent > read  # everything the agent sent, read; only the rest written
    read_default, _ = summary_reads(Summary(), tmp_path / "default")
    assert read_default == 0  # its own framing: nothing of the history is read from the cache


def test_share_cache_passes_how_many_messages_the_last_request_sent(tmp_path):
    seen = {}

    def run(messages, **options):
        seen.update(options)
        return [user("summary")]

    compactor = Compactor([Summary(share_cache=True, run=run)], client=object(), transcript_dir=tmp_path)
    messages = session(2, size=100)
    compactor.observe(messages, {"input_tokens": 10})
    compactor.compact(messages + session(3, size=100)[-2:])
    assert seen["cached"] == len(messages)
    seen.clear()
    Compactor([Summary(run=run)], client=object(), transcript_dir=tmp_path).compact(messages)
    assert "cached" not in seen  # off by default


def test_share_cache_must_be_a_bool():
    with pytest.raises(ValueError, match="share_cache must be True or False"):
        Summary(share_cache="yes")


def test_the_default_pipeline_shares_the_agents_cache_only_when_its_framing_is_known(tmp_path):
    agent = {"system": SYSTEM, "tools": TOOLS}
    compactor = build("pipeline", window=8_000, client=None, folder=tmp_path, agent=agent)
    summary = compactor.layer("summary")
    assert summary.share_cache and summary.options == agent
    unknown = build("pipeline", window=8_000, client=None, folder=tmp_path).layer("summary")
    assert unknown.share_cache and "system" not in unknown.options
    blind = build("pipeline, cache-blind", window=8_000, client=None, folder=tmp_path, agent=agent)
    assert not blind.layer("summary").share_cache and not blind.layer("summary").options
    assert compactor.layer("micro") == Micro.cache_aware()
    assert blind.layer("micro") == Micro() and Micro().payback_turns == 0


def test_the_cache_aware_micro_keeps_one_result_and_pays_for_its_breaks():
    micro = Micro.cache_aware()
    assert (micro.keep_recent, micro.trigger, micro.payback_turns, micro.keep_unread) == (1, 0.3, 30, True)
    assert (micro.keep_errors, micro.keep_used) == (2, 1)  # chosen on the real sessions (issue 40)
    assert Micro.cache_aware(keep_used=2) == replace(micro, keep_used=2)


def test_the_variants_of_the_default_change_one_setting_each(tmp_path):
    default = {layer.name: layer for layer in default_layers()}
    for name, layer, setting in (
        ("pipeline, no ledger", "summary", "ledger_tokens"),
        ("pipeline + used", "micro", "keep_used"),
    ):
        changed = build(name, window=8_000, client=None, folder=tmp_path).layer(layer)
        assert getattr(changed, setting) != getattr(default[layer], setting)
        assert replace(changed, **{setting: getattr(default[layer], setting)}) == default[layer]


def clearing_numbers(messages: list[dict]) -> tuple[int, int]:
    """(tokens a default clearing frees, tokens after its first cleared result) for ``messages``."""
    counter = Compactor([]).counter
    after = Micro().apply(messages, Compactor([]))
    first = next(i for i, (a, b) in enumerate(zip(messages, after, strict=True)) if a is not b)
    freed = counter.estimate(messages) - counter.estimate(after)
    return freed, sum(counter.message_tokens(m) for m in after[first:])


def micro_fired(micro: Micro, messages: list[dict], threshold: int, ran: int = 100) -> bool:
    """Whether micro clears ``messages`` in a session that has run ``ran`` calls (the first ones short)."""
    compactor = Compactor([micro], threshold=threshold)
    for _ in range(ran - 1):
        compactor.prepare(messages[:1])  # far under micro's trigger: nothing to clear
    compactor.prepare(messages)
    return compactor.counts()["micro"] == 1


def test_payback_turns_clears_only_when_the_reads_saved_pay_for_the_rewrite():
    messages = session(6, size=800)
    freed, tail = clearing_numbers(messages)
    assert freed > 0 and tail > freed
    # break-even: freed x READ x turns = tail x WRITE
    even = tail * micro_module.WRITE_PRICE / (freed * micro_module.READ_PRICE)
    under = Compactor([]).counter.estimate(messages) + 100  # within the summary threshold, over trigger
    assert micro_fired(Micro(clear_at_least=0), messages, under)  # off: the batch alone decides
    assert micro_fired(Micro(clear_at_least=0, payback_turns=math.ceil(even) + 1), messages, under)
    assert not micro_fired(Micro(clear_at_least=0, payback_turns=math.floor(even) - 1), messages, under)
    over = Compactor([]).counter.estimate(messages) - 1  # over the summary threshold: always worth it
    assert micro_fired(Micro(clear_at_least=0, payback_turns=1), messages, over)
    reason = Micro(clear_at_least=0, payback_turns=1).why_idle(messages, Compactor([], threshold=under))
    assert "cache reads over 1 turns" in reason and f"{tail:,} tokens after the first cleared" in reason


def test_a_young_session_pays_back_only_over_the_turns_it_has_run():
    messages = session(6, size=800)
    freed, tail = clearing_numbers(messages)
    even = math.ceil(tail * micro_module.WRITE_PRICE / (freed * micro_module.READ_PRICE))
    under = Compactor([]).counter.estimate(messages) + 100
    micro = Micro(clear_at_least=0, payback_turns=even + 5)  # pays back over 30 turns, say
    assert micro_fired(micro, messages, under, ran=even + 1)  # a session that ran that long: it pays
    assert not micro_fired(micro, messages, under, ran=even - 1)  # a younger one would never earn it back
    compactor = Compactor([micro], threshold=under)
    compactor.prepare(messages)
    assert micro.turns_ahead(compactor) == 1
    assert "cache reads over 1 turns" in micro.why_idle(messages, compactor)


def test_new_settings_stay_out_of_the_repr_until_set():
    assert "payback_turns" not in repr(Micro()) and "payback_turns=40" in repr(Micro(payback_turns=40))
    assert "share_cache" not in repr(Summary()) and "share_cache=True" in repr(Summary(share_cache=True))
    with pytest.raises(ValueError, match="payback_turns"):
        Micro(payback_turns=-1)
