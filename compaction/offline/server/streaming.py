"""Streaming the Messages API's answer as server-sent events, for a request with ``stream: true``.

What the sources say. The streaming page (https://platform.claude.com/docs/en/build-with-claude/streaming,
"Event types"): "Each event uses an SSE event name (for example, `event: message_stop`), and includes the
matching event `type` in its data. Each stream uses the following event flow: 1. `message_start`: contains a
`Message` object with empty `content`. 2. A series of content blocks, each of which has a
`content_block_start`, one or more `content_block_delta` events, and a `content_block_stop` event. Each
content block has an `index` that corresponds to its index in the final Message `content` array. 3. One or
more `message_delta` events, indicating top-level changes to the final `Message` object. 4. A final
`message_stop` event"; "Event streams may also include any number of ping events". The events and deltas are
the SDK's (``anthropic/types/beta/beta_raw_message_stream_event.py`` and the delta types: ``text_delta``,
``input_json_delta`` with ``partial_json``, ``thinking_delta``, ``signature_delta``, ``compaction_delta``
with ``content`` and ``encrypted_content``), and the SDK's accumulator is the reference for what a client
rebuilds from them (``anthropic/lib/streaming/_beta_messages.py``, ``accumulate_event``): a message_delta's
usage counts "are cumulative totals", and ``input_transformations`` are "final in `message_start`" (SDK
``BetaRawMessageDeltaEvent``).

The offline model writes its whole answer first (``api.create``), then streams it: the same bytes a
non-streaming request gets, rebuilt by the SDK into the same message (a test holds the two equal). The
server's own choices, where the sources are silent: text and thinking go out in pieces of at most ``PIECE``
characters, a tool's input as its JSON in two pieces; a ``tool_use`` block starts with an empty ``input``, a
``thinking`` block with empty ``thinking`` and ``signature``; a ``compaction`` block starts with its
``signature`` and ``tool_changes`` (the delta carries only ``content`` and ``encrypted_content``); one
``ping`` after ``message_start``; the whole stream is written at once with a ``content-length`` (it is
computed before the first byte, so nothing would arrive sooner in pieces). Deliberately left out: ``error``
events mid-stream (an error is answered before the stream starts, as a 4xx with the API's error body).
"""

from __future__ import annotations

import json

PIECE = 40  # characters of text per delta
USAGE_AT_START = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "cache_creation")


def _event(kind: str, data: dict) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def _pieces(value: str) -> list[str]:
    return [value[k : k + PIECE] for k in range(0, len(value), PIECE)] or [""]


def _start_and_deltas(block: dict) -> tuple[dict, list[dict]]:
    """A block's ``content_block_start`` shell and the deltas that complete it."""
    kind = block.get("type")
    if kind == "text":
        return {"type": "text", "text": ""}, [
            {"type": "text_delta", "text": p} for p in _pieces(block["text"])
        ]
    if kind == "tool_use":
        raw = json.dumps(block.get("input") or {}, ensure_ascii=False)
        half = len(raw) // 2
        shell = {**block, "input": {}}
        return shell, [{"type": "input_json_delta", "partial_json": p} for p in (raw[:half], raw[half:])]
    if kind == "thinking":
        deltas = [{"type": "thinking_delta", "thinking": p} for p in _pieces(block.get("thinking", ""))]
        return {"type": "thinking", "thinking": "", "signature": ""}, [
            *deltas,
            {"type": "signature_delta", "signature": block.get("signature", "")},
        ]
    if kind == "compaction":
        shell = {**block, "content": None}
        delta = {"type": "compaction_delta", "content": block.get("content")}
        delta["encrypted_content"] = block.get("encrypted_content")
        return shell, [delta]
    return dict(block), []


def events(answer: dict) -> bytes:
    """The server-sent events of a finished answer, in the order the streaming page gives."""
    usage = answer.get("usage") or {}
    start_usage = {k: usage[k] for k in USAGE_AT_START if k in usage}
    start_usage["output_tokens"] = 0
    message = {**answer, "content": [], "stop_reason": None, "stop_sequence": None, "usage": start_usage}
    message.pop("context_management", None)
    out = [_event("message_start", {"type": "message_start", "message": message})]
    out.append(_event("ping", {"type": "ping"}))
    for index, block in enumerate(answer.get("content") or []):
        shell, deltas = _start_and_deltas(block)
        out.append(
            _event(
                "content_block_start", {"type": "content_block_start", "index": index, "content_block": shell}
            )
        )
        for delta in deltas:
            out.append(
                _event("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
            )
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    final = {k: v for k, v in usage.items() if k != "cache_creation"}
    delta = {"stop_reason": answer.get("stop_reason"), "stop_sequence": answer.get("stop_sequence")}
    closing: dict = {"type": "message_delta", "delta": delta, "usage": final}
    if answer.get("context_management") is not None:
        closing["context_management"] = answer["context_management"]
    out.append(_event("message_delta", closing))
    out.append(_event("message_stop", {"type": "message_stop"}))
    return b"".join(out)
