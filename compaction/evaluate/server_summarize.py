"""The ``server summarize`` strategy: on-demand compaction by the API, asked when the context is full.

Before a model call whose context is over the summary threshold (the pipeline's, from
``compaction.layers.triggers``), the strategy sends the conversation as a compaction request
(``compaction={"type": "summarize"}``, beta ``compact-2026-09-04``; SDK
``BetaCompactionConfigParam``) and sends the returned block first in ``messages``, in place of
everything it summarizes, as the SDK's ``compaction`` parameter says. The manual ``compact`` tool
asks the same with the agent's focus as ``instructions``, which replace the server's prompt.
The request goes through ``client.messages.create`` with ``extra_body``, so a recording client
prices it like the pipeline's summary calls. Offline only in this course (the offline server
implements it); against the real API the beta must be enabled for the account.
Deliberately left out: keeping a tail of recent turns (the API summarizes the whole list).
"""

from __future__ import annotations

from typing import Any

from compaction.core.models import DEFAULT_MODEL
from compaction.core.tokens import TokenCounter
from compaction.layers.triggers import summary_threshold

BETA = "compact-2026-09-04"
NAME = "server summarize"


class ServerSummarize:
    """A layer: over the threshold, the list becomes the server's compaction block alone."""

    def __init__(self, client: Any, *, window: int, threshold: int | None = None, model: str = DEFAULT_MODEL):
        self.client, self.model = client, model
        self.threshold = summary_threshold(window) if threshold is None else threshold
        self.compactions = 0
        self._tokens = TokenCounter("tiktoken")

    def compact(self, messages: list[dict], focus: str | None = None) -> list[dict]:
        """The list replaced by one compaction block (``focus`` becomes the instructions)."""
        config: dict = {"type": "summarize"}
        if focus:
            config["instructions"] = f"Summarize the conversation so far, focused on: {focus}"
        response = self.client.messages.create(
            model=self.model,
            max_tokens=4096,
            messages=messages,
            extra_body={"compaction": config},
            extra_headers={"anthropic-beta": BETA},
        )
        blocks = [b.to_dict() if hasattr(b, "to_dict") else dict(b) for b in response.content]
        if not any(b.get("type") == "compaction" and b.get("content") for b in blocks):
            return messages  # a failed compaction (null content) changes nothing
        self.compactions += 1
        return [{"role": "assistant", "content": blocks}]

    def __call__(self, messages: list[dict]) -> list[dict]:
        """The list to send: unchanged under the threshold, else compacted."""
        if not messages or self._tokens.count(messages) <= self.threshold:
            return messages
        return self.compact(messages)
