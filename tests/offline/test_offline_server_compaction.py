"""Server-side compaction (``compact_20260112``) on the offline server, through the real SDK.

The block comes back, stops the turn when asked to pause, and cuts every later request to the
block and what follows; ``usage.iterations`` keeps the compaction's tokens apart; the scripted
agent carries on from the step the summary names. A trigger under the documented 50,000-token
minimum is refused naming the field; the tests below use small sessions, so their client sends the
server's own course-scale option.
"""

from __future__ import annotations

import re

import anthropic
import pytest
from anthropic.types.beta import BetaMessage
from api_sessions import COMPACT, CONTEXT, MODEL, TOOLS, client_for, strict, tool_session

from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import text, tool_result, user
from compaction.core.tokens import estimate_tokens
from compaction.offline import OfflineServer
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.context_config import HEADER_COURSE_SCALE


@pytest.fixture(scope="module")
def server():
    with OfflineServer(clock=ManualClock()) as running:
        yield running


def compact(trigger: int | None = 2000, **params) -> dict:
    edit = {"type": "compact_20260112", **params}
    if trigger is not None:
        edit["trigger"] = {"type": "input_tokens", "value": trigger}
    return {"edits": [edit]}


def ask(server, messages, context_management=None, betas=(COMPACT,), scale="on", tools=TOOLS) -> BetaMessage:
    client = client_for(server).with_options(default_headers={HEADER_COURSE_SCALE: scale})
    raw = client.beta.messages.with_raw_response.create(
        model=MODEL,
        max_tokens=64,
        messages=messages,
        tools=tools,
        betas=list(betas),
        **({"context_management": context_management} if context_management else {}),
    )
    return strict(BetaMessage, raw.http_response.json())


def as_param(answer: BetaMessage) -> dict:
    return {"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in answer.content]}


def tokens(messages) -> int:
    return estimate_tokens(messages, "tiktoken", tools=TOOLS)


def test_pause_after_compaction_returns_the_block_alone_with_stop_reason_compaction(server):
    answer = ask(server, tool_session(24), compact(pause_after_compaction=True))
    assert answer.stop_reason == "compaction"
    [block] = answer.content
    assert block.type == "compaction" and "1. Primary Request and Intent:" in block.content
    assert "Review every module." in block.content and "m23.py" in block.content
    [iteration] = answer.usage.iterations
    assert iteration.type == "compaction" and iteration.input_tokens > tokens(tool_session(24))
    assert (
        answer.usage.input_tokens == answer.usage.output_tokens == 0
    )  # the compaction is not in the top level


def test_sending_the_block_back_cuts_the_input_to_the_block_and_what_follows(server):
    session = tool_session(24)
    paused = ask(server, session, compact(pause_after_compaction=True))
    resent = session + [as_param(paused)]
    answer = ask(server, resent, compact(pause_after_compaction=True))
    assert answer.usage.input_tokens == tokens([as_param(paused)]) < tokens(session) / 5
    assert answer.stop_reason == "tool_use"  # below the trigger now: no second compaction
    following = resent + [
        as_param(answer),
        user(*[tool_result(b.id, "ok") for b in answer.content if b.type == "tool_use"]),
    ]
    later = ask(server, following, compact(pause_after_compaction=True))
    merged = {"role": "assistant", "content": as_param(paused)["content"] + as_param(answer)["content"]}
    assert later.usage.input_tokens == tokens([merged, following[-1]])  # the two assistant turns merge


def test_without_pause_the_answer_goes_on_after_the_block_and_iterations_split_the_usage(server):
    answer = ask(server, tool_session(24), compact())
    assert answer.content[0].type == "compaction" and answer.stop_reason == "tool_use"
    compaction, message = answer.usage.iterations
    assert (compaction.type, message.type) == ("compaction", "message")
    block_only = [{"role": "assistant", "content": [answer.content[0].model_dump(exclude_none=True)]}]
    assert message.input_tokens == answer.usage.input_tokens == tokens(block_only)
    assert message.output_tokens == answer.usage.output_tokens


def test_below_the_trigger_nothing_is_compacted_and_the_default_trigger_is_150000(server):
    session = tool_session(24)
    assert tokens(session) < 150_000
    for edits in (compact(trigger=None), compact(trigger=tokens(session))):
        answer = ask(server, session, edits)
        assert answer.content[0].type == "text" and answer.usage.input_tokens == tokens(session)
        assert [i.type for i in answer.usage.iterations] == ["message"]
    assert ask(server, session, compact(trigger=tokens(session) - 1)).content[0].type == "compaction"


def test_instructions_replace_the_summary_prompt_and_keep_their_focus(server):
    session = tool_session(12)
    plain = ask(server, session, compact(pause_after_compaction=True))
    told = ask(server, session, compact(pause_after_compaction=True, instructions="Keep m3.py only."))
    # "completely replace the default prompt": the request carries the short instructions, not the prompt
    assert told.usage.iterations[0].input_tokens < plain.usage.iterations[0].input_tokens
    summary = told.content[0].content
    assert summary.startswith("Summarized following the instructions: Keep m3.py only.")
    files = summary.split("3. Files and Code Sections:")[1].split("4. Errors")[0]
    assert "m3.py" in files and "m4.py" not in files


def test_a_block_with_null_content_is_a_no_op(server):
    session = tool_session(6)
    failed = session + [{"role": "assistant", "content": [{"type": "compaction", "content": None}]}]
    answer = ask(server, failed, compact(trigger=100_000))
    assert answer.usage.input_tokens == tokens(failed)


def test_compaction_and_clearing_combine_in_the_order_given(server):
    edits = {
        "edits": [
            {"type": "clear_tool_uses_20250919", "trigger": {"type": "input_tokens", "value": 1}},
            compact(trigger=1500)["edits"][0],
        ]
    }
    answer = ask(server, tool_session(24), edits, betas=(CONTEXT, COMPACT))
    assert answer.context_management.applied_edits[0].cleared_tool_uses == 21
    assert answer.content[0].type == "compaction"  # the cleared session is still above 1,500 tokens


def run(server, messages: list, turns: int, context_management=None) -> list:
    """Play the scripted agent (offered the course tools) ``turns`` turns, answering every call with "ok"."""
    for _ in range(turns):
        answer = ask(server, messages, context_management, tools=TOOL_DEFINITIONS)
        messages = messages + [as_param(answer)]
        calls = [b for b in answer.content if b.type == "tool_use"]
        if calls:
            messages.append(user(*[tool_result(b.id, "ok") for b in calls]))
    return messages


def markers(message: dict) -> list[int]:
    said = " ".join(b.get("text", "") + (b.get("content") or "") for b in message["content"])
    return [int(n) for n in re.findall(r"\[step (\d+)", said)]


def test_the_scripted_agent_carries_on_from_the_step_the_summary_names(server):
    start = [user(text("Fix the tests, please."))]
    before = run(server, start, 6)
    last_step = markers(before[-2])[-1]
    paused = run(server, before, 1, compact(trigger=10, pause_after_compaction=True))
    assert (
        paused[-1]["content"][0]["type"] == "compaction"
        and f"[step {last_step}]" in paused[-1]["content"][0]["content"]
    )
    after = run(server, paused, 1, compact(trigger=100_000))
    assert markers(after[-2] if after[-1]["role"] == "user" else after[-1])[-1] == last_step + 1


def test_a_trigger_under_50000_is_refused_naming_the_field_and_50000_is_accepted(server):
    with pytest.raises(anthropic.BadRequestError) as caught:
        ask(server, tool_session(4), compact(trigger=7_000), scale="off")
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["message"] == (
        "context_management.edits.0.compact_20260112: trigger.value must be at least 50000"
    )
    answer = ask(server, tool_session(4), compact(trigger=50_000), scale="off")
    assert answer.content[0].type != "compaction"  # accepted, and far below the trigger


def test_a_second_compaction_keeps_the_users_request_from_the_first_summary(server):
    """The first summary sits in an assistant turn; the second compaction still reads it as the earlier
    summary, so the user's request (section 1) and their messages (section 6) survive both."""
    first = ask(server, tool_session(12), compact(pause_after_compaction=True))
    session = tool_session(12) + [as_param(first)]
    later = tool_session(24)[25:]  # modules 12-23 read after the first summary, under the trigger
    session += later
    second = ask(server, session, compact(pause_after_compaction=True))
    summary = second.content[0].content
    request = summary.split("1. Primary Request and Intent:")[1].split("2. ")[0]
    assert "Review every module." in request
    users = summary.split("6. All User Messages:")[1].split("7. ")[0]
    assert "(none)" not in users and "m5.py" in summary and "m20.py" in summary
