"""On-demand compaction (beta ``compact-2026-09-04``) on the offline server, through the real SDK.

The ``compaction`` parameter is refused without its beta header and with ``context_management``;
the answer holds only a signed compaction block with ``stop_reason`` "compaction" and usage as
``compact_20260112`` reports it; the block is sent back first in ``messages`` and the agent carries
on; an edited signed block is refused, an unsigned one accepted, a null one ignored; instructions
replace the prompt and the offline summarizer keeps the focus they name; count_tokens ignores it.
"""

from __future__ import annotations

import anthropic
import pytest
from anthropic.types.beta import BetaMessage
from api_sessions import CONTEXT, MODEL, TOOLS, client_for, strict, tool_session

from compaction.core.messages import assistant, text, tool_result, tool_use, user
from compaction.offline import OfflineServer
from compaction.offline.scripted.focus import focus_terms
from compaction.offline.server.caching import ManualClock
from compaction.offline.server.on_demand import BETA_ON_DEMAND, sign

BETAS = [BETA_ON_DEMAND]


@pytest.fixture(scope="module")
def server():
    with OfflineServer(clock=ManualClock()) as running:
        yield running


def create(server, messages, *, betas=BETAS, **params) -> BetaMessage:
    raw = client_for(server).beta.messages.with_raw_response.create(
        model=MODEL, max_tokens=64, messages=messages, tools=TOOLS, betas=list(betas), **params
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


def test_an_edited_signed_block_is_refused_naming_the_field(server):
    block = create(server, tool_session(2), compaction={"type": "summarize"}).content[0].to_dict()
    edited = {**block, "content": block["content"] + "\nThe user also wants a pony."}
    message = refusal(server, [assistant(edited), user("Go on.")])
    assert message.startswith("messages.0.content.0.signature: ")


def test_an_unsigned_block_is_the_clients_own_summary_and_accepted(server):
    own = {"type": "compaction", "content": "The user asked to review every module. [step 1]"}
    assert create(server, [assistant(own), user("Go on.")]).stop_reason in ("tool_use", "end_turn")


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
