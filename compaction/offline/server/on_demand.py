"""On-demand compaction (beta ``compact-2026-09-04``): a request that only summarizes.

What the SDK says (``anthropic/types/beta/message_create_params.py``, ``compaction``): "When set on
`POST /v1/messages`, the request is a compaction request: the conversation in `messages` is
summarized and the response holds only the resulting `compaction` block (`stop_reason`
`"compaction"`), which later requests send first in `messages` in place of the messages it
summarizes. `POST /v1/messages/count_tokens` accepts this parameter and ignores it [...]. Cannot be
combined with `context_management`." ``BetaCompactionConfigParam``: ``type`` ``"summarize"``;
``instructions`` "replace" the server's summarization prompt, and "a value that is empty or only
whitespace counts as absent"; the block is "signed". ``BetaCompactionBlockParam``: ``signature``
is "to be sent back verbatim"; a block whose content is null "represents a failed compaction. The
server treats these as no-ops. Empty string content is not allowed." The compaction overview
(https://platform.claude.com/docs/build-with-claude/compaction) compares this with the token
threshold (``compact_20260112``) and with a summarizer of one's own.

The page (https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand) adds what a
compaction request may not carry ("leave out `stop_sequences`, structured-output `output_config.format`,
and a `tool_choice` of type `any` or `tool` [...] the API rejects them"; a task budget's `remaining` "returns
a 400 error"), and that a summary call which does not end normally still answers 200 "with empty
`content`", its `stop_reason` the one the call ended with: "max_tokens" when the summary was cut off,
"model_context_window_exceeded" when there was no room for the summarization prompt. The blocks a request
sends back are checked in ``compaction_blocks`` (signature, placement, one block, typed error codes).

The offline server's choices where those sources are silent: usage is reported as for
``compact_20260112`` with a pause: a ``compaction`` entry in ``usage.iterations`` (input uncached) and
zeros at the top level (``server_compaction``); a summary that did not fit is reported with the tokens it
would have had. The summary is the offline summarizer's, asked with the course's summary prompt or, when
given, with the instructions alone, which it follows as ``focus`` describes.
With ``inline-tools-2026-09-15`` the block carries the compacted range's ``tool_changes``, signed with it,
and the server remembers what the block summarized, so the thinking of the turns kept after it stays valid
(``thinking``).
Deliberately left out: ``encrypted_content`` (never produced; passed through).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from compaction.core.messages import blocks
from compaction.offline.server import server_compaction
from compaction.offline.server.caching import canonical
from compaction.offline.server.compaction_blocks import sign
from compaction.offline.server.errors import RequestError

BETA_ON_DEMAND = "compact-2026-09-04"
FIELDS = {"type", "instructions"}


@dataclass(frozen=True)
class Summarize:
    """A checked ``compaction`` parameter: summarize, with these instructions (None: the server's prompt)."""

    instructions: str | None = None


def parse(body: dict, betas: set[str]) -> Summarize | None:
    """The request's ``compaction`` parameter, or a RequestError naming the field; None when absent."""
    value = body.get("compaction")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RequestError("compaction: Input should be a valid dictionary")
    for name in value:
        if name not in FIELDS:
            raise RequestError(f"compaction.{name}: Extra inputs are not permitted")
    if "type" not in value:
        raise RequestError("compaction.type: Field required")
    if value["type"] != "summarize":
        raise RequestError(f"compaction.type: Input should be 'summarize', not {value['type']!r}")
    instructions = value.get("instructions")
    if instructions is not None and not isinstance(instructions, str):
        raise RequestError("compaction.instructions: Input should be a valid string")
    if BETA_ON_DEMAND not in betas:
        raise RequestError(f"compaction: requires the beta header `anthropic-beta: {BETA_ON_DEMAND}`")
    if body.get("context_management") is not None:
        raise RequestError(
            "compaction: cannot be combined with `context_management`; "
            "send the compaction request without `context_management`"
        )
    _refuse_incompatible(body)
    return Summarize(instructions.strip() or None if instructions else None)


def _refuse_incompatible(body: dict) -> None:
    """Refuse what a compaction request may not carry, naming the field (a parameter error: no code)."""
    tool_choice = body.get("tool_choice")
    output = body.get("output_config") if isinstance(body.get("output_config"), dict) else {}
    budget = output.get("task_budget") if isinstance(output.get("task_budget"), dict) else {}
    refused = [
        ("stop_sequences", bool(body.get("stop_sequences"))),
        ("tool_choice", isinstance(tool_choice, dict) and tool_choice.get("type") in ("any", "tool")),
        ("output_config.format", output.get("format") is not None),
        ("output_config.task_budget.remaining", "remaining" in budget),
    ]
    for name, present in refused:
        if present:
            raise RequestError(
                f"{name}: cannot be combined with `compaction`; a compaction request generates no reply, so "
                "send it without this field"
            )


def opens_with_compaction(messages: list) -> bool:
    """True when the first message is an assistant turn that starts with a compaction block."""
    if not messages or not isinstance(messages[0], dict) or messages[0].get("role") != "assistant":
        return False
    content = blocks(messages[0])
    return bool(content) and isinstance(content[0], dict) and content[0].get("type") == "compaction"


def compaction_block(request: list, instructions: str | None, tool_changes: list | None = None) -> dict:
    """The signed ``compaction`` block for a summary request, focused by the instructions if any, with the
    compacted range's ``tool_changes`` when they were computed (``tool_changes``), signed with it."""
    block = server_compaction.compaction_block(request, instructions)
    if tool_changes is not None:
        block["tool_changes"] = tool_changes
    return {**block, "signature": sign(block["content"], tool_changes)}


def message_id(messages: list, seed: int) -> str:
    """The id of a compaction response: ``msg_`` + 24 hex characters from seed and conversation."""
    return "msg_" + hashlib.sha256(b"compaction:%d:" % seed + canonical(messages)).hexdigest()[:24]
