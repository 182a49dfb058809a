"""Thinking blocks bound to the conversation that produced them, and what a request's edits do to them.

What the sources say. The SDK types the settings (``anthropic/types/beta/beta_thinking_config_*_param.py``:
``adaptive``, ``enabled`` with ``budget_tokens`` "≥1024 and less than `max_tokens`", ``disabled``,
``between_tools``; ``display`` "summarized" | "omitted" | "updates"; ``block_binding`` with
``prefix_mismatch_behavior`` "error" | "drop_block", ``BetaThinkingBlockBindingParam``) and the answer's
``input_transformations`` (``BetaThinkingDroppedInputTransformation``,
``BetaThinkingMismatchAllowedInputTransformation``: ``path`` "messages.{i}.content.{j}" indexing "the
`messages` array you sent", ``reason``). The pages say what the check is.
https://platform.claude.com/docs/en/build-with-claude/preserved-thinking ("How it works"): "Nothing before
the block has changed. The top-level `system` prompt, the set of tools in `tools`, and every message before
the block. With server-side compaction the checked prefix starts at the most recent compaction block";
"Earlier `thinking` and `redacted_thinking` blocks aren't part of the prefix, but each thinking block
records the one before it [...] You can remove thinking blocks from the front of the history. Removing one
from the middle invalidates every thinking block after it"; ``"drop_block"``: "the API removes the block and
every thinking block after it in the conversation, and the request succeeds. Dropped blocks aren't billed";
``"error"``: "a 400 `invalid_request_error` that names the first failing block", whose words the page
quotes; the field "requires the `thinking-binding-controls-2026-08-01` beta header", which also "adds
`input_transformations` to responses"; "A request that sets `prefix_mismatch_behavior` opts into enforcement
regardless of account age". Its table "What counts as an edit": appended messages, ``cache_control``
markers, parameters outside ``system``/``tools``/``messages``, an unreferenced deferred tool, server-side
compaction or context editing ("the check compares what you sent, not the server's edited copy") and a
cleared turn-scoped system message left in place are valid; an edited, reordered or deleted earlier message,
a changed ``system`` or ``tools``, a thinking block removed from the middle are not. The SDK adds: without
enforcement a failing block is shown all the same and reported as ``thinking_mismatch_allowed``, "each block
is checked on its own". https://platform.claude.com/docs/en/build-with-claude/compaction-thinking-blocks:
after an on-demand compaction "the check accepts the swap when the API wrote the summary", so the thinking
in turns kept after the block stays valid while those turns "directly follow the summarized messages"
unchanged and ``system`` and the non-deferred ``tools`` do not change. Claude Sonnet 5.5, the course's
default model, binds its thinking this way
(https://platform.claude.com/docs/en/models/sonnet-5-5/whats-new-sonnet-5-5, "Thinking blocks are tied to
the model and the conversation"), and its default ``display`` is "omitted": the thinking text comes back
empty.

How the offline server does it. It thinks only when a request asks (``adaptive`` or ``enabled``; the real
Sonnet 5.5 thinks by default): one ``thinking`` block at the start of its turn, a one-line plan with
``display: "summarized"``, empty otherwise. The block's ``signature`` records the digest of ``system`` and
the non-deferred ``tools``, a running digest of the messages before it as sent (from the last compaction
block on; thinking blocks and ``cache_control`` left out), the signature of the thinking block before it,
and a keyed digest of all that and the text, so an edited text is a 400 and an edited prefix a mismatch. An
on-demand compaction block remembers the running digest of what it summarized (``remember_summary``; in this
process), which the check resumes from. The server binds as an account created before enforcement: nothing
is enforced unless the request sets ``prefix_mismatch_behavior``. Deliberately left out: the model and
organization checks (every model name reads every block), ``display: "updates"`` (refused by name),
``redacted_thinking`` (never produced; one sent back carries no record the server can check, so it fails the
check), and the per-model refusals of thinking settings (Sonnet 5.5's 400 for ``disabled`` and ``enabled``).
"""

from __future__ import annotations

import base64
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from compaction.core.messages import blocks
from compaction.offline.server.caching import canonical, without_cache_control
from compaction.offline.server.errors import RequestError

BETA_BINDING = "thinking-binding-controls-2026-08-01"
THINKING = ("thinking", "redacted_thinking")
KEY = b"compaction-course-offline-thinking"  # no secret: it only tells an edited block from a returned one
TAG = b"OFT1"
EMPTY = bytes(16)
KEEP = 10_000
_SUMMARIES: OrderedDict[str, bytes] = OrderedDict()  # compaction signature -> digest of what it summarized
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Thinking:
    """A request's thinking settings: whether the model thinks, what it shows, how the binding is checked."""

    on: bool = False
    display: str = "omitted"
    behavior: str | None = None  # prefix_mismatch_behavior; None: not enforced
    report: bool = False  # the beta header: ``input_transformations`` in the answer


@dataclass
class Binding:
    """What the check decided: the answer's ``input_transformations`` and the blocks left out of the view."""

    transformations: list[dict] = field(default_factory=list)
    dropped: set[tuple[int, int]] = field(default_factory=set)  # (merged message, block) left out


def read_settings(body: dict, betas: set[str], max_tokens: int) -> Thinking:
    """The request's ``thinking`` settings, or a RequestError naming the field."""
    value = body.get("thinking")
    report = BETA_BINDING in betas
    if value is None:
        return Thinking(report=report)
    if not isinstance(value, dict):
        raise RequestError("thinking: Input should be a valid dictionary")
    kind = value.get("type")
    allowed = {
        "adaptive": {"type", "display", "block_binding"},
        "enabled": {"type", "budget_tokens", "display", "block_binding"},
        "disabled": {"type"},
        "between_tools": {"type"},
    }
    if kind not in allowed:
        raise RequestError(
            f"thinking: Input tag '{kind}' found using 'type' does not match any of the expected tags: "
            "'adaptive', 'enabled', 'disabled', 'between_tools'"
        )
    for name in value:
        if name not in allowed[kind]:
            raise RequestError(f"thinking.{kind}.{name}: Extra inputs are not permitted")
    if kind == "enabled":
        budget = value.get("budget_tokens")
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 1024:
            raise RequestError(
                "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
            )
        if budget >= max_tokens:
            raise RequestError("thinking.enabled.budget_tokens: must be less than `max_tokens`")
    display = value.get("display") or "omitted"
    if display == "updates":
        raise RequestError(
            "thinking.display: 'updates' (progress updates between tool calls) is not emulated by the "
            "offline model"
        )
    if display not in ("summarized", "omitted"):
        raise RequestError("thinking.display: Input should be 'summarized', 'omitted' or 'updates'")
    return Thinking(
        kind in ("adaptive", "enabled"), display, _behavior(value.get("block_binding"), betas), report
    )


def _behavior(binding: Any, betas: set[str]) -> str | None:
    if binding is None:
        return None
    if BETA_BINDING not in betas:
        raise RequestError(
            f"thinking.block_binding: requires the beta header `anthropic-beta: {BETA_BINDING}`"
        )
    if not isinstance(binding, dict):
        raise RequestError("thinking.block_binding: Input should be a valid dictionary")
    for name in binding:
        if name != "prefix_mismatch_behavior":
            raise RequestError(f"thinking.block_binding.{name}: Extra inputs are not permitted")
    behavior = binding.get("prefix_mismatch_behavior")
    if behavior is not None and behavior not in ("error", "drop_block"):
        raise RequestError(
            "thinking.block_binding.prefix_mismatch_behavior: Input should be 'error' or 'drop_block'"
        )
    return behavior


# ---------------------------------------------------------------- digests


def _h(state: bytes, value: object) -> bytes:
    return hashlib.blake2b(state + canonical(value), digest_size=16).digest()


def head(system_blocks: list, tools: list) -> bytes:
    """The digest of ``system`` and the non-deferred ``tools``, markers left out."""
    return _h(EMPTY, [without_cache_control(system_blocks), without_cache_control(tools)])


def remember_summary(signature: str, state: bytes) -> None:
    """Record what an on-demand compaction block summarized (the running digest the kept turns continue)."""
    with _LOCK:
        _SUMMARIES[signature] = state
        _SUMMARIES.move_to_end(signature)
        while len(_SUMMARIES) > KEEP:
            _SUMMARIES.popitem(last=False)


def _summarized(block: dict) -> bytes | None:
    signature = block.get("signature")
    with _LOCK:
        return _SUMMARIES.get(signature) if isinstance(signature, str) else None


def walk(messages: list) -> tuple[list[tuple[int, int, dict, bytes]], bytes]:
    """(each thinking block of the checked region as (message, block, block, digest before it), the final
    digest): the running digest of ``messages`` as sent, restarted at each compaction block with content."""
    state, found = EMPTY, []
    for i, message in enumerate(messages):
        fields = {k: v for k, v in message.items() if k != "content"}  # role, clear_at: a message's start
        boundary: dict | None = fields
        for j, block in enumerate(blocks(message)):
            kind = block.get("type")
            if kind == "compaction" and isinstance(block.get("content"), str):
                found, summarized = [], _summarized(block)
                if summarized is not None:  # an on-demand block: the kept turns go on from what it summarized
                    state, boundary = summarized, fields
                    continue
                state, boundary = _h(EMPTY, fields), None  # a threshold block: the prefix starts at it
            elif boundary is not None:
                state, boundary = _h(state, boundary), None
            if kind in THINKING:
                found.append((i, j, block, state))
                continue
            state = _h(state, without_cache_control(block))
    return found, state


# ---------------------------------------------------------------- signing and checking


def sign(text: str, head_digest: bytes, state: bytes, previous: str | None) -> str:
    """The signature of a thinking block: its prefix (head, messages), the block before it, a keyed digest."""
    link = _h(EMPTY, previous) if previous else EMPTY
    body = TAG + head_digest + state + link
    mac = hashlib.blake2b(body + text.encode("utf-8"), key=KEY, digest_size=16).digest()
    return base64.b64encode(body + mac).decode("ascii")


def _read(signature: Any) -> tuple[bytes, bytes, bytes, bytes] | None:
    """(head, state, link, mac) of an offline signature; None for one the server did not write."""
    try:
        raw = base64.b64decode(signature, validate=True) if isinstance(signature, str) else b""
    except ValueError:
        return None
    if len(raw) != 68 or not raw.startswith(TAG):
        return None
    return raw[4:20], raw[20:36], raw[36:52], raw[52:]


def produce(text: str, system_blocks: list, tools: list, sent: list, before: list) -> dict:
    """A new thinking block at the start of the answer: bound to ``sent`` (merged, as sent) and to the
    answer's blocks ``before`` it (a compaction block made in the same answer)."""
    found, state = walk(sent)
    previous = found[-1][2] if found else None
    continues = bool(sent) and sent[-1].get("role") == "assistant" and not before
    if before:
        found, state = walk([{"role": "assistant", "content": before}])
        previous = None
    elif not continues:
        state = _h(state, {"role": "assistant"})
    link = _signature_of(previous) if previous else None
    return {
        "type": "thinking",
        "thinking": text,
        "signature": sign(text, head(system_blocks, tools), state, link),
    }


def _signature_of(block: dict) -> str:
    return str(block.get("signature") if block.get("type") == "thinking" else block.get("data"))


def bind(
    messages: list,
    paths: Callable[[], dict[tuple[int, int], tuple[int, int]]],
    system_blocks: list,
    tools: list,
    settings: Thinking,
) -> Binding:
    """The binding check over the request's thinking blocks; a RequestError for an edited block, or for a
    mismatch under ``"error"``. ``paths()`` maps each merged (message, block) to the one the client sent."""
    if not any(
        isinstance(b, dict) and b.get("type") in THINKING
        for m in messages
        if isinstance(m.get("content"), list)
        for b in m["content"]
    ):
        return Binding()  # nothing to check: the digests are not computed
    found, _ = walk(messages)
    binding, now, failed, where_sent = Binding(), head(system_blocks, tools), False, paths()
    for k, (i, j, block, state) in enumerate(found):
        where = "messages.{}.content.{}".format(*where_sent.get((i, j), (i, j)))
        read = _read(block.get("signature")) if block.get("type") == "thinking" else None
        if read is not None:
            expected = hashlib.blake2b(
                TAG + read[0] + read[1] + read[2] + str(block.get("thinking", "")).encode("utf-8"),
                key=KEY,
                digest_size=16,
            ).digest()
            if expected != read[3]:
                raise RequestError(
                    f"{where}: Invalid `signature` in `thinking` block: the block was changed after the API "
                    "returned it"
                )
        link_ok = k == 0 or (read is not None and read[2] == _h(EMPTY, _signature_of(found[k - 1][2])))
        ok = read is not None and read[0] == now and read[1] == state and link_ok
        if ok and not (failed and settings.behavior == "drop_block"):
            continue
        if settings.behavior == "error":
            raise RequestError(f"{where}: {_mismatch_words(read, now)}")
        failed = True
        kind = "thinking_dropped" if settings.behavior == "drop_block" else "thinking_mismatch_allowed"
        if settings.behavior == "drop_block":
            binding.dropped.add((i, j))
        if settings.report:
            binding.transformations.append({"type": kind, "path": where, "reason": "prefix_binding_mismatch"})
    return binding


def _mismatch_words(read: tuple | None, now: bytes) -> str:
    what = (
        "The block carries no record of the conversation it was created in."
        if read is None
        else "The `system` prompt or the `tools` list differs from when the block was created."
        if read[0] != now
        else "The messages before the block differ from when it was created."
    )
    return (
        "Invalid `signature` in `thinking` block. The block is bound to a different conversation. Remove the "
        f'block, or set `thinking.block_binding.prefix_mismatch_behavior` to "drop_block". {what}'
    )


def without(messages: list, dropped: set[tuple[int, int]]) -> list:
    """``messages`` with the dropped thinking blocks left out (a message left empty stays as it was)."""
    if not dropped:
        return messages
    out = []
    for i, message in enumerate(messages):
        content = blocks(message)
        kept = [b for j, b in enumerate(content) if (i, j) not in dropped]
        out.append({**message, "content": kept} if kept and len(kept) < len(content) else message)
    return out


def plan_text(turn: list[dict]) -> str:
    """The summarized text of the offline model's thinking: what its turn is about to do."""
    calls = [f"{b.get('name')}" for b in turn if b.get("type") == "tool_use"]
    return f"Next: call {', '.join(calls)}." if calls else "Next: answer from what is in front of me."
