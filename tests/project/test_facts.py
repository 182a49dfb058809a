"""Every outside claim the course makes, with its source; and a rule that catches an unsourced one.

``FACTS`` lists each claim about a system outside the project (the Messages API, prompt caching,
Claude Code, a paper) that a chapter or a docstring makes, the file that makes it, and the source
that file must name beside it: a docs page, an SDK type, a public issue or repository file. The
test fails when a file stops naming its source. ``unsourced`` is the rule for chapter prose: a
markdown cell with a sentence that names Claude Code, the Messages API, caching or a paper *and* a
number must name a source somewhere in the same cell (a link, a ``owner/repo#N`` reference, a
``platform.claude.com``/``code.claude.com`` page, an arXiv id, a named SDK type, or
``compaction.core.models``). ``ALLOWED`` lists the cells whose numbers are the course's own
measurements or say outright that no source exists, each with its reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NAMES = re.compile(r"Claude Code|Messages API|\bcach(?:e|es|ed|ing)\b|\bpaper\b|arXiv", re.I)
NUMBER = re.compile(r"\d")
SOURCE = re.compile(
    r"https?://|\b(?:platform|docs|code)\.claude\.com|\b[\w.-]+/[\w.-]+#\d+|arXiv:? ?\d{4}\.\d{4,5}"
    r"|`(?:anthropic/types[\w/.]*|Beta\w+|\w+Param|StopReason|ModelInfo|Usage)`|compaction\.(?:core\.)?models|\]\(",
    re.I,
)

# (claim, file that makes it, the source it must name there)
FACTS = [
    (
        "Claude Sonnet 5.5: 1M window, 128K output, $2/$10, cache $2.50/$4/$0.10",
        "compaction/core/models.py",
        "sonnet-5-5",
    ),
    (
        "Claude Sonnet 4.5 retires on November 30, 2026; 200K, 64K, $3/$15",
        "compaction/core/models.py",
        "sonnet-4-5",
    ),
    (
        "cache minimum 512 for Sonnet 5.5, 1,024 for Sonnet 5/4.5/4, 4,096 for Opus 4.5/4.6 and Haiku 4.5",
        "compaction/core/models.py",
        "prompt-caching#cache-limitations",
    ),
    (
        "model_context_window_exceeded on Sonnet 4.5 and newer; older models refuse with the 400 without "
        "the model-context-window-exceeded-2025-08-26 header",
        "compaction/core/models.py",
        "handling-stop-reasons",
    ),
    ("the stop reason's wire value", "compaction/core/models.py", "anthropic/types/stop_reason.py"),
    (
        "an edited or unsigned compaction block is refused with compaction_content_mismatch or "
        "compaction_signature_invalid",
        "compaction/offline/server/compaction_blocks.py",
        "build-with-claude/compaction-on-demand",
    ),
    (
        "the SDK raises a typed exception for each compaction error_code",
        "compaction/offline/server/compaction_blocks.py",
        "anthropic/_error_classes.py",
    ),
    (
        "ModelInfo.capabilities name the context-management edits and the compaction a model supports",
        "compaction/offline/server/models.py",
        "anthropic/types/beta/beta_model_info.py",
    ),
    (
        "the first SDK with diagnostics on the non-beta messages.create is 1.9.0",
        "tests/project/test_sdk_floor.py",
        "resources/messages/messages.py",
    ),
    (
        "Claude Sonnet 5's tokenizer is new and counts the same text as more tokens",
        "compaction/core/models.py",
        "models/sonnet-5/migration-guide",
    ),
    (
        "about 30% more tokens on the newer tokenizer",
        "compaction/core/models.py",
        "build-with-claude/token-counting",
    ),
    (
        "Claude Sonnet 5.5's cache reads are 0.05x the input price ($0.10/M)",
        "compaction/core/models.py",
        "about-claude/pricing",
    ),
    (
        "Claude Haiku 4.5 is legacy, with a migration guide to Haiku 5.5",
        "compaction/core/models.py",
        "models/haiku-5-5/migration-guide",
    ),
    (
        "cache prices as multiples of the input price, read from the default model's row",
        "compaction/core/models.py",
        "MODELS[CLAUDE_MODEL]",
    ),
    (
        "input + max_tokens over the window: the 400's wording",
        "compaction/offline/server/overflow.py",
        "docker/docker-agent/issues/569",
    ),
    (
        "compact_20260112: value must be at least 50,000 tokens",
        "compaction/offline/server/context_config.py",
        "build-with-claude/compaction",
    ),
    (
        "the API's wording for a trigger under the minimum",
        "compaction/offline/server/context_config.py",
        "LionSR/TeXRA/pull/2625",
    ),
    (
        "clear_tool_uses keep: number of tool uses to retain",
        "compaction/offline/server/context_edits.py",
        "docstring of ``keep`` in ``BetaClearToolUses20250919EditParam``",
    ),
    (
        "the cache lookback checks about 20 blocks before each breakpoint",
        "compaction/offline/server/caching.py",
        "prompt-caching",
    ),
    (
        "per-model cache minimum",
        "compaction/offline/server/caching.py",
        "prompt-caching#cache-limitations",
    ),
    (
        "at most four cache breakpoints, the API's wording",
        "compaction/offline/server/caching.py",
        "tghamm/Anthropic.SDK/issues/50",
    ),
    (
        "tool_use id pattern, the API's 400",
        "compaction/offline/server/request.py",
        "CommandCodeAI/command-code/issues/323",
    ),
    (
        "Claude Code re-reads up to five files of at most 5,000 tokens after a summary",
        "compaction/layers/restore.py",
        "code.claude.com/docs/en/context-window",
    ),
    (
        "the 50,000-token restoration budget, the seed's reading of Claude Code",
        "compaction/layers/restore.py",
        "shareAI-lab/learn-claude-code/tree/main/s08_context_compact",
    ),
    (
        "Claude Code's 13,000-token buffer",
        "compaction/layers/triggers.py",
        "anthropics/claude-code#12004",
    ),
    (
        "Claude Code's summary cap of 20,000 output tokens",
        "compaction/layers/triggers.py",
        "shareAI-lab/learn-claude-code/tree/main/s08_context_compact",
    ),
    (
        "Claude Code's breaker opens after 3 failures",
        "compaction/layers/triggers.py",
        "anthropics/claude-code#34278",
    ),
    (
        "Claude Code clears older tool outputs first, then summarizes",
        "compaction/agent/session.py",
        "code.claude.com/docs",
    ),
    (
        "the prompt-too-long 400 and the input + max_tokens 400",
        "compaction/core/api_errors.py",
        "anthropics/claude-code#408",
    ),
    ("model_context_window_exceeded is an SDK StopReason", "compaction/core/api_errors.py", "StopReason"),
    (
        "Claude's tokenizer is not public and changes between models",
        "compaction/core/tokens.py",
        "token-counting",
    ),
    (
        "the window as the API reports it: ModelInfo.max_input_tokens",
        "compaction/offline/server/models.py",
        "anthropic/types/model_info.py",
    ),
    ("observation masking halves cost relative to a raw agent", "notebooks/13_evaluate.ipynb", "2508.21433"),
    (
        "tool_result blocks first in their user message",
        "notebooks/01_messages.ipynb",
        "platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls",
    ),
    (
        "model_context_window_exceeded and the 400, chapter 09",
        "notebooks/09_reactive.ipynb",
        "handling-stop-reasons",
    ),
    (
        "the compaction minimum of 50,000 tokens, chapter 14",
        "notebooks/14_api_context_management.ipynb",
        "build-with-claude/compaction",
    ),
    (
        "the cache minimum per model, chapter 14",
        "notebooks/14_api_context_management.ipynb",
        "compaction.core.models",
    ),
    (
        "chapter 15 prices at the default model's input price",
        "notebooks/15_replay.ipynb",
        "compaction.core.models",
    ),
    (
        "context editing alone +29%, with the memory tool +39%, on Anthropic's agentic-search evaluation",
        "notebooks/18_memory_tool.ipynb",
        "https://www.anthropic.com/news/context-management",
    ),
    (
        "the memory tool is client-side; restrict all memory operations to the /memories directory",
        "notebooks/18_memory_tool.ipynb",
        "platform.claude.com/docs/en/agents-and-tools/tool-use/memory-tool",
    ),
    (
        "a memory store caps a memory at 100 kB (102,400 bytes)",
        "notebooks/18_memory_tool.ipynb",
        "memories.create",
    ),
    (
        "memory stores: workspace-scoped, immutable versions, 100KB per memory",
        "notebooks/18_memory_tool.ipynb",
        "platform.claude.com/docs/en/managed-agents/memory",
    ),
    (
        "the memory endpoints' beta header",
        "notebooks/18_memory_tool.ipynb",
        "anthropic/resources/beta/memory_stores/",
    ),
    ("a memory store caps a memory at 102,400 bytes", "compaction/agent/memory.py", "memories.create"),
    (
        "memory paths: restrict operations to /memories",
        "compaction/agent/memory_paths.py",
        "tool-use/memory-tool",
    ),
    (
        "memory store path rules (20 segments, 1,024 bytes, NFC)",
        "compaction/agent/memory_paths.py",
        "memories.py",
    ),
    (
        "a memory-using model checks its memory directory before starting tasks",
        "compaction/offline/scripted/memory.py",
        "tool-use/memory-tool",
    ),
    (
        "a memory-using model checks its memory directory before starting tasks",
        "compaction/evaluate/notes.py",
        "tool-use/memory-tool",
    ),
    (
        "where a mid-conversation system message may stand; clear_at and what a turn-scoped one costs",
        "compaction/offline/server/system_messages.py",
        "build-with-claude/mid-conversation-system-messages",
    ),
    (
        "the placement rule of mid-conversation system messages, in validate",
        "compaction/core/messages.py",
        "build-with-claude/mid-conversation-system-messages",
    ),
    (
        "tool_addition / tool_removal, defer_loading, tool_reference_unresolved, tool_name_conflict",
        "compaction/offline/server/tool_changes.py",
        "build-with-claude/mid-conversation-system-messages",
    ),
    (
        "thinking blocks checked against their prefix; drop_block and error; input_transformations",
        "compaction/offline/server/thinking.py",
        "build-with-claude/preserved-thinking",
    ),
    (
        "kept thinking stays valid after an on-demand compaction",
        "compaction/offline/server/thinking.py",
        "build-with-claude/compaction-thinking-blocks",
    ),
    (
        "the streaming event flow",
        "compaction/offline/server/streaming.py",
        "build-with-claude/streaming",
    ),
    (
        "system messages in the summarized turns stop applying after a compaction, chapter 14",
        "notebooks/14_api_context_management.ipynb",
        "build-with-claude/compaction-thinking-blocks",
    ),
    (
        "clear_at and the automatic breakpoint skipping turn-scoped messages, chapter 14",
        "notebooks/14_api_context_management.ipynb",
        "build-with-claude/mid-conversation-system-messages",
    ),
    (
        "add_tools sends tool_addition blocks and keeps the cache, chapter 16",
        "notebooks/16_on_demand_compaction.ipynb",
        "anthropic/lib/tools/_beta_runner.py",
    ),
    (
        "Claude Sonnet 5.5 binds its thinking blocks to the conversation, chapter 16",
        "notebooks/16_on_demand_compaction.ipynb",
        "sonnet-5-5/whats-new-sonnet-5-5",
    ),
    (
        "drop_block, and server-side compaction being no edit, chapter 16",
        "notebooks/16_on_demand_compaction.ipynb",
        "build-with-claude/preserved-thinking",
    ),
    (
        "the offline server's max_input_tokens is its own window, the real Sonnet 5.5 has 1,000,000",
        "README.md",
        "sonnet-5-5/overview",
    ),
]

# (notebook, words the cell holds): why its numbers need no source in that cell. Keyed by words,
# not by cell number, so an exception stays with its cell when cells are added above it.
ALLOWED = {
    ("00_welcome.ipynb", "| order | layer | the seed's number | chapter | fires when |"): (
        "a table of the course's own layers, their chapter numbers and the seed's L-numbers "
        "(chapter 03 cites the seed)"
    ),
    ("00_welcome.ipynb", "looks for Claude Code's sessions in `~/.claude/projects`"): (
        "where the cell looks and the version of the shared session (its README in ../shared/data says so); "
        "chapter 15 cites Claude Code's directory page"
    ),
    ("06_pipeline.ipynb", "The package's default list (`default_layers()`, which chapter 10"): (
        "chapter numbers only"
    ),
    ("06_pipeline.ipynb", "It pays where every layer that rewrites the past pays"): (
        "the course's own run above (8 cache breaks)"
    ),
    ("05_micro.ipynb", "The transcript chapter 07 writes, and the prompt"): "the number is a chapter number",
    ("05_micro.ipynb", "**What it leaves out:** alone, it only slows"): (
        "the chapter's summary of its own measurements, sourced in the cells above"
    ),
    ("06_pipeline.ipynb", "Now the cost: run the agent's first 80 calls"): (
        "the course's own run (80 calls, an 8,000-token window)"
    ),
    (
        "06_pipeline.ipynb",
        "**What you saw:** micro before budget",
    ): "the chapter's summary of its own measurements",
    (
        "10_the_whole_loop.ipynb",
        "**Recent turns** sends far less",
    ): "the course's own measurements of two designs",
    (
        "13_evaluate.ipynb",
        "`masking 10` breaks the cache less often",
    ): "the course's own measurements of masking",
    ("13_evaluate.ipynb", "Up and to the left is better"): (
        "the course's own measurements of the strategies on the 40-turn session"
    ),
    ("14_api_context_management.ipynb", "47 of the 50 calls broke the cache."): (
        "the course's own measurement of the session above"
    ),
    ("16_on_demand_compaction.ipynb", "On this session the course's pipeline cost the least"): (
        "the course's own measurements of three designs"
    ),
    ("15_replay.ipynb", "Any record on the chain that is not a message stops such"): (
        "the course's own walk over the shared Claude Code 2.1.6 session"
    ),
    ("10_the_whole_loop.ipynb", "prompt-cache prices: `payback_turns=30` clears"): (
        "the package's own Micro settings; chapter 13 cites the prices they rest on"
    ),
    ("13_evaluate.ipynb", "A constant pace also leaves out the real session's"): (
        "the course's own measurement of the shared Claude Code 2.1 session's pace"
    ),
    ("16_on_demand_compaction.ipynb", "## The API's view of the cache, row for row"): (
        "chapter numbers; the course's own cache-break count"
    ),
}


def allowed(name: str, markdown: str) -> bool:
    """True when an ALLOWED entry names this notebook and words this cell holds."""
    return any(name == nb and words in markdown for nb, words in ALLOWED)


def notebook_cells(path: Path) -> list[str]:
    """The markdown of each cell of a notebook ("" for a code cell)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) if c["cell_type"] == "markdown" else "" for c in cells]


def sentences(markdown: str) -> list[str]:
    """The sentences of a markdown cell, code blocks left out; list items and paragraphs apart."""
    prose = re.sub(r"```.*?```", "", markdown, flags=re.S)
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n\s*[*-] |\n\n", prose) if s.strip()]


def unsourced(markdown: str) -> list[str]:
    """The sentences of a cell that name an outside system and a number, when the cell names no source."""
    if SOURCE.search(markdown):
        return []
    return [s for s in sentences(markdown) if NAMES.search(s) and NUMBER.search(s)]


@pytest.mark.parametrize(("claim", "where", "source"), FACTS, ids=[f[0][:40] for f in FACTS])
def test_every_listed_claim_names_its_source_where_it_is_made(claim, where, source):
    path = ROOT / where
    text = "\n".join(notebook_cells(path)) if path.suffix == ".ipynb" else path.read_text(encoding="utf-8")
    assert source in text, f"{where} makes the claim {claim!r} but no longer names its source {source!r}"


def test_no_chapter_sentence_names_an_outside_system_with_a_number_and_no_source():
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(notebook_cells(path)):
            if not allowed(path.name, cell):
                found += [f"{path.name} cell {i}: {s[:120]}" for s in unsourced(cell)]
    assert not found, (
        "unsourced outside claims (add a source in the cell, or an ALLOWED entry):\n" + "\n".join(found)
    )


def test_every_allowed_exception_still_exists_and_still_needs_its_exception():
    for (name, words), reason in ALLOWED.items():
        cells = [c for c in notebook_cells(ROOT / "notebooks" / name) if words in c]
        assert reason and len(cells) == 1, (
            f"{name}: {len(cells)} cells hold {words!r}; the exception needs one"
        )
        assert unsourced(cells[0]), f"{name}: the cell holding {words!r} needs no exception now"


def test_the_rule_catches_a_planted_unsourced_sentence_and_accepts_it_once_sourced():
    planted = "Claude Code compacts when the context reaches 92% of the window."
    assert unsourced(planted) == [planted]
    assert unsourced("Prompt caching reads cost 0.1 times the input price.")
    assert not unsourced(planted + " (anthropics/claude-code#12004)")
    assert not unsourced("The cache minimum is 4,096 tokens (`compaction.core.models`).")
    assert not unsourced("Claude Code compacts the conversation.")  # no number: nothing to source
