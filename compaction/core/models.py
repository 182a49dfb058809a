"""The models the course knows, one cited row each, and the model it asks for when a caller names none.

``MODELS`` is the one table the offline server (window, output limit, cache minimum, overflow
behaviour), the pricing (``compaction.evaluate.replay.engine``) and the chapters read. Every figure comes from
the source named in its row; a figure no source gave is ``None`` and the reader says what it does
without it. Sources, read 2026-12 (the stored copies the course's fact check used):

* each model's page, ``https://platform.claude.com/docs/en/models/<model>/overview``: context
  window, max output, input and output price per million tokens, the cache prices where the page
  lists them, and the lifecycle (Claude Sonnet 4.5: "deprecated ... retires on November 30, 2026");
* the cache prices: the pricing page's "Model pricing" table
  (https://platform.claude.com/docs/en/about-claude/pricing), whose Claude Sonnet 5.5 row reads
  "$0.10 / MTok" for cache hits with the note "Cache hits and refreshes on Claude Opus 5.5 and Claude
  Sonnet 5.5 are priced at 0.05x the base input price" (a cut from $0.20 on 2026-10-07, as the
  pricing changelogs of kurofune/claudit v1.9.2 and TheKrush/PromptFuel v1.0.23 record it; the
  model's own overview page still showed $0.20 in the stored copy, while its migration guide,
  https://platform.claude.com/docs/en/models/sonnet-5-5/migration-guide, says Sonnet 5.5 is priced as
  Sonnet 5 except cache reads, $0.10 per million tokens, half Sonnet 5's rate). The other rows follow the
  prompt-caching page's multipliers (5-minute write 1.25x, 1-hour write 2x, read 0.1x the input
  price; https://platform.claude.com/docs/en/build-with-claude/prompt-caching, "Pricing"). Every
  multiplier the course uses is read from a row (``PRICE``);
* the minimum cacheable length per model: the prompt-caching page's "Cache limitations"
  (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations):
  "512 tokens for ... Claude Opus 5.5, Claude Opus 5, Claude Sonnet 5.5, ...", "4,096 tokens for
  Claude Opus 4.6 and Claude Opus 4.5", "1,024 tokens for Claude Opus 4.8, Claude Sonnet 5, Claude
  Sonnet 4.6, Claude Sonnet 4.5, ... Claude Sonnet 4", "4,096 tokens for Claude Haiku 4.5" (quoted
  verbatim, with the date read, in public fact checks found by the course's search; OpenRouter's Claude
  5.5 notes also give the three 5.5 models a "512-token minimum cacheable prompt",
  https://openrouter.ai/docs/cookbook/evaluate-and-optimize/model-migrations/claude-5-5);
* the overflow behaviour: the stop-reasons page
  (https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons) says
  "On Sonnet 4.5 and newer models the API returns this value [``model_context_window_exceeded``]
  without a beta header. For earlier models, add the `model-context-window-exceeded-2025-08-26` beta
  header to enable it." So only a model older than Sonnet 4.5 asked WITHOUT that header answers input
  plus ``max_tokens`` over the window with the 400 ``input length and `max_tokens` exceed context
  limit`` (``compaction.core.api_errors``); the table's ``REFUSE`` is that case (the course's client
  sends no beta header). The value is the SDK's ``StopReason`` (``anthropic/types/stop_reason.py``);
* the tokenizer: Claude Sonnet 5's migration guide
  (https://platform.claude.com/docs/en/models/sonnet-5/migration-guide) says it uses a new tokenizer that
  counts the same text as about 30% more tokens than Claude Sonnet 4.6, the exact increase depending on the
  content, and the Claude Haiku 5.5 migration guide
  (https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide) says to recount prompts and
  revisit ``max_tokens`` because the same text counts as more tokens (both paraphrased); the
  token-counting page (https://platform.claude.com/docs/en/build-with-claude/token-counting) gives
  the figure: "Claude Opus 4.7 and later Opus models, ... and Claude Sonnet 5 use a newer tokenizer.
  The same input text produces approximately 30 percent more tokens than on earlier models. The exact
  increase depends on the content and workload shape." No page found names Claude Sonnet 5.5's tokenizer:
  that list ends at Claude Sonnet 5, and Sonnet 5.5's overview page lists what changes for code that ran on
  Sonnet 5 with no tokenizer among the changes, so its row takes Sonnet 5's (an inference, said so in the
  row). The offline server counts every model with tiktoken's cl100k,
  which is none of Claude's tokenizers;
* the default ``keep`` of ``clear_thinking_20251015``: the context-editing page's configuration table
  (https://platform.claude.com/docs/en/build-with-claude/context-editing) gives it per model, "Opus
  4.5+ and Sonnet 4.6+: all turns ... Earlier Opus/Sonnet and all Haiku: last turn only";
* Claude Opus 4.5's deprecation: the installed SDK warns "deprecated and will reach end-of-life on
  January 22nd, 2027" (``anthropic/_data/deprecated_models.py``);
* Claude Sonnet 4's retirement (June 15, 2026) as the release notes report it, recorded in
  ottto-ai/ai-provider-watch's
  ``data/events/2026-06-15-anthropic-sonnet-4-opus-4-retirement.json`` (from
  https://platform.claude.com/docs/en/release-notes/overview).

``COMPACTION_MODEL`` overrides the default model; the offline server answers for any name (a name
outside the table gets the default model's behaviour). Deliberately left out: Claude Sonnet 4.6, Opus
4.7 and Opus 4.8 (in the SDK's ``ModelParam``), Fable, Mythos, Opus 5.x and Haiku 5.5 (the course uses
none of them), long-context and batch prices, and capabilities. Claude Haiku 4.5 is "legacy": its
overview page says "Legacy ... consider migrating to Claude Haiku 5.5", and the migration guide
(https://platform.claude.com/docs/en/models/haiku-5-5/migration-guide) is about moving code that
calls Claude Haiku 4.5 to Claude Haiku 5.5.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

CLAUDE_MODEL = "claude-sonnet-5-5"  # a current model of the real API (in the SDK's ModelParam)
STOP_REASON = "stop_reason"  # input + max_tokens over the window: answered, cut at the window
REFUSE = "refuse"  # older than Sonnet 4.5, no beta header: the 400 "input length and `max_tokens` ..."
WINDOW_EXCEEDED = "model_context_window_exceeded"  # the SDK's StopReason value


@dataclass(frozen=True)
class Model:
    """One model's documented limits and prices (USD per million tokens); None where no source says."""

    id: str
    name: str
    window: int | None  # input context window, tokens
    max_output: int | None  # the largest max_tokens
    input_price: float | None
    output_price: float | None
    cache_write_5m: float | None
    cache_write_1h: float | None
    cache_read: float | None
    cache_minimum: int | None  # the shortest prefix the cache writes, tokens
    overflow: str  # STOP_REASON or REFUSE
    status: str  # "active", "legacy", "deprecated" or "retired" (with its date)
    tokenizer: str
    source: str
    thinking_kept: int | None = 1  # clear_thinking_20251015's default ``keep``: turns (None: all)


def _doc(slug: str) -> str:
    return f"https://platform.claude.com/docs/en/models/{slug}/overview"


CLAUDE_5_TOKENIZER = "the new tokenizer: about 30% more tokens for the same text (the token-counting page)"
SONNET_5_5_TOKENIZER = "taken to be Claude Sonnet 5's: no page names it, and no change of tokenizer is listed"
EARLIER_TOKENIZER = "the earlier tokenizer (models before Claude Opus 4.7)"

# fmt: off
MODELS: dict[str, Model] = {
    m.id: m
    for m in (
        Model("claude-sonnet-5-5", "Claude Sonnet 5.5", 1_000_000, 128_000, 2.0, 10.0, 2.5, 4.0, 0.1,
              512, STOP_REASON, "active", SONNET_5_5_TOKENIZER, _doc("sonnet-5-5"), None),
        Model("claude-sonnet-5", "Claude Sonnet 5", 1_000_000, 128_000, 2.0, 10.0, 2.5, 4.0, 0.2,
              1024, STOP_REASON, "legacy", CLAUDE_5_TOKENIZER, _doc("sonnet-5"), None),
        Model("claude-opus-4-6", "Claude Opus 4.6", 1_000_000, 128_000, 5.0, 25.0, 6.25, 10.0, 0.5,
              4096, STOP_REASON, "legacy", EARLIER_TOKENIZER, _doc("opus-4-6"), None),
        Model("claude-opus-4-5", "Claude Opus 4.5", 200_000, 64_000, 5.0, 25.0, 6.25, 10.0, 0.5,
              4096, STOP_REASON, "deprecated, retires 2027-01-22", EARLIER_TOKENIZER, _doc("opus-4-5"), None),
        Model("claude-haiku-4-5", "Claude Haiku 4.5", 200_000, 64_000, 1.0, 5.0, 1.25, 2.0, 0.1,
              4096, STOP_REASON, "legacy", EARLIER_TOKENIZER, _doc("haiku-4-5")),
        Model("claude-sonnet-4-5", "Claude Sonnet 4.5", 200_000, 64_000, 3.0, 15.0, 3.75, 6.0, 0.3,
              1024, STOP_REASON, "retired 2026-11-30", EARLIER_TOKENIZER, _doc("sonnet-4-5")),
        Model("claude-sonnet-4-20250514", "Claude Sonnet 4", None, None, None, None, None, None, None,
              1024, REFUSE, "retired 2026-06-15", EARLIER_TOKENIZER,
              "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons"),
    )
}
ALIASES = {"claude-haiku-4-5-20251001": "claude-haiku-4-5", "claude-opus-4-5-20251101": "claude-opus-4-5",
           "claude-sonnet-4-5-20250929": "claude-sonnet-4-5", "claude-sonnet-4-0": "claude-sonnet-4-20250514"}
# fmt: on


def default_model() -> str:
    """The model to ask for: ``COMPACTION_MODEL`` when set, else ``CLAUDE_MODEL``."""
    return os.environ.get("COMPACTION_MODEL", "").strip() or CLAUDE_MODEL


def model(name: str) -> Model | None:
    """The table's row for a model id or alias, or None for a name the table does not hold."""
    return MODELS.get(ALIASES.get(name, name))


def behaves_as(name: str) -> Model:
    """The row whose behaviour the offline server gives ``name``: its own, else the default model's."""
    return model(name) or MODELS[CLAUDE_MODEL]


DEFAULT_MODEL = default_model()  # fixed at import
# multiples of the base input price: 5-minute writes, 1-hour writes, reads, read from the default
# model's row above (for Claude Sonnet 5.5: 1.25x, 2x and 0.05x); the prompt-cache pricing
# (compaction.evaluate.cost) and the API's own context management (compaction.agent.server_side) read them
_PRICED = MODELS[CLAUDE_MODEL]
PRICE = {
    "input": 1.0,
    "5m": _PRICED.cache_write_5m / _PRICED.input_price,
    "1h": _PRICED.cache_write_1h / _PRICED.input_price,
    "read": _PRICED.cache_read / _PRICED.input_price,
}
