"""Mid-conversation ``role: "system"`` messages and turn-scoped ones on the offline server, through the SDK.

The rules are the mid-conversation system messages page's: placement (after a user turn, before an
assistant turn or at the end, never first), ``clear_at`` only with its beta header and only on a system
message, a turn-scoped message text-only and without ``cache_control``, cleared (rendered as nothing, no
tokens) once a user message follows it, and skipped by the automatic cache breakpoint; appending a system
message keeps the cached prefix, editing the top-level ``system`` does not. The offline agent reads a
system message as an instruction: the user's constraint stated there keeps it off the shortcut.
"""

from __future__ import annotations

import anthropic
import pytest
from api_sessions import MODEL, TOOLS, client_for, private_server, strict, tool_session

from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.core.tokens import estimate_tokens
from compaction.offline.scripted import plan, scenario
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.system_messages import BETA_CLEAR_AT

NOTE = {"role": "system", "content": "The user can no longer see tool output; say what you found."}
SCOPED = {**NOTE, "clear_at": "next_user_message"}
SYSTEM_TEXT = "You review code. " * 120  # long enough to be cached on its own


@pytest.fixture
def server():
    with private_server(ManualClock()) as running:
        yield running


def ask(server, messages, betas=(BETA_CLEAR_AT,), model=MODEL, **params):
    client = client_for(server)
    raw = client.beta.messages.with_raw_response.create(
        model=model, max_tokens=64, messages=messages, tools=TOOLS, betas=list(betas), **params
    )
    return strict(anthropic.types.beta.BetaMessage, raw.http_response.json())


def refused(server, messages, **params) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(server, messages, **params)
    return caught.value.body["error"]["message"]


def tokens(messages) -> int:
    return estimate_tokens(messages, "tiktoken", tools=TOOLS)


def test_a_system_message_after_the_tool_results_is_read_and_counted(server):
    session = tool_session(3) + [NOTE]
    answer = ask(server, session)
    assert answer.usage.input_tokens == tokens(session) > tokens(tool_session(3))
    counted = client_for(server).beta.messages.count_tokens(
        model=MODEL, messages=session, tools=TOOLS, betas=[BETA_CLEAR_AT]
    )
    assert counted.input_tokens == tokens(session)


@pytest.mark.parametrize(
    "messages, words",
    [
        ([NOTE, user("hi")], "messages.0: a system message cannot be the first message"),
        ([user("a"), assistant(tool_use("toolu_1", "bash", {})), NOTE, user(tool_result("toolu_1", "ok"))],
         "messages.2: a mid-conversation system message must follow a `user` turn"),
        ([user("a"), NOTE, user("b")],
         "messages.1: a mid-conversation system message must precede an `assistant`"),
        ([user("a"), {"role": "system", "content": [tool_result("toolu_1", "x")]}],
         "messages.1.content.0: `tool_result` blocks are not allowed in system messages"),
    ],
)  # fmt: skip
def test_a_misplaced_system_message_is_refused_naming_it(server, messages, words):
    assert refused(server, messages).startswith(words)


@pytest.mark.parametrize(
    "message, betas, words",
    [
        (SCOPED, (), "messages.1.clear_at: Extra inputs are not permitted"),
        ({**user("b"), "clear_at": "never"}, (BETA_CLEAR_AT,),
         "messages.1.clear_at: clear_at is only permitted on role 'system' messages"),
        ({**NOTE, "clear_at": "tomorrow"}, (BETA_CLEAR_AT,),
         "messages.1.clear_at: Input should be 'next_user_message' or 'never'"),
        ({**SCOPED, "content": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "x"}}]},
         (BETA_CLEAR_AT, "inline-tools-2026-09-15"),
         "messages.1: a turn-scoped system message supports text blocks only"),
        ({**SCOPED, "content": [{"type": "text", "text": "Brief.", "cache_control": {"type": "ephemeral"}}]},
         (BETA_CLEAR_AT,),
         "messages.1.content.0: cache_control is not permitted on a turn-scoped system message"),
        ({**SCOPED, "output_config": {"effort": "low"}}, (BETA_CLEAR_AT,),
         "messages.1: output_config is not permitted on a turn-scoped system message"),
        ({**NOTE, "output_config": {"effort": "low"}}, (BETA_CLEAR_AT,),
         "messages.1.output_config: per-message effort (`mid-conversation-output-config-2026-07-01`) is not"),
    ],
)  # fmt: skip
def test_clear_at_and_the_turn_scoped_rules_are_refused_in_the_pages_words(server, message, betas, words):
    assert refused(server, [user("a"), message], betas=betas).startswith(words)


def test_models_the_page_does_not_name_refuse_a_system_message(server):
    assert refused(server, [user("a"), NOTE], model="claude-sonnet-5").startswith(
        "messages.1: mid-conversation system messages are not available on claude-sonnet-5"
    )
    assert ask(server, [user("a"), NOTE], model="claude-sonnet-5-5").stop_reason  # the default model has them


def test_a_turn_scoped_message_renders_until_a_user_message_follows_it_then_costs_nothing(server):
    session = tool_session(2)
    last = ask(server, session + [SCOPED])
    assert last.usage.input_tokens == tokens(session + [SCOPED]) > tokens(session)
    later = session + [SCOPED, assistant(text("Reading m2."), tool_use("toolu_02", "read_file", {})),
                       user(tool_result("toolu_02", "ok"))]  # fmt: skip
    cleared = ask(server, later)
    assert cleared.usage.input_tokens == tokens([m for m in later if m is not SCOPED])  # a result clears it
    kept = later + [NOTE]  # a plain system message at the end renders, like any message
    assert ask(server, kept).usage.input_tokens == tokens([m for m in kept if m is not SCOPED])


def test_appending_a_system_message_keeps_the_cached_prefix_and_editing_system_misses_it(server):
    cached = {"cache_control": {"type": "ephemeral"}}
    session = tool_session(4)
    first = ask(server, session, system=SYSTEM_TEXT, **cached)
    written = first.usage.cache_creation_input_tokens
    assert written == estimate_tokens(session, "tiktoken", system=SYSTEM_TEXT, tools=TOOLS)
    appended = ask(server, session + [NOTE], system=SYSTEM_TEXT, **cached)
    assert appended.usage.cache_read_input_tokens == written  # everything before the new message
    edited = ask(server, session, system=SYSTEM_TEXT + " Say what you found.", **cached)
    assert edited.usage.cache_read_input_tokens == 0  # the top-level system starts the prefix


def test_the_automatic_breakpoint_skips_a_turn_scoped_message_and_its_clearing_reprocesses_one_turn(server):
    cached = {"cache_control": {"type": "ephemeral"}, "system": SYSTEM_TEXT}
    session = tool_session(4)
    first = ask(server, session + [SCOPED], **cached)
    before = estimate_tokens(session, "tiktoken", system=SYSTEM_TEXT, tools=TOOLS)
    assert first.usage.cache_creation_input_tokens == before  # marked on the user turn before it
    assert first.usage.input_tokens == tokens([SCOPED]) - tokens([])
    turn = assistant(text("Reading m4."), tool_use("toolu_04", "read_file", {}))
    later = session + [SCOPED, turn, user(tool_result("toolu_04", "ok"))]
    second = ask(server, later, **cached)
    assert second.usage.cache_read_input_tokens == before  # the prefix up to the user turn before it
    assert second.usage.cache_creation_input_tokens == tokens(session + [turn, later[-1]]) - tokens(session)


STEP = next(k for k, s in enumerate(plan.PLAN, 1) if plan.shortcut(s))  # the first fix of the library
TASK = plan.TASK.replace(f" ({plan.CONSTRAINT})", "")


def edited_paths(answer) -> set[str]:
    return {b.input.get("path") for b in answer.content if b.type == "tool_use"}


def test_the_offline_agent_follows_the_users_constraint_when_a_system_message_states_it(server):
    assert plan.CONSTRAINT not in TASK
    said = assistant(text(f"Going on. {scenario.state.marker(STEP - 1)}"), tool_use("toolu_00", "bash", {}))
    session = [user(TASK), said, user(tool_result("toolu_00", "ok"))]
    tools = TOOL_DEFINITIONS
    client = client_for(server)
    plain = client.beta.messages.create(model=MODEL, max_tokens=64, messages=session, tools=tools)
    told = client.beta.messages.create(
        model=MODEL, max_tokens=64, tools=tools,
        messages=session + [{"role": "system", "content": f"Fix the library, {plan.CONSTRAINT}."}],
    )  # fmt: skip
    assert any(p.startswith("tests/") for p in edited_paths(plain))  # nothing says otherwise: the shortcut
    assert not any(p.startswith("tests/") for p in edited_paths(told))
