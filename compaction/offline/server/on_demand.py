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

The offline server's choices where those sources are silent: a signature is a keyed digest of the
block's ``content`` (deterministic, so notebooks print the same bytes); a block sent back with a
signature that does not match its content (an edited summary) is refused, naming the field; a
block without a signature is accepted as the client's own summary (the ``compact_20260112`` blocks
of this server carry none); usage is reported as for ``compact_20260112`` with a pause: a
``compaction`` entry in ``usage.iterations`` (input uncached) and zeros at the top level
(``server_compaction``). The summary is the offline summarizer's, asked with the course's summary
prompt or, when given, with the instructions alone, which it follows as ``focus`` describes.
Deliberately left out: ``encrypted_content`` and ``tool_changes`` (never produced; passed through).
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from typing import Any

from compaction.core.messages import blocks, text
from compaction.core.summary_prompt import SUMMARY_PROMPT
from compaction.offline.scripted.focus import focused
from compaction.offline.scripted.summarizer import summarize
from compaction.offline.server.caching import canonical
from compaction.offline.server.errors import RequestError
from compaction.offline.server.server_compaction import (
    SUMMARY_RE_CLOSE,
    SUMMARY_RE_OPEN,
    from_last_compaction,
)

BETA_ON_DEMAND = "compact-2026-09-04"
SIGNING_KEY = b"compaction-course-offline-model"  # no secret: it only tells an edited summary apart
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
    return Summarize(instructions.strip() or None if instructions else None)


def sign(content: str) -> str:
    """The offline signature of a summary: a keyed digest of its text, base64."""
    digest = hashlib.blake2b(content.encode("utf-8"), key=SIGNING_KEY, digest_size=32).digest()
    return base64.b64encode(digest).decode("ascii")


def check_blocks(messages: Any) -> None:
    """Refuse a compaction block with empty content, or whose signature does not match its content."""
    if not isinstance(messages, list):
        return
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message) if isinstance(message, dict) else []):
            if not isinstance(block, dict) or block.get("type") != "compaction":
                continue
            where = f"messages.{i}.content.{j}"
            content, signature = block.get("content"), block.get("signature")
            if content is not None and not isinstance(content, str):
                raise RequestError(f"{where}.content: Input should be a valid string")
            if content == "":
                raise RequestError(f"{where}.content: String should have at least 1 character")
            if signature is None or content is None:
                continue  # unsigned: the client's own summary; null content: a no-op
            if not isinstance(signature, str):
                raise RequestError(f"{where}.signature: Input should be a valid string")
            if signature != sign(content):
                raise RequestError(
                    f"{where}.signature: the signature does not match the `compaction` block's content; "
                    "send the block back exactly as it was returned"
                )


def opens_with_compaction(messages: list) -> bool:
    """True when the first message is an assistant turn that starts with a compaction block."""
    if not messages or not isinstance(messages[0], dict) or messages[0].get("role") != "assistant":
        return False
    content = blocks(messages[0])
    return bool(content) and isinstance(content[0], dict) and content[0].get("type") == "compaction"


def summary_request(messages: list, instructions: str | None) -> list:
    """The conversation to summarize, earlier summaries as user text, then the prompt (or instructions)."""
    shown: list[dict] = []
    for message in from_last_compaction(messages):
        kept = []
        for block in blocks(message):
            if block.get("type") != "compaction":
                kept.append(block)
            elif block.get("content"):  # a previous summary is carried over as the user's text
                shown.append({"role": "user", "content": [text(block["content"])]})
        if kept:
            shown.append({**message, "content": kept})
    prompt = text(instructions or SUMMARY_PROMPT)
    if shown and shown[-1].get("role") == "user":
        return shown[:-1] + [{**shown[-1], "content": blocks(shown[-1]) + [prompt]}]
    return shown + [{"role": "user", "content": [prompt]}]


def compaction_block(request: list, instructions: str | None) -> dict:
    """The signed ``compaction`` block for a summary request, focused by the instructions if any."""
    answer = summarize(request)
    start, end = answer.find(SUMMARY_RE_OPEN), answer.rfind(SUMMARY_RE_CLOSE)
    body = answer[start + len(SUMMARY_RE_OPEN) : end].strip() if start >= 0 and end > start else answer
    if instructions:
        body = focused(body, instructions)
    return {"type": "compaction", "content": body, "signature": sign(body)}


def message_id(messages: list, seed: int) -> str:
    """The id of a compaction response: ``msg_`` + 24 hex characters from seed and conversation."""
    return "msg_" + hashlib.sha256(b"compaction:%d:" % seed + canonical(messages)).hexdigest()[:24]
