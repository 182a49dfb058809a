"""File restoration after a summary: the files the agent read most recently, put back within a budget.

A summary names files but drops their contents, and the agent would read them again at once.
``restore_files`` replays the history to learn what the agent last saw of each file (a full
``read_file``, then its own ``write_file`` and ``edit_file`` calls), compares that with the file on
disk now, and restores the newest-read files whose content still matches: at most 5 files of at
most 5,000 tokens each (Claude Code's docs, code.claude.com/docs/en/context-window, "What survives
compaction": it "re-reads up to five, most recently modified first", and "a file over 5,000 tokens
comes back as a path reference"), 50,000 tokens in all (``POST_COMPACT_TOKEN_BUDGET``, from the
seed's reading of Claude Code's source: learn-claude-code s08,
https://github.com/shareAI-lab/learn-claude-code/tree/main/s08_context_compact; no Anthropic page
gives it). Claude Code re-reads the files from disk; this layer restores only what the agent saw, so
a file that changed since (a
``bash`` command, another process) or whose last read is no longer in the list is skipped: the agent
reads it again if it needs it. Deliberately left out: plans, skills and other attachments that a
production agent also restores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compaction.core.guards import whole
from compaction.core.messages import Block, Message, text, text_of, tool_result_blocks, tool_use_blocks
from compaction.core.paths import PathRefused, inside
from compaction.core.placeholders import restored_head
from compaction.core.tokens import count_text

MAX_FILES = 5
MAX_TOKENS_PER_FILE = 5_000
MAX_TOTAL_TOKENS = 50_000
_NUMBERED = re.compile(r"^ *\d+\t(.*)$")


def seen_files(messages: Sequence[Message]) -> list[tuple[str, list[str] | None]]:
    """Each file read in the history, newest read first, with the lines the agent last saw (or None)."""
    state: dict[str, list[str] | None] = {}  # path -> lines as the agent last saw them, None: unknown
    last_read: dict[str, int] = {}  # path -> order of its newest read
    reads = 0
    for i, message in enumerate(messages):
        results = {}
        if i + 1 < len(messages):  # tool_use_id -> its result block
            results = {b.get("tool_use_id"): b for b in tool_result_blocks(messages[i + 1])}
        for use in tool_use_blocks(message):
            args, result = use.get("input") or {}, results.get(use.get("id"))
            path = args.get("path")
            if not isinstance(path, str) or result is None or result.get("is_error"):
                continue
            if use.get("name") == "read_file":
                full = args.get("offset", 1) == 1 and args.get("limit") is None
                state[path] = _unnumber(text_of(result.get("content"))) if full else None
                reads += 1
                last_read[path] = reads
            elif use.get("name") == "write_file" and isinstance(args.get("content"), str):
                state[path] = args["content"].splitlines()
            elif use.get("name") == "edit_file":
                state[path] = _edited(state.get(path), args.get("old_text"), args.get("new_text"))
    newest_first = sorted(last_read, key=last_read.get, reverse=True)
    return [(path, state.get(path)) for path in newest_first]


def restore_files(
    messages: Sequence[Message],
    workspace: Path | str,
    *,
    max_files: int = MAX_FILES,
    max_tokens_per_file: int = MAX_TOKENS_PER_FILE,
    max_total_tokens: int = MAX_TOTAL_TOKENS,
) -> list[Block]:
    """Text blocks holding the newest-read unchanged files, numbered like ``read_file``, within budget."""
    whole("max_files", max_files)
    whole("max_tokens_per_file", max_tokens_per_file)
    root, candidates = Path(workspace).resolve(), {}  # path -> its block, newest read first
    for path, seen in seen_files(messages):
        try:
            now = inside(root, path).read_text(encoding="utf-8").splitlines()
        except (PathRefused, OSError, UnicodeDecodeError):
            continue
        if seen is not None and now == seen:  # unchanged since the agent saw it, and seen whole
            candidates[path] = _restored_block(path, now, max_tokens_per_file)
    sizes = [(path, count_text(block["text"], "tiktoken")) for path, block in candidates.items()]
    chosen = choose_restores(sizes, max_files=max_files, max_total_tokens=max_total_tokens)
    return [candidates[path] for path in chosen]


def choose_restores(
    sizes: Sequence[tuple[str, int]], *, max_files: int = MAX_FILES, max_total_tokens: int = MAX_TOTAL_TOKENS
) -> list[str]:
    """The files to put back from ``(path, tokens)`` newest first: at most max_files, within the total.

    A file that would pass the total is skipped and the next (older, maybe smaller) one is tried.
    """
    chosen, total = [], 0
    for path, tokens in sizes:
        if len(chosen) >= max_files:
            break
        if total + tokens > max_total_tokens:
            continue
        chosen.append(path)
        total += tokens
    return chosen


def _restored_block(path: str, lines: list[str], max_tokens: int) -> Block:
    head = restored_head(path, len(lines))
    body, kept = [], count_text(head, "tiktoken")
    for n, line in enumerate(lines, 1):
        numbered = f"{n:6}\t{line}"
        kept += count_text(numbered, "tiktoken") + 1
        if kept > max_tokens:
            body.append(f"[... lines {n}-{len(lines)} left out; read the file to see them]")
            break
        body.append(numbered)
    return text("\n".join([head, *body]))


def _unnumber(output: str) -> list[str] | None:
    """The file lines behind a ``read_file`` output, or None when it is not one (a placeholder)."""
    lines = []
    for line in output.split("\n"):
        match = _NUMBERED.match(line)
        if match is None:
            return None
        lines.append(match.group(1))
    return lines


def _edited(lines: list[str] | None, old: Any, new: Any) -> list[str] | None:
    if lines is None or not isinstance(old, str) or not isinstance(new, str) or not old:
        return None
    body = "\n".join(lines)
    return body.replace(old, new, 1).splitlines() if body.count(old) == 1 else None
