"""Thinking blocks bound to their conversation on the offline server: what edits and compactions do to them.

The rules are the preserved-thinking page's and the compaction-thinking-blocks page's: a thinking block sent
back is checked against everything before it as sent (``system``, the non-deferred ``tools``, earlier messages
without their thinking); a mismatch is a 400 under ``"error"``, dropped with every later thinking block under
``"drop_block"``, shown and reported each on its own when not enforced; server-side compaction and clearing
are no edits (the checked prefix starts at the compaction block); a client's summary that keeps a tail fails
the kept thinking, an on-demand block keeps it valid; a cleared turn-scoped message left in place is no edit.
"""

from __future__ import annotations

import anthropic
import pytest
from anthropic.types.beta import BetaMessage
from api_sessions import MODEL, client_for, private_server, strict

from compaction.core.messages import tool_result, user
from compaction.core.tokens import estimate_tokens
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.context_config import HEADER_COURSE_SCALE
from compaction.offline.server.system_messages import BETA_CLEAR_AT
from compaction.offline.server.thinking import BETA_BINDING

READ = {
    "name": "read_file",
    "description": "Read a file.",
    "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
}
TASK = user("Read src/a.py, src/b.py and src/c.py, then say what they do.")
SUMMARIZED = {"type": "adaptive", "display": "summarized"}


def bound(behavior: str | None) -> dict:
    return {"type": "adaptive", "block_binding": {"prefix_mismatch_behavior": behavior} if behavior else {}}


@pytest.fixture
def server():
    with private_server(ManualClock()) as running:
        yield running


def ask(server, messages, thinking=SUMMARIZED, betas=(BETA_BINDING,), tools=(READ,), **params) -> BetaMessage:
    client = client_for(server).with_options(default_headers={HEADER_COURSE_SCALE: "on"})
    raw = client.beta.messages.with_raw_response.create(
        model=MODEL, max_tokens=2048, messages=messages, tools=list(tools), betas=list(betas),
        **({"thinking": thinking} if thinking else {}), **params,
    )  # fmt: skip
    return strict(BetaMessage, raw.http_response.json())


def as_param(answer: BetaMessage) -> dict:
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]}


def played(server, turns: int, start=(TASK,), **params) -> list:
    """The conversation after ``turns`` answers with thinking, each call answered with a short file."""
    messages = list(start)
    for _ in range(turns):
        answer = ask(server, messages, **params)
        messages.append(as_param(answer))
        calls = [b for b in answer.content if b.type == "tool_use"]
        if calls:
            results = [tool_result(b.id, f"def f():\n    return {b.input}\n" * 12) for b in calls]
            messages.append(user(*results))
    return messages


def thinking_paths(messages) -> list[str]:
    return [
        f"messages.{i}.content.{j}"
        for i, m in enumerate(messages)
        for j, b in enumerate(m["content"] if isinstance(m["content"], list) else [])
        if b.get("type") == "thinking"
    ]


def refused(server, messages, **params) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(server, messages, **params)
    return caught.value.body["error"]["message"]


def test_the_model_thinks_only_when_asked_and_shows_the_text_only_when_summarized(server):
    assert ask(server, [TASK], thinking=None).content[0].type == "text"
    first = ask(server, [TASK], thinking={"type": "adaptive"}).content[0]
    assert first.type == "thinking" and first.thinking == "" and first.signature  # "omitted": Sonnet 5.5's
    assert ask(server, [TASK]).content[0].thinking == "Next: call read_file."
    assert refused(server, [TASK], thinking={"type": "enabled", "budget_tokens": 512}).startswith(
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    )
    too_much = {"type": "enabled", "budget_tokens": 4096}
    assert "less than `max_tokens`" in refused(server, [TASK], thinking=too_much)
    assert "'updates'" in refused(server, [TASK], thinking={"type": "adaptive", "display": "updates"})
    assert refused(server, [TASK], thinking=bound("error"), betas=()).startswith(
        f"thinking.block_binding: requires the beta header `anthropic-beta: {BETA_BINDING}`"
    )


def test_an_unchanged_history_keeps_every_thinking_block_and_reports_nothing(server):
    history = played(server, 3)
    assert len(thinking_paths(history)) == 3
    going_on = history + [user("Thanks.")] if history[-1]["role"] == "assistant" else history
    assert ask(server, going_on, thinking=bound("error")).input_transformations == []
    assert ask(server, going_on).input_transformations == []  # the beta header: reported, empty
    assert ask(server, going_on, betas=()).input_transformations is None  # no header: not reported


def test_an_edited_earlier_message_fails_every_later_thinking_block_as_each_behavior_says(server):
    history = played(server, 3)
    edited = [user("Read src/a.py and src/b.py, then say what they do."), *history[1:]]
    paths = thinking_paths(edited)
    words = refused(server, edited, thinking=bound("error"))
    assert words.startswith(
        f"{paths[0]}: Invalid `signature` in `thinking` block. The block is bound to a different "
        "conversation. Remove the block, or set `thinking.block_binding.prefix_mismatch_behavior` to "
        '"drop_block".'
    )
    assert words.endswith("The messages before the block differ from when it was created.")
    dropped = ask(server, edited, thinking=bound("drop_block"))
    assert [(t.type, t.path, t.reason) for t in dropped.input_transformations] == [
        ("thinking_dropped", p, "prefix_binding_mismatch") for p in paths
    ]
    without = [{**m, "content": [b for b in m["content"] if b.get("type") != "thinking"]}
               if m["role"] == "assistant" else m for m in edited]  # fmt: skip
    assert dropped.usage.input_tokens == estimate_tokens(without, "tiktoken", tools=[READ])  # not billed
    allowed = ask(server, edited)  # the check not enforced: shown, each reported on its own
    assert [t.type for t in allowed.input_transformations] == ["thinking_mismatch_allowed"] * len(paths)
    assert allowed.usage.input_tokens == estimate_tokens(edited, "tiktoken", tools=[READ])


def test_an_edited_thinking_text_is_refused_whatever_the_behavior(server):
    history = played(server, 2)
    block = history[1]["content"][0]
    history[1] = {**history[1], "content": [{**block, "thinking": block["thinking"] + " And more."}]
                  + history[1]["content"][1:]}  # fmt: skip
    for thinking in (SUMMARIZED, bound("drop_block")):
        assert refused(server, history, thinking=thinking) == (
            "messages.1.content.0: Invalid `signature` in `thinking` block: the block was changed after "
            "the API returned it"
        )


def test_thinking_removed_from_the_front_is_valid_and_from_the_middle_fails_what_follows(server):
    history = played(server, 4)
    strip = lambda k: {**history[k], "content": history[k]["content"][1:]}  # noqa: E731 - drop its thinking
    front = [history[0], strip(1), *history[2:]]
    assert ask(server, front, thinking=bound("error")).input_transformations == []
    middle = [*history[:3], strip(3), *history[4:]]
    dropped = ask(server, middle, thinking=bound("drop_block"))
    assert [t.path for t in dropped.input_transformations] == thinking_paths(middle)[1:]


def test_a_changed_system_or_tool_fails_and_a_marker_or_a_deferred_tool_does_not(server):
    history = played(server, 2, system="You read code.")
    assert refused(server, history, thinking=bound("error"), system="You read code carefully.").endswith(
        "The `system` prompt or the `tools` list differs from when the block was created."
    )
    marked = [{"type": "text", "text": "You read code.", "cache_control": {"type": "ephemeral"}}]
    deferred = {**READ, "name": "grep_file", "defer_loading": True}
    same = ask(server, history, thinking=bound("error"), system=marked, tools=(READ, deferred))
    assert same.input_transformations == []


def test_server_side_compaction_and_clearing_are_no_edits(server):
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 500}}
    betas = (BETA_BINDING, "compact-2026-01-12", "context-management-2025-06-27")
    history = played(server, 5, betas=betas, context_management={"edits": [edit]})
    kinds = [[b["type"] for b in m["content"]] for m in history if m["role"] == "assistant"]
    assert any(k[:2] == ["compaction", "thinking"] for k in kinds), kinds  # bound to the block it follows
    clear = {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1}}
    for edits in ([edit], [clear], [clear, edit]):
        managed = {"edits": edits}
        answer = ask(server, history, thinking=bound("error"), betas=betas, context_management=managed)
        assert answer.input_transformations == []


def test_a_client_summary_fails_the_kept_thinking_and_an_on_demand_block_keeps_it(server):
    betas = (BETA_BINDING, "compact-2026-09-04")
    history = played(server, 4, betas=betas)
    kept = history[3:]  # from the reply to the request history[:3] was
    summary = ask(server, history[:3], betas=betas, compaction={"type": "summarize"})
    swapped = [as_param(summary), *kept]
    assert ask(server, swapped, thinking=bound("error"), betas=betas).input_transformations == []
    yours = [user("Summary: src/a.py was read."), *kept]  # the same tail behind a summary of your own
    dropped = ask(server, yours, thinking=bound("drop_block"), betas=betas)
    assert [t.path for t in dropped.input_transformations] == thinking_paths(yours)


def test_a_cleared_turn_scoped_message_left_in_place_is_no_edit_and_deleting_it_is(server):
    betas = (BETA_BINDING, BETA_CLEAR_AT)
    start = [TASK, {"role": "system", "content": "Read one file a turn.", "clear_at": "next_user_message"}]
    history = played(server, 3, start=start, betas=betas)
    assert ask(server, history, thinking=bound("error"), betas=betas).input_transformations == []
    deleted = [history[0], *history[2:]]
    dropped = ask(server, deleted, thinking=bound("drop_block"), betas=betas)
    assert [t.path for t in dropped.input_transformations] == thinking_paths(deleted)
