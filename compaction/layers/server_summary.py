"""The API's own summary as a layer: on-demand compaction, asked when the context is full.

Before a model call whose messages are over the pipeline's summary threshold, the layer sends the
conversation as a compaction request (``compaction={"type": "summarize"}``, beta
``compact-2026-09-04``; SDK ``BetaCompactionConfigParam``) and sends the returned block first in
``messages``, in place of everything it summarizes, as the SDK's ``compaction`` parameter says. The
model's ``compact`` tool asks the same with the agent's focus as ``instructions``, which replace the
server's prompt. The request goes through ``client.messages.create`` with ``extra_body``, so a
recording client prices it like the pipeline's summary calls. The pipeline writes the transcript
before the block replaces the list (``transcript_first``). Offline only in this course (the offline
server implements it); against the real API the beta must be enabled for the account.
Deliberately left out: keeping a tail of recent turns (the API summarizes the whole list), and the
user's instructions pinned after the block (the server's summary is opaque to the client).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from compaction.core.models import DEFAULT_MODEL
from compaction.layers.layer import Layer, Shared

BETA = "compact-2026-09-04"


@dataclass(frozen=True, repr=False)
class ServerSummary(Layer):
    """Over the threshold, the list becomes the server's compaction block alone.

    Its trigger counts the messages alone (tiktoken), without the system prompt and tools the
    pipeline's estimate adds: the API's compaction request carries the messages.
    """

    name: ClassVar[str] = "summary"  # a summary, written by the server: counted with the others
    calls_model: ClassVar[bool] = True
    answers_compact: ClassVar[bool] = True
    unchanged: ClassVar[str] = "the server's compaction block came back empty"
    model: str = DEFAULT_MODEL

    def idle(self, messages: Sequence[dict], shared: Shared) -> str | None:
        """Not triggered while the messages alone are within the threshold; or with no model to ask."""
        tokens = shared.counter.estimate(messages)
        if tokens <= shared.threshold:
            return f"not triggered: {tokens:,} tokens of messages, within the threshold {shared.threshold:,}"
        if shared.client is None:
            return f"over the threshold ({tokens:,} > {shared.threshold:,}), but the Compactor has no client"
        return None

    def apply(self, messages: list[dict], shared: Shared) -> list[dict]:
        """The list replaced by one compaction block; unchanged when the server's block is empty."""
        return self.compact(messages, shared)

    def compact(self, messages: list[dict], shared: Shared, focus: str | None = None) -> list[dict]:
        """The list replaced by one compaction block (``focus`` becomes the instructions)."""
        config: dict = {"type": "summarize"}
        if focus:
            config["instructions"] = f"Summarize the conversation so far, focused on: {focus}"
        response = shared.client.messages.create(
            model=self.model,
            max_tokens=4096,
            messages=messages,
            extra_body={"compaction": config},
            extra_headers={"anthropic-beta": BETA},
        )
        content = [b.to_dict() if hasattr(b, "to_dict") else dict(b) for b in response.content]
        if not any(b.get("type") == "compaction" and b.get("content") for b in content):
            return messages  # a failed compaction (null content) changes nothing
        return [{"role": "assistant", "content": content}]
