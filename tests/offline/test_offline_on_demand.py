"""On-demand compaction (beta ``compact-2026-09-04``) on the offline server, through the real SDK.

The ``compaction`` parameter is refused without its beta header and with ``context_management``;
the answer holds only a signed compaction block with ``stop_reason`` "compaction" and usage as
``compact_20260112`` reports it; the block is sent back first in ``messages`` and the agent carries
on; an edited, unsigned, forged, misplaced or doubled block raises the SDK's typed exception
(``CompactionContentMismatchError`` ...), a null one is ignored; a summary that cannot end normally
answers 200 with empty content; instructions replace the prompt and the offline summarizer keeps the
focus they name; count_tokens ignores it.
"""

from __future__ import annotations

import anthropic
import pytest
from anthropic import types as sdk_types
from anthropic.types.beta import BetaMessage
from api_sessions import CONTEXT, MODEL, TOOLS, client_for, strict, tool_session

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.offline import OfflineServer
from compaction.offline.scripted.focus import focus_terms
from compaction.offline.server.api import HEADER_WINDOW
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.on_demand import BETA_ON_DEMAND, sign

BETAS = [BETA_ON_DEMAND]


@pytest.fixture(scope="module")
def server():
    with OfflineServer(clock=ManualClock()) as running:
        yield running


def create(server, messages, *, betas=BETAS, max_tokens=4096, **params) -> BetaMessage:
    raw = client_for(server).beta.messages.with_raw_response.create(
        model=MODEL, max_tokens=max_tokens, messages=messages, tools=TOOLS, betas=list(betas), **params
    )
    strict(BetaMessage, raw.http_response.json())  # every field the SDK's type requires, well typed
    return raw.parse()


def refusal(server, messages, **params) -> str:
    with pytest.raises(anthropic.BadRequestError) as caught:
        create(server, messages, **params)
    return caught.value.body["error"]["message"]


def test_the_answer_holds_only_a_signed_compaction_block(server):
    answer = create(server, tool_session(3), compaction={"type": "summarize"})
    assert answer.stop_reason == "compaction"
    assert [b.type for b in answer.content] == ["compaction"]
    block = answer.content[0]
    assert block.content and "1. Primary Request and Intent:" in block.content
    assert block.signature == sign(block.content)


def test_usage_is_reported_as_for_compact_20260112(server):
    usage = create(server, tool_session(3), compaction={"type": "summarize"}).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens) == (0, 0, 0)
    (entry,) = usage.iterations
    assert entry.type == "compaction" and entry.input_tokens > 0 and entry.output_tokens > 0
    assert entry.cache_read_input_tokens == entry.cache_creation_input_tokens == 0


def test_refused_without_the_beta_header_naming_the_field_and_the_header(server):
    message = refusal(server, tool_session(1), compaction={"type": "summarize"}, betas=())
    assert message.startswith("compaction: ") and BETA_ON_DEMAND in message


def test_refused_with_context_management_naming_both_fields(server):
    edits = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    message = refusal(
        server,
        tool_session(1),
        compaction={"type": "summarize"},
        context_management=edits,
        betas=(BETA_ON_DEMAND, CONTEXT),
    )
    assert message.startswith("compaction: cannot be combined with `context_management`")


@pytest.mark.parametrize(
    "value, where",
    [
        ({"type": "compact"}, "compaction.type: Input should be 'summarize'"),
        ({}, "compaction.type: Field required"),
        ({"type": "summarize", "trigger": 5}, "compaction.trigger: Extra inputs are not permitted"),
        ({"type": "summarize", "instructions": 3}, "compaction.instructions: Input should be a valid string"),
        ("summarize", "compaction: Input should be a valid dictionary"),
    ],
)
def test_a_wrong_shape_is_refused_naming_the_field(server, value, where):
    assert refusal(server, tool_session(1), compaction=value).startswith(where)


def test_the_block_sent_back_first_carries_the_agent_on(server):
    block = create(server, tool_session(2), compaction={"type": "summarize"}).content[0].to_dict()
    answer = create(server, [assistant(block)])  # the block in place of what it summarizes
    assert answer.stop_reason == "tool_use"
    after = [assistant(block, *[b.to_dict() for b in answer.content])]
    uses = [b for b in answer.content if b.type == "tool_use"]
    after.append(user(*[tool_result(u.id, "ok") for u in uses]))
    assert create(server, after).stop_reason in ("tool_use", "end_turn")


def summary_block(server, turns: int = 2) -> dict:
    """A block as the server returned it, ready to be sent back."""
    return create(server, tool_session(turns), compaction={"type": "summarize"}).content[0].to_dict()


def typed(server, error: type, messages: list, **params) -> anthropic.BadRequestError:
    """The SDK's typed exception for a refused request, with the error code in the body."""
    with pytest.raises(error) as caught:
        create(server, messages, **params)
    assert caught.value.body["error"]["details"]["error_code"] == caught.value.error_code
    return caught.value


def test_an_edited_block_raises_the_sdks_content_mismatch(server):
    block = summary_block(server)
    edited = {**block, "content": block["content"] + "\nThe user also wants a pony."}
    error = typed(server, sdk_types.CompactionContentMismatchError, [assistant(edited), user("Go on.")])
    assert error.error_code == "compaction_content_mismatch"
    assert error.body["error"]["message"] == (
        "messages.0.content.0: `compaction` block `content` does not match its `signature`"
    )


def test_an_unsigned_block_under_the_on_demand_beta_raises_signature_invalid(server):
    unsigned = {k: v for k, v in summary_block(server).items() if k != "signature"}
    error = typed(server, sdk_types.CompactionSignatureInvalidError, [assistant(unsigned), user("Go on.")])
    assert error.body["error"]["message"].startswith("messages.0.content.0.signature: Field required")


@pytest.mark.parametrize("forged", ["not base64!", "AAAA", "QUJD" * 30])
def test_a_forged_signature_raises_signature_invalid(server, forged):
    block = {**summary_block(server), "signature": forged}
    typed(server, sdk_types.CompactionSignatureInvalidError, [assistant(block), user("Go on.")])


def test_edited_tool_changes_raise_tool_changes_mismatch(server):
    block = {
        **summary_block(server),
        "tool_changes": [{"type": "tool_removal", "tool": {"type": "tool_reference", "name": "bash"}}],
    }
    typed(server, sdk_types.CompactionToolChangesMismatchError, [assistant(block), user("Go on.")])


def test_summarized_messages_left_in_front_raise_block_misplaced(server):
    block = summary_block(server)
    error = typed(
        server, sdk_types.CompactionBlockMisplacedError, [user("Review every module."), assistant(block)]
    )
    assert error.body["error"]["message"].startswith("messages.1.content.0: the `compaction` block is not")


def test_two_blocks_with_content_raise_block_ambiguous(server):
    first, second = summary_block(server, 2), summary_block(server, 3)
    typed(server, sdk_types.CompactionBlockAmbiguousError, [assistant(first, second), user("Go on.")])


def test_a_compaction_request_ending_on_an_unanswered_call_raises_incomplete_turn(server):
    pending = [
        user("Review every module."),
        assistant(tool_use("toolu_open", "read_file", {"path": "m0.py"})),
    ]
    typed(server, sdk_types.CompactionIncompleteTurnError, pending, compaction={"type": "summarize"})


def test_a_compaction_request_with_nothing_in_it_raises_nothing_to_summarize(server):
    nothing = [assistant({"type": "compaction", "content": None})]
    typed(server, sdk_types.CompactionNothingToSummarizeError, nothing, compaction={"type": "summarize"})


def test_a_field_the_api_did_not_return_is_refused_by_name(server):
    block = {**summary_block(server), "citations": None}
    message = refusal(server, [assistant(block), user("Go on.")])
    assert message == "messages.0.content.0.compaction.citations: Extra inputs are not permitted"


def test_a_threshold_block_carries_no_signature_and_is_accepted_with_its_edit(server):
    own = {"type": "compaction", "content": "The user asked to review every module."}
    edits = {"edits": [{"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 150_000}}]}
    answer = create(
        server, [assistant(own), user("Go on.")], betas=["compact-2026-01-12"], context_management=edits
    )
    assert answer.stop_reason in ("tool_use", "end_turn")
    signed = summary_block(server)
    message = refusal(
        server,
        [assistant(signed), user("Go on.")],
        betas=[*BETAS, "compact-2026-01-12"],
        context_management=edits,
    )
    assert "can't run on a request that carries a signed `compaction` block" in message


@pytest.mark.parametrize(
    "params, field",
    [
        ({"stop_sequences": ["END"]}, "stop_sequences"),
        ({"tool_choice": {"type": "any"}}, "tool_choice"),
        (
            {"output_config": {"task_budget": {"type": "tokens", "total": 9000, "remaining": 100}}},
            "output_config.task_budget.remaining",
        ),
    ],
)
def test_what_a_compaction_request_cannot_carry_is_refused_by_name(server, params, field):
    message = refusal(server, tool_session(2), compaction={"type": "summarize"}, **params)
    assert message.startswith(f"{field}: cannot be combined with `compaction`")


def test_a_summary_longer_than_max_tokens_answers_200_with_empty_content(server):
    answer = create(server, tool_session(3), compaction={"type": "summarize"}, max_tokens=16)
    assert (answer.stop_reason, answer.content) == ("max_tokens", [])
    assert answer.usage.iterations[0].output_tokens == 16


def test_no_room_for_the_summary_prompt_answers_200_with_empty_content():
    with OfflineServer(clock=ManualClock()) as small:
        messages = tool_session(3)
        window = 1_300  # the conversation fits; with the course's summary prompt it does not
        client = client_for(small).with_options(default_headers={HEADER_WINDOW: str(window)})
        answer = client.beta.messages.create(
            model=MODEL,
            max_tokens=8,
            messages=messages,
            tools=TOOLS,
            betas=BETAS,
            compaction={"type": "summarize"},
        )
    assert (answer.stop_reason, answer.content) == ("model_context_window_exceeded", [])


def test_a_null_content_block_is_a_no_op(server):
    messages = tool_session(2)
    noop = {"type": "compaction", "content": None}
    with_noop = [assistant(noop)] + messages
    plain, nooped = create(server, messages), create(server, with_noop)
    assert [b.to_dict() for b in nooped.content] == [b.to_dict() for b in plain.content]


def test_empty_content_is_refused(server):
    message = refusal(server, [assistant({"type": "compaction", "content": ""}), user("Go on.")])
    assert message.startswith("messages.0.content.0.content: String should have at least 1 character")


def test_instructions_replace_the_prompt_and_keep_their_focus(server):
    messages = tool_session(4)
    plain = create(server, messages, compaction={"type": "summarize"})
    focused = create(
        server, messages, compaction={"type": "summarize", "instructions": "Keep only what concerns m2.py."}
    )
    assert "m1.py" in plain.content[0].content and "m2.py" in plain.content[0].content
    summary = focused.content[0].content
    assert summary.startswith("Summarized following the instructions: Keep only what concerns m2.py.")
    files = summary.split("3. Files and Code Sections:")[1].split("4. Errors")[0]
    assert "m2.py" in files and "m1.py" not in files
    # the instructions replace the course's long prompt, so the compaction request is smaller
    assert focused.usage.iterations[0].input_tokens < plain.usage.iterations[0].input_tokens


def test_blank_instructions_count_as_absent(server):
    messages = tool_session(2)
    plain = create(server, messages, compaction={"type": "summarize"})
    blank = create(server, messages, compaction={"type": "summarize", "instructions": "  \n"})
    assert blank.content[0].content == plain.content[0].content


def test_focus_terms_are_paths_and_backquoted_terms():
    assert focus_terms("Keep `top_words` and textstats/counts.py, then NOTES.md.") == [
        "top_words",
        "textstats/counts.py",
        "NOTES.md",
    ]
    assert focus_terms("keep it short") == []


def test_count_tokens_ignores_the_parameter(server):
    client = client_for(server)
    messages = tool_session(3)
    plain = client.beta.messages.count_tokens(model=MODEL, messages=messages, tools=TOOLS)
    with_it = client.beta.messages.count_tokens(
        model=MODEL, messages=messages, tools=TOOLS, compaction={"type": "summarize"}, betas=BETAS
    )
    assert with_it.input_tokens == plain.input_tokens


def test_a_second_compaction_carries_the_first_summary_over(server):
    first = create(server, tool_session(2), compaction={"type": "summarize"}).content[0].to_dict()
    call = tool_use("toolu_later", "read_file", {"path": "later.py"})
    messages = [assistant(first, text("Reading later.py."), call), user(tool_result("toolu_later", "x = 1"))]
    second = create(server, messages, compaction={"type": "summarize"}).content[0].content
    assert "m1.py" in second and "later.py" in second
