"""Cache-miss diagnostics: why a request could not reuse the prompt-cache prefix of an earlier one.

What the documentation says (https://platform.claude.com/docs/en/build-with-claude/cache-diagnostics):
for each request that includes the ``diagnostics`` object the API stores a fingerprint (hashes
and token estimates, never the prompt) keyed by the response ``id``, and nothing for a request
without it; the first turn opts in with ``"previous_message_id": null``; a later request names the
previous response's ``id``, and the API compares the two and describes the first point where they
diverged. The comparison is about the request's structure, not whether the cache actually hit.
The reasons are the SDK's ``CacheMissReason`` union (``anthropic/types/cache_miss_reason.py``;
the beta namespace mirrors it as ``BetaCacheMissReason``):
``model_changed`` (``model`` or ``speed``), ``system_changed``, ``tools_changed``,
``messages_changed`` ("differ from the previous request's in an earlier entry, instead of only
having entries appended"), each with ``cache_missed_input_tokens``, "approximate number of input
tokens that would have been read from cache had the prefix matched the previous request";
``previous_message_not_found`` (the API "doesn't have a stored record of the request that
``diagnostics.previous_message_id`` references"); ``unavailable`` (the same model, system and
tools but another prompt-affecting parameter such as ``thinking`` or ``tool_choice``).

Counted as the server's caching counts (``api.TokenCounts``, the prefix order tools, system,
messages of ``caching``): the missed tokens are the previous request's prompt minus the part the
new one still shares (its tools when the system changed, its first k messages when message k
changed, counted from the start of that message). Blocks are compared one by one, as the cache
compares them, so a turn the API merges into the last one appends and changes nothing. The answer's
``diagnostics`` is null "when the request did not supply ``diagnostics``, or when it did and no
prompt-cache divergence was detected" (SDK ``Message.diagnostics``): so on the first turn, whose
``previous_message_id`` is null (nothing to compare), and on a request that only appended. An id
the server has no fingerprint for gives ``previous_message_not_found``. The offline server's
choices: ``cache_miss_reason`` is never null (the SDK keeps null for a diagnosis "still pending",
which an offline comparison never is); fingerprints live per cache scope (the
``x-compaction-cache-scope`` header plays the organization), the newest 10,000 kept.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from compaction.core.messages import blocks
from compaction.offline.server.caching import canonical, without_cache_control
from compaction.offline.server.errors import RequestError

OTHER_PROMPT_FIELDS = ("thinking", "tool_choice")  # "other prompt-affecting parameters" (SDK)
KEEP = 10_000


def _digest(value: object) -> bytes:
    return hashlib.blake2b(canonical(value), digest_size=16).digest()


@dataclass(frozen=True)
class Fingerprint:
    """What a request's prefix was: digests per part, and the tokens before each message boundary."""

    model: bytes
    system: bytes
    tools: bytes
    other: bytes
    blocks: tuple[bytes, ...]  # digest of the message blocks up to and including each one
    owner: tuple[int, ...]  # the message each block belongs to
    tools_tokens: int
    starts: tuple[int, ...]  # tokens of tools + system + the first k messages, k = 0..n


def fingerprint(
    body: dict, messages: list, head: int, tools_tokens: int, tokens_of: Callable[[dict], int]
) -> Fingerprint:
    """A request's fingerprint: ``head`` is its tools and system tokens, ``tokens_of`` counts a message."""
    chained, owner, digest = [], [], b""
    starts = [head]
    for i, message in enumerate(messages):
        for j, block in enumerate(blocks(message)):
            plain = without_cache_control(block)
            part = [message.get("role"), plain] if j == 0 else plain  # a turn's start counts
            digest = hashlib.blake2b(digest + canonical(part), digest_size=16).digest()
            chained.append(digest)
            owner.append(i)
        starts.append(starts[-1] + tokens_of(message))
    return Fingerprint(
        model=_digest([body.get("model"), body.get("speed")]),
        system=_digest(without_cache_control(body.get("system"))),
        tools=_digest(without_cache_control(body.get("tools") or [])),
        other=_digest([without_cache_control(body.get(name)) for name in OTHER_PROMPT_FIELDS]),
        blocks=tuple(chained),
        owner=tuple(owner),
        tools_tokens=tools_tokens,
        starts=tuple(starts),
    )


def cache_miss_reason(before: Fingerprint | None, after: Fingerprint) -> dict | None:
    """The SDK's ``cache_miss_reason`` for ``after`` against ``before``; None when nothing diverged."""
    if before is None:
        return {"type": "previous_message_not_found"}
    total = before.starts[-1]
    if before.model != after.model:
        return {"type": "model_changed", "cache_missed_input_tokens": total}
    if before.tools != after.tools:
        return {"type": "tools_changed", "cache_missed_input_tokens": total}
    if before.system != after.system:
        return {"type": "system_changed", "cache_missed_input_tokens": total - before.tools_tokens}
    shared = 0
    for a, b in zip(before.blocks, after.blocks, strict=False):
        if a != b:
            break
        shared += 1
    if shared < len(before.blocks):  # counted from the start of the message that changed
        kept = before.starts[before.owner[shared]]
        return {"type": "messages_changed", "cache_missed_input_tokens": total - kept}
    if before.other != after.other:
        return {"type": "unavailable"}
    return None


class Fingerprints:
    """The fingerprints of the requests that asked for diagnostics, by cache scope and response id."""

    def __init__(self, keep: int = KEEP):
        self._seen: OrderedDict[tuple[str, str], Fingerprint] = OrderedDict()
        self._keep = keep
        self._lock = threading.Lock()

    def get(self, scope: str, message_id: str) -> Fingerprint | None:
        """The fingerprint stored under a response id, if any."""
        with self._lock:
            return self._seen.get((scope, message_id))

    def put(self, scope: str, message_id: str, print_: Fingerprint) -> None:
        """Store a fingerprint under a response id, forgetting the oldest beyond ``keep``."""
        with self._lock:
            self._seen[(scope, message_id)] = print_
            self._seen.move_to_end((scope, message_id))
            while len(self._seen) > self._keep:
                self._seen.popitem(last=False)


def previous_id(body: dict) -> tuple[bool, str | None]:
    """(whether the request asks for diagnostics, the previous message id), or a RequestError."""
    value = body.get("diagnostics")
    if value is None:
        return False, None
    if not isinstance(value, dict):
        raise RequestError("diagnostics: Input should be a valid dictionary")
    for name in value:
        if name != "previous_message_id":
            raise RequestError(f"diagnostics.{name}: Extra inputs are not permitted")
    previous = value.get("previous_message_id")
    if previous is not None and not isinstance(previous, str):
        raise RequestError("diagnostics.previous_message_id: Input should be a valid string")
    return True, previous
