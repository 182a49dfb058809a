"""What a replayed request costs with prompt caching: the unchanged prefix is read from the cache.

Each request is assumed to put its cache breakpoint on the last message, so the next request
reads back the messages it shares with this one (0.1x the input price) and writes the rest
(1.25x, the 5-minute cache); the recorded assistant reply is billed as output. Prices are USD per
million tokens for Claude Sonnet 4.5 (platform.claude.com/docs/en/about-claude/pricing: $3 input,
$15 output, cache writes 1.25x and reads 0.1x the input price). Deliberately left out: the
minimum cacheable length, the cache's lifetime (replay has no clock), the system prompt and tools.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Prices:
    """USD per million tokens."""

    input: float = 3.0
    output: float = 15.0
    cache_write: float = 3.75
    cache_read: float = 0.30


SONNET = Prices()


def request_cost(cached: int, written: int, output: int, prices: Prices = SONNET) -> float:
    """Dollars for one request: ``cached`` tokens read back, ``written`` sent and cached, ``output``."""
    return (cached * prices.cache_read + written * prices.cache_write + output * prices.output) / 1e6
