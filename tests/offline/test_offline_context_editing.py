"""Context editing on the offline server, through the real SDK's beta client.

``clear_tool_uses_20250919`` and ``clear_thinking_20251015``: their documented defaults and
boundaries, ``applied_edits``, ``usage`` after the edits, the cache broken from the first cleared
block, ``count_tokens``, and the 400s that name the wrong field.
"""

from __future__ import annotations

import anthropic
import pytest
from anthropic.types.beta import BetaMessage, BetaMessageTokensCount
from api_sessions import CONTEXT, MODEL, TOOLS, client_for, strict, tool_session

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.core.tokens import estimate_tokens
from compaction.offline import OfflineServer
from compaction.offline.server.api import HEADER_CLEAR_IN_ROUNDS
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.context_edits import PLACEHOLDER


@pytest.fixture(scope="module")
def server():
    with OfflineServer(clock=ManualClock()) as running:
        yield running


def clear(**params) -> dict:
    return {"edits": [{"type": "clear_tool_uses_20250919", **params}]}


def by_tokens(value: int) -> dict:
    return {"type": "input_tokens", "value": value}


def keep(value: int) -> dict:
    return {"type": "tool_uses", "value": value}


def ask(server, messages, context_management=None, betas=(CONTEXT,), model=MODEL, **kwargs) -> BetaMessage:
    raw = client_for(server).beta.messages.with_raw_response.create(
        model=model,
        max_tokens=64,
        messages=messages,
        tools=TOOLS,
        betas=list(betas),
        **({"context_management": context_management} if context_management is not None else {}),
        **kwargs,
    )
    return strict(BetaMessage, raw.http_response.json())


def cleared_by_hand(messages: list, ids: set[str], inputs: bool = False) -> list:
    """The messages with the results (and maybe the inputs) of ``ids`` replaced: the expected edit."""
    out = []
    for m in messages:
        if isinstance(m["content"], str):
            out.append(m)
            continue
        new = []
        for b in m["content"]:
            if b["type"] == "tool_result" and b["tool_use_id"] in ids:
                b = {**b, "content": PLACEHOLDER}
            if b["type"] == "tool_use" and b["id"] in ids and inputs:
                b = {**b, "input": {}}
            new.append(b)
        out.append({**m, "content": new})
    return out


def tokens(messages) -> int:
    return estimate_tokens(messages, "tiktoken", tools=TOOLS)


def test_keep_three_of_twenty_four_tool_results_clears_twenty_one(server):
    session = tool_session(24)
    answer = ask(server, session, clear(trigger=by_tokens(1000), keep=keep(3)))
    [edit] = answer.context_management.applied_edits
    expected = cleared_by_hand(session, {f"toolu_{k:02d}" for k in range(21)})
    assert edit.type == "clear_tool_uses_20250919" and edit.cleared_tool_uses == 21
    assert answer.usage.input_tokens == tokens(expected) < tokens(session)
    assert edit.cleared_input_tokens == tokens(session) - tokens(expected)


def test_the_defaults_trigger_at_100000_tokens_so_a_short_session_is_left_alone(server):
    answer = ask(server, tool_session(24), clear())
    assert answer.context_management.applied_edits == []
    assert answer.usage.input_tokens == tokens(tool_session(24))


def test_the_default_keep_is_three_tool_uses(server):
    [edit] = ask(server, tool_session(10), clear(trigger=by_tokens(1))).context_management.applied_edits
    assert edit.cleared_tool_uses == 7


def test_an_input_token_trigger_fires_only_above_its_value(server):
    session = tool_session(8)
    at = ask(server, session, clear(trigger=by_tokens(tokens(session)), keep=keep(3)))
    above = ask(server, session, clear(trigger=by_tokens(tokens(session) - 1), keep=keep(3)))
    assert at.context_management.applied_edits == [] and len(above.context_management.applied_edits) == 1


def test_a_tool_use_trigger_counts_the_tool_uses(server):
    session = tool_session(8)
    at = ask(server, session, clear(trigger={"type": "tool_uses", "value": 8}))
    above = ask(server, session, clear(trigger={"type": "tool_uses", "value": 7}))
    assert at.context_management.applied_edits == []
    assert above.context_management.applied_edits[0].cleared_tool_uses == 5


def test_keep_zero_clears_every_tool_use_and_keep_all_clears_none(server):
    session = tool_session(6)
    everything = ask(server, session, clear(trigger=by_tokens(1), keep=keep(0)))
    assert everything.context_management.applied_edits[0].cleared_tool_uses == 6
    assert (
        ask(server, session, clear(trigger=by_tokens(1), keep=keep(6))).context_management.applied_edits == []
    )


def test_clear_at_least_applies_the_edit_only_when_that_much_can_go(server):
    session = tool_session(6)
    can_go = tokens(session) - tokens(cleared_by_hand(session, {"toolu_00", "toolu_01", "toolu_02"}))
    exact = ask(server, session, clear(trigger=by_tokens(1), clear_at_least=by_tokens(can_go)))
    more = ask(server, session, clear(trigger=by_tokens(1), clear_at_least=by_tokens(can_go + 1)))
    assert exact.context_management.applied_edits[0].cleared_input_tokens == can_go
    assert more.context_management.applied_edits == [] and more.usage.input_tokens == tokens(session)


def test_excluded_tools_keep_their_results(server):
    session = tool_session(12, tools=("read_file", "bash"))
    answer = ask(server, session, clear(trigger=by_tokens(1), exclude_tools=["bash"]))
    bash_ids = {f"toolu_{k:02d}" for k in range(1, 9, 2)}  # the older bash calls, kept
    read_ids = {f"toolu_{k:02d}" for k in range(0, 9, 2)}  # the older read_file calls, cleared
    assert answer.context_management.applied_edits[0].cleared_tool_uses == len(read_ids) == 5
    assert answer.usage.input_tokens == tokens(cleared_by_hand(session, read_ids))
    assert not bash_ids & read_ids


def test_clear_tool_inputs_also_empties_the_calls_and_a_list_names_the_tools(server):
    session = tool_session(6, tools=("read_file", "bash"))
    older = {f"toolu_{k:02d}" for k in range(3)}
    everything = ask(server, session, clear(trigger=by_tokens(1), clear_tool_inputs=True))
    assert everything.usage.input_tokens == tokens(cleared_by_hand(session, older, inputs=True))
    only_bash = ask(server, session, clear(trigger=by_tokens(1), clear_tool_inputs=["bash"]))
    expected = cleared_by_hand(cleared_by_hand(session, older), {"toolu_01"}, inputs=True)
    assert only_bash.usage.input_tokens == tokens(expected)


def thinking_session(turns: int) -> list:
    messages = [user("Think, then act.")]
    for k in range(turns):
        thought = {
            "type": "thinking",
            "thinking": f"Step {k}: I should read m{k}.py. " * 20,
            "signature": "sig",
        }
        messages.append(assistant(thought, text(f"Reading m{k}."), tool_use(f"toolu_t{k}", "read_file", {})))
        messages.append(user(tool_result(f"toolu_t{k}", f"line {k} of the file\n" * 30)))
    return messages


def test_clear_thinking_keeps_every_turns_thinking_by_default_on_current_models(server):
    session = thinking_session(4)  # the context-editing page: "Opus 4.5+ and Sonnet 4.6+: all turns"
    for model in ("claude-sonnet-5-5", "claude-opus-4-5"):
        answer = ask(server, session, {"edits": [{"type": "clear_thinking_20251015"}]}, model=model)
        assert answer.context_management.applied_edits == [], model
        assert answer.usage.input_tokens == tokens(session)


def test_clear_thinking_keeps_the_last_turns_thinking_by_default_on_earlier_models(server):
    session = thinking_session(4)  # "Earlier Opus/Sonnet and all Haiku: last turn only"
    answer = ask(server, session, {"edits": [{"type": "clear_thinking_20251015"}]}, model="claude-haiku-4-5")
    [edit] = answer.context_management.applied_edits
    assert edit.type == "clear_thinking_20251015" and edit.cleared_thinking_turns == 3
    expected = [
        {**m, "content": [b for b in m["content"] if b["type"] != "thinking"]} if 0 < i < 6 else m
        for i, m in enumerate(session)
    ]
    assert answer.usage.input_tokens == tokens(expected)
    assert edit.cleared_input_tokens == tokens(session) - tokens(expected)


def test_clear_thinking_keep_all_or_a_count(server):
    session = thinking_session(4)
    keep_all = {"edits": [{"type": "clear_thinking_20251015", "keep": "all"}]}
    assert ask(server, session, keep_all).context_management.applied_edits == []
    two = {"edits": [{"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 2}}]}
    assert ask(server, session, two).context_management.applied_edits[0].cleared_thinking_turns == 2


def test_both_edits_apply_in_the_order_given(server):
    session = thinking_session(5)
    edits = {
        "edits": [
            {"type": "clear_thinking_20251015", "keep": {"type": "thinking_turns", "value": 1}},
            clear(trigger=by_tokens(1), keep=keep(1))["edits"][0],
        ]
    }
    applied = ask(server, session, edits).context_management.applied_edits
    assert [e.type for e in applied] == ["clear_thinking_20251015", "clear_tool_uses_20250919"]


def test_clearing_breaks_the_cache_from_the_first_cleared_block(server):
    session = tool_session(12)
    last = session[-1]["content"][-1]
    session[-1] = {**session[-1], "content": [{**last, "cache_control": {"type": "ephemeral"}}]}
    prompt = "Be careful. " * 400
    system = [{"type": "text", "text": prompt, "cache_control": {"type": "ephemeral"}}]
    head = estimate_tokens([], "tiktoken", system=prompt, tools=TOOLS)
    server.cache.clear()
    ask(server, session, system=system)
    unedited = ask(server, session, system=system)
    assert unedited.usage.cache_read_input_tokens == estimate_tokens(
        session, "tiktoken", system=prompt, tools=TOOLS
    )
    edited = ask(server, session, clear(trigger=by_tokens(1)), system=system)
    after = cleared_by_hand(session, {f"toolu_{k:02d}" for k in range(9)})
    assert edited.usage.cache_read_input_tokens == head  # what precedes the first cleared block
    assert (
        edited.usage.cache_creation_input_tokens
        == estimate_tokens(after, "tiktoken", system=prompt, tools=TOOLS) - head
    )
    again = ask(server, session, clear(trigger=by_tokens(1)), system=system)
    assert again.usage.cache_read_input_tokens == head + edited.usage.cache_creation_input_tokens


def test_count_tokens_reports_the_count_before_context_management(server):
    session = tool_session(24)
    client = client_for(server)
    raw = client.beta.messages.with_raw_response.count_tokens(
        model=MODEL,
        messages=session,
        tools=TOOLS,
        betas=[CONTEXT],
        context_management=clear(trigger=by_tokens(1)),
    )
    counted = strict(BetaMessageTokensCount, raw.http_response.json())
    assert counted.context_management.original_input_tokens == tokens(session)
    assert counted.input_tokens == tokens(cleared_by_hand(session, {f"toolu_{k:02d}" for k in range(21)}))
    plain = client.beta.messages.count_tokens(model=MODEL, messages=session, tools=TOOLS)
    assert plain.context_management is None and plain.input_tokens == tokens(session)


@pytest.mark.parametrize(
    ("context_management", "betas", "field"),
    [
        (clear(), (), "context_management.edits.0.type: 'clear_tool_uses_20250919' requires the beta header"),
        (
            {"edits": [{"type": "clear_everything"}]},
            (CONTEXT,),
            "context_management.edits.0: Input tag 'clear_everything'",
        ),
        (
            clear(keep={"type": "tool_uses", "value": "3"}),
            (CONTEXT,),
            "context_management.edits.0.keep.value: Input should be a valid integer",
        ),
        (
            clear(keep=keep(-1)),
            (CONTEXT,),
            "context_management.edits.0.keep.value: Input should be greater than or equal to 0",
        ),
        (
            clear(trigger={"type": "messages", "value": 3}),
            (CONTEXT,),
            "context_management.edits.0.trigger.type",
        ),
        (
            clear(exclude_tools="bash"),
            (CONTEXT,),
            "context_management.edits.0.exclude_tools: Input should be a valid list",
        ),
        (
            clear(clear_tool_inputs=[1]),
            (CONTEXT,),
            "context_management.edits.0.clear_tool_inputs.0: Input should be a valid string",
        ),
        (
            clear(keeps=keep(3)),
            (CONTEXT,),
            "context_management.edits.0.keeps: Extra inputs are not permitted",
        ),
        (
            {"edits": {"type": "clear_tool_uses_20250919"}},
            (CONTEXT,),
            "context_management.edits: Input should be a valid list",
        ),
        (
            {"edits": [{"type": "clear_thinking_20251015", "keep": 2}]},
            (CONTEXT,),
            "context_management.edits.0.keep: Input should be a valid dictionary",
        ),
        (
            {"edits": [{"type": "compact_20260112"}]},
            (CONTEXT,),
            "requires the beta header `anthropic-beta: compact-2026-01-12`",
        ),
    ],
)
def test_a_wrong_edit_is_a_400_that_names_the_field(server, context_management, betas, field):
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(server, tool_session(2), context_management, betas=betas)
    assert caught.value.body["error"]["type"] == "invalid_request_error"
    assert field in caught.value.body["error"]["message"]
    assert caught.value.body["request_id"].startswith("req_")


def replay_clearing(server, edits, headers=None) -> list[int]:
    """Send a growing session turn by turn; the turns at which a new clearing broke the cache."""
    server.cache.clear()
    rounds, previous = [], None
    for n in range(4, 25):
        answer = ask(
            server,
            tool_session(n),
            edits,
            extra_body={"cache_control": {"type": "ephemeral"}},
            extra_headers=headers or {},
        )
        applied = answer.context_management.applied_edits
        cleared = applied[0].cleared_tool_uses if applied else 0
        if previous is not None and cleared == previous[0]:
            assert answer.usage.cache_read_input_tokens == previous[1]  # the whole last request, from cache
        elif previous is not None:
            rounds.append(n)
            assert answer.usage.cache_read_input_tokens < previous[1]  # a round breaks the cache
        previous = (
            cleared,
            answer.usage.input_tokens
            + answer.usage.cache_read_input_tokens
            + answer.usage.cache_creation_input_tokens,
        )
    return rounds


def test_the_server_option_clears_in_rounds_so_the_prefix_stays_put_between_them(server):
    edits = clear(trigger=by_tokens(3000), keep=keep(3), clear_at_least=by_tokens(1500))
    rounds = replay_clearing(server, edits, {HEADER_CLEAR_IN_ROUNDS: "on"})
    assert 2 <= len(rounds) <= 6  # a few rounds, not one per turn


def test_by_default_every_request_over_the_trigger_keeps_exactly_keep_results(server):
    edits = clear(trigger=by_tokens(3000), keep=keep(3), clear_at_least=by_tokens(1500))
    rounds = replay_clearing(server, edits)
    assert len(rounds) >= 10  # the documented edit: all but 3 cleared on each request, so the prefix moves
    for n in (12, 24):
        [edit] = ask(server, tool_session(n), edits).context_management.applied_edits
        assert edit.cleared_tool_uses == n - 3
