"""Why a pass of the pipeline did nothing: its trigger, in the Compactor's own figures.

Each reason names the trigger and the numbers it compared (``38 messages, within max_messages 40``),
so a learner stepping through a ``prepare()`` call sees that an idle pass was a decision, not a
bug. Events of the call come first: a pass skipped because its transcript could not be written says
so. Deliberately left out: deciding anything; the pipeline decides, this module only reads its
settings (``max_messages``, ``layer_args``, ``micro_trigger``, ``threshold``, ``clear_at_least``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from compaction.core.messages import result_chars, tool_result_blocks


def _newest_results_chars(messages: Sequence[dict]) -> int:
    for message in reversed(messages):
        if message.get("role") == "user":
            return sum(result_chars(b) for b in tool_result_blocks(message))
    return 0


def why_idle(compactor: Any, layer: str, messages: Sequence[dict], events: Iterable[Any] = ()) -> str:
    """Why ``layer`` left ``messages`` as they were, in ``compactor``'s figures."""
    for event in events:
        if str(getattr(event, "layer", "")).startswith(f"{layer}_"):
            return f"{event.layer}: {event.detail}"
    args = getattr(compactor, "layer_args", {}).get(layer, {})
    if layer == "budget":
        chars, limit = _newest_results_chars(messages), args.get("max_chars", 0)
        if chars <= limit:
            return f"not triggered: the newest tool results hold {chars:,} characters, max_chars is {limit:,}"
        return f"triggered ({chars:,} characters > {limit:,}), but no single result was worth moving to disk"
    if layer == "snip":
        n, limit = len(messages), compactor.max_messages
        if n <= limit:
            return f"not triggered: {n} messages, within max_messages {limit}"
        return f"triggered ({n} messages > {limit}), but no pair-safe cut was found"
    estimate, threshold = compactor.estimate(messages), compactor.threshold
    if layer == "micro":
        limit = int(compactor.micro_trigger * threshold)
        if estimate <= limit:
            return (
                f"not triggered: {estimate:,} tokens, within {compactor.micro_trigger:.0%} "
                f"of the threshold ({limit:,})"
            )
        cleared = compactor.layers["micro"](list(messages), **args)  # the layer the Compactor runs
        if cleared == list(messages):
            return f"triggered ({estimate:,} > {limit:,}), but no old result was left to clear"
        freed = estimate - compactor.estimate(cleared)
        return (
            f"triggered ({estimate:,} > {limit:,}), but clearing would free only {freed:,} tokens, "
            f"less than clear_at_least {compactor.clear_at_least:,}: not worth breaking the prompt cache"
        )
    if layer == "summary":
        if not compactor.summarize:
            return "summaries are off (summarize=False)"
        if estimate <= threshold:
            return f"not triggered: {estimate:,} tokens, within the threshold {threshold:,}"
        if compactor.breaker_open:
            return f"over the threshold ({estimate:,} > {threshold:,}), but the circuit breaker is open"
        if compactor.client is None or compactor.transcript_dir is None:
            over = f"over the threshold ({estimate:,} > {threshold:,})"
            return f"{over}, but the Compactor has no client or transcript_dir"
    return "the list came out unchanged"
