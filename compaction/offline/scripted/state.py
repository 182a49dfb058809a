"""What the scripted agent reads from a request: its step marker, visible file text, last results.

The offline server is stateless, so the agent's progress lives in the conversation itself:
every scripted turn ends its text with a marker, ``[step N]`` when it does step N, or
``[step N re-read]`` when it first re-reads files that step needs. A summary carries the last
marker in its Current Work section. Tool results are never searched for markers, so a file
or a grep that happens to contain ``[step 3]`` cannot move the agent.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from compaction.core.messages import blocks, text_of, tool_use_blocks
from compaction.core.placeholders import restored_path

MARKER_RE = re.compile(r"\[step (\d+)( re-read)?\]")
NUMBERED_LINE_RE = re.compile(r"^ *\d+\t", re.MULTILINE)  # the line numbers read_file puts in front
TEST_SUMMARY_RE = re.compile(r"^(\d+) passed, (\d+) failed$", re.MULTILINE)


def marker(step: int, reread: bool = False) -> str:
    """The marker text for a step: ``[step 7]`` or ``[step 7 re-read]``."""
    return f"[step {step}{' re-read' if reread else ''}]"


def own_texts(messages: list) -> Iterator[str]:
    """Every text block of the conversation that is not inside a tool result, in order."""
    for message in messages:
        for block in blocks(message):
            if block.get("type") == "text":
                yield str(block.get("text", ""))


def last_marker(messages: list) -> tuple[int, bool] | None:
    """The last marker in the conversation as (step, is_reread), or None before the first step."""
    for message in reversed(messages):  # newest first: the answer is almost always the last turn
        for text in reversed(list(own_texts([message]))):
            found = MARKER_RE.findall(text)
            if found:
                return int(found[-1][0]), bool(found[-1][1])
    return None


def tool_use_ids(messages: list) -> set[str]:
    """The ids of every tool_use block in the conversation."""
    return {b.get("id") for message in messages for b in tool_use_blocks(message)}


def results_by_id(messages: list) -> dict[str, dict]:
    """Every tool_result block of the conversation by its tool_use_id."""
    # tool_use_id -> tool_result block
    return {b["tool_use_id"]: b for m in messages for b in blocks(m) if b.get("type") == "tool_result"}


def _result_in(message: dict | None, use_id: str) -> dict | None:
    content = message.get("content") if message else None
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("tool_use_id") == use_id:
                return block
    return None


def visible_texts(messages: list, path: str) -> list[str]:
    """The pieces of ``path``'s content the conversation still shows: reads, edits, writes, restores."""
    pieces = []
    for i, message in enumerate(messages):
        for block in blocks(message):
            kind = block.get("type")
            if kind == "text" and restored_path(block["text"]) == path:
                pieces.append(NUMBERED_LINE_RE.sub("", block["text"]))
            if kind != "tool_use" or not isinstance(block.get("input"), dict):
                continue
            args = block["input"]
            if args.get("path") != path:
                continue
            if block.get("name") == "read_file":
                result = _result_in(messages[i + 1] if i + 1 < len(messages) else None, block.get("id"))
                if result is not None and not result.get("is_error"):
                    pieces.append(NUMBERED_LINE_RE.sub("", text_of(result.get("content"))))
            elif block.get("name") == "edit_file":
                pieces.append(str(args.get("new_text", "")))
            elif block.get("name") == "write_file":
                pieces.append(str(args.get("content", "")))
    return pieces


def is_visible(messages: list, path: str, needed: str) -> bool:
    """True when ``needed`` (text of ``path``) appears whole in what the conversation shows."""
    needed = needed.rstrip("\n")  # a read shows the last line without its newline
    return any(needed in piece for piece in visible_texts(messages, path))


def last_results(messages: list) -> list[dict]:
    """The tool_result blocks of the last message (empty when it holds none)."""
    if not messages:
        return []
    return [b for b in blocks(messages[-1]) if b.get("type") == "tool_result"]


def run_outcome(text: str) -> tuple[int, int] | None:
    """The (passed, failed) of a run_tests.py output, from its last summary line."""
    found = TEST_SUMMARY_RE.findall(text or "")
    return (int(found[-1][0]), int(found[-1][1])) if found else None


def user_says(messages: list, words: str) -> bool:
    """True when the text the model sees (the user's words, a summary, a compaction block) has ``words``."""
    words = " ".join(words.split()).lower()
    return any(
        words in " ".join(str(b.get("text") or b.get("content") or "").split()).lower()
        for m in messages
        for b in blocks(m)
        if b.get("type") == "text" or (b.get("type") == "compaction" and isinstance(b.get("content"), str))
    )


def last_user_text(messages: list) -> str:
    """The user's own words in the last message ('' when it only holds tool results)."""
    if not messages or messages[-1].get("role") != "user":
        return ""
    return "\n\n".join(str(b.get("text", "")) for b in blocks(messages[-1]) if b.get("type") == "text")
