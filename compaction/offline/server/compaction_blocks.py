"""Compaction blocks checked as the API checks them: signed, placed, one at a time, refused by ``error_code``.

What the sources say. The on-demand compaction page
(https://platform.claude.com/docs/en/build-with-claude/compaction-on-demand, "Errors") lists the 400s a
request that carries a block can get, with ``error.details.error_code``: ``compaction_block_misplaced``
("Summarized messages remain in front of the block"), ``compaction_signature_invalid`` or
``compaction_content_mismatch`` ("The block's `signature` or `content` was changed after the API returned
it"), more than one block, a compaction request whose last assistant turn ends in a tool call with no
result, ``compaction_nothing_to_summarize`` (no user or assistant content), and a block sent back with a
field the API did not return (``messages.0.content.0.compaction.citations: Extra inputs are not
permitted``). The installed SDK types each code as an exception (``anthropic/_error_classes.py``:
``CompactionBlockMisplacedError`` ... ``CompactionToolChangesMismatchError``, each a ``BadRequestError``
keyed by ``(400, error_code)``), so a client catches them by type. Its docstrings say what each means:
misplaced, "not the first block of the conversation, or is in a `system` message"; ambiguous, "more than
one `compaction` block with content"; content mismatch, "`content` differs from the text its `signature`
recorded"; signature invalid, "`signature` does not verify"; tool changes mismatch, "`tool_changes`
differs from what was returned with the block"; incomplete turn, "ends on an `assistant` turn that is not
finished". A live probe of the API (tdavison784/context-runtime, ``docs/probes/2026-09-anthropic-
descriptor-probe.md``, 2026-09-26) saw an on-demand block with text appended to ``content`` refused with
"`compaction` block `content` does not match its `signature`" and that error code, and threshold blocks
(``compact_20260112``) come back with no signature; the threshold page says the API drops the messages
before such a block itself. The docs add (same page, "Limits"): "Threshold compaction
(`compact_20260112`) can't run on a request that carries a signed block."

So: a block with a ``signature`` is an on-demand block. It must verify (``signature_invalid``), hold the
content and tool changes it was returned with (``content_mismatch``, ``tool_changes_mismatch``), be the
first block of the request (``block_misplaced``), and be the only block with content
(``block_ambiguous``). A block without one is a threshold block, placed anywhere in an assistant turn,
unless the request speaks on-demand compaction (its beta header, and no ``compact_20260112`` edit): then
the signature was dropped (``signature_invalid``, as the page's "Editing its `content` or dropping its
`signature`" puts it). The offline signature is a keyed digest of the content (and of the tool changes,
when the block has any), so the same summary always signs the same; the keys are no secret, they only
tell an edited block from a returned one. A digest alone cannot say whether the content or the signature
was changed, so the server remembers what it signed (``ISSUED``, the newest 10,000 in this process): a
signature it issued, sent back with other content or tool changes, is a mismatch; any other that does not
verify is invalid (so a block from an earlier process, edited, is called invalid).
The refusals' words are the probe's for the content mismatch, the server's own in the API's form for the
rest. Deliberately left out: ``compaction_too_many_tool_references`` (no source gives the limit) and the
529 ``compaction_unavailable`` (the offline model has no transient failures).
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from collections import OrderedDict
from typing import Any

from compaction.core.messages import blocks
from compaction.offline.server.errors import RequestError

CONTENT_KEY = b"compaction-course-offline-model"  # no secret: it only tells an edited summary apart
FIELDS = {"type", "content", "signature", "encrypted_content", "tool_changes", "cache_control"}
KEEP = 10_000
ISSUED: OrderedDict[str, tuple[bytes, bytes | None]] = (
    OrderedDict()
)  # signature -> (content, changes) digests
_LOCK = threading.Lock()


class CompactionError(RequestError):
    """A 400 whose body carries ``error.details.error_code``, so the SDK raises its typed exception."""

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.details = {"error_code": code}


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _changes_bytes(tool_changes: Any) -> bytes:
    return json.dumps(tool_changes, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(content: str, tool_changes: list | None = None) -> str:
    """The offline signature of a summary (and of its tool changes, when it has any), remembered as issued."""
    data = content.encode("utf-8") + (
        b"\0" + _changes_bytes(tool_changes) if tool_changes is not None else b""
    )
    digest = hashlib.blake2b(data, key=CONTENT_KEY, digest_size=32).digest()
    signature = base64.b64encode(digest).decode("ascii")
    changes = _digest(_changes_bytes(tool_changes)) if tool_changes is not None else None
    with _LOCK:
        ISSUED[signature] = (_digest(content.encode("utf-8")), changes)
        ISSUED.move_to_end(signature)
        while len(ISSUED) > KEEP:
            ISSUED.popitem(last=False)
    return signature


def verify(block: dict, where: str) -> None:
    """Refuse a signed block whose signature does not verify, or that holds other content or tool changes."""
    content, changes, signature = str(block.get("content")), block.get("tool_changes"), block["signature"]
    with _LOCK:
        issued = ISSUED.get(signature)
    if issued is not None and issued[0] != _digest(content.encode("utf-8")):
        raise CompactionError(
            f"{where}: `compaction` block `content` does not match its `signature`",
            "compaction_content_mismatch",
        )
    if issued is not None and issued[1] != (
        _digest(_changes_bytes(changes)) if changes is not None else None
    ):
        raise CompactionError(
            f"{where}.tool_changes: the `compaction` block's `tool_changes` differ from what was returned "
            "with it; send the block exactly as it was returned",
            "compaction_tool_changes_mismatch",
        )
    data = content.encode("utf-8") + (b"\0" + _changes_bytes(changes) if changes is not None else b"")
    expected = base64.b64encode(hashlib.blake2b(data, key=CONTENT_KEY, digest_size=32).digest()).decode(
        "ascii"
    )
    if signature != expected:
        raise CompactionError(
            f"{where}.signature: the `compaction` block's `signature` does not verify; "
            "send the block exactly as it was returned",
            "compaction_signature_invalid",
        )


def found(messages: list) -> list[tuple[int, int, dict]]:
    """Every compaction block of the request as (message index, block index, block), in order."""
    return [
        (i, j, b)
        for i, m in enumerate(messages)
        if isinstance(m, dict)
        for j, b in enumerate(blocks(m))
        if b.get("type") == "compaction"
    ]


def check(messages: Any, *, on_demand: bool, threshold: bool) -> None:
    """Refuse the request's compaction blocks as the API does (``on_demand``: the beta header is sent;
    ``threshold``: a ``compact_20260112`` edit is)."""
    if not isinstance(messages, list):
        return
    present = found(messages)
    on_demand_blocks = []
    for i, j, block in present:
        where = f"messages.{i}.content.{j}"
        _shape(block, where)
        signed = block.get("signature") is not None
        if signed and threshold:
            raise RequestError(
                f"{where}: threshold compaction (`compact_20260112`) can't run on a request that carries a "
                "signed `compaction` block; remove the edit or the block"
            )
        if signed or (on_demand and not threshold and block.get("content") is not None):
            if not signed:
                raise CompactionError(
                    f"{where}.signature: Field required; an on-demand `compaction` block is sent back with "
                    "the `signature` it was returned with",
                    "compaction_signature_invalid",
                )
            if block.get("content") is not None:
                verify(block, where)
            on_demand_blocks.append((i, j, where))
    with_content = [(i, j) for i, j, b in present if b.get("content") is not None]
    if len(with_content) > 1 and on_demand_blocks:
        i, j = with_content[1]
        raise CompactionError(
            f"messages.{i}.content.{j}: `messages` holds more than one `compaction` block with content; "
            "send only the block the conversation returned last",
            "compaction_block_ambiguous",
        )
    for i, j, where in on_demand_blocks:
        _placed(messages, i, j, where)


def _shape(block: dict, where: str) -> None:
    for name in block:
        if name not in FIELDS:
            raise RequestError(f"{where}.compaction.{name}: Extra inputs are not permitted")
    content, signature = block.get("content"), block.get("signature")
    if content is not None and not isinstance(content, str):
        raise RequestError(f"{where}.content: Input should be a valid string")
    if content == "":
        raise RequestError(f"{where}.content: String should have at least 1 character")
    if signature is not None and not isinstance(signature, str):
        raise RequestError(f"{where}.signature: Input should be a valid string")
    changes = block.get("tool_changes")
    if changes is not None and not isinstance(changes, list):
        raise RequestError(f"{where}.tool_changes: Input should be a valid list")


def _placed(messages: list, i: int, j: int, where: str) -> None:
    """An on-demand block goes first: first block of the first message, never in a ``system`` message."""
    role = messages[i].get("role")
    if role == "system" or (i, j) != (0, 0):
        what = "is in a `system` message" if role == "system" else "is not the conversation's first block"
        raise CompactionError(
            f"{where}: the `compaction` block {what}; remove the summarized messages in front of it, so "
            "the block comes first in `messages`",
            "compaction_block_misplaced",
        )


def check_compaction_request(messages: Any) -> None:
    """Refuse a compaction request with nothing to summarize, or one that ends on an unfinished turn."""
    if not isinstance(messages, list):
        return
    substance = [
        b
        for m in messages
        if isinstance(m, dict) and m.get("role") in ("user", "assistant")
        for b in blocks(m)
        if b.get("type") != "compaction" or b.get("content") is not None
    ]
    if not substance:
        raise CompactionError(
            "messages: holds no `user` or `assistant` content to summarize; send at least one message",
            "compaction_nothing_to_summarize",
        )
    last = next((m for m in reversed(messages) if isinstance(m, dict) and m.get("role") != "system"), None)
    if last is not None and last.get("role") == "assistant":
        content = blocks(last)
        if content and content[-1].get("type") == "tool_use":
            raise CompactionError(
                f"messages.{messages.index(last)}: the compaction request ends on an `assistant` turn whose "
                "tool call has no result yet; send that turn's tool results first, then compact",
                "compaction_incomplete_turn",
            )
