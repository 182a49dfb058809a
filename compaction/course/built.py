"""What the chapters built, saved here so a later chapter can plug it in (as d2l saves its functions).

A chapter cell whose first line is ``#@save`` holds functions that are copied here verbatim; each is
preceded by the chapter that built it. ``tests/course/test_notebook_sync.py`` keeps the two identical, both
ways. Chapter 06 runs these in the package's pipeline: ``Budget(run=budget)``, ``Snip(run=snip)``,
``Micro(run=micro)``. Deliberately left out: the exercises' answers, and anything the package
does better (the package's own layers are in ``compaction.layers``).
"""

from __future__ import annotations

import json

from compaction.core.messages import blocks, result_chars, text, text_of, tool_inputs, tool_names
from compaction.core.placeholders import (
    CLEARED_HEAD,
    MARKER_OVERHEAD,
    is_cleared,
    is_persisted_marker,
    persisted_marker,
    snip_placeholder,
    snipped_count,
)


# chapter 03
def persist(block, store, preview_chars=2_000):
    """One result's output to disk; a new block whose content is the marker with a preview."""
    output = text_of(block["content"])
    path = store.save(block["tool_use_id"], output)
    return {**block, "content": persisted_marker(store.display(path), len(output), output[:preview_chars])}


# chapter 03
def budget(messages, max_chars, store, preview_chars=2_000):
    """Persist the largest results of the newest message until the rest fits; a new list."""
    last = messages[-1] if messages else {}
    if last.get("role") != "user" or not isinstance(last.get("content"), list):
        return list(messages)
    content = list(last["content"])  # a copy: the caller's message stays as it was
    sizes = {j: result_chars(b) for j, b in enumerate(content) if b.get("type") == "tool_result"}
    total = sum(sizes.values())
    for j in sorted(sizes, key=lambda k: -sizes[k]):  # largest first; equal sizes in order
        if total <= max_chars or sizes[j] <= preview_chars + MARKER_OVERHEAD:
            break
        content[j] = persist(content[j], store, preview_chars)
        total += result_chars(content[j]) - sizes[j]
    return [*messages[:-1], {**last, "content": content}]


# chapter 04
def head_end(messages, keep_head):
    """Where the head ends: at least keep_head messages (and 1), the last of them a user message."""
    head = max(1, keep_head)
    while head < len(messages) and messages[head - 1]["role"] != "user":
        head += 1  # the head ends on a user message
    return head


# chapter 04
def tail_start(messages, head, max_messages):
    """Where the tail starts: head and tail within max_messages, the tail's first an assistant message."""
    tail = max(head, len(messages) - (max_messages - head))
    while tail < len(messages) and messages[tail]["role"] != "assistant":
        tail += 1  # the tail starts on an assistant message
    return tail


# chapter 04
def snip(messages, max_messages=50, keep_head=3):
    """Keep a head and a tail, one placeholder for the middle; earlier placeholders fold into it."""
    if len(messages) <= max_messages:
        return list(messages)
    head = head_end(messages, keep_head)
    tail = tail_start(messages, head, max_messages)
    if tail <= head:
        return list(messages)
    last = messages[head - 1]
    earlier = [b for b in blocks(last) if b["type"] == "text" and snipped_count(b["text"]) is not None]
    rest = [b for b in blocks(last) if b not in earlier]
    note = text(snip_placeholder(tail - head + sum(snipped_count(b["text"]) for b in earlier)))
    return [*messages[: head - 1], {**last, "content": [*rest, note]}, *messages[tail:]]


# chapter 05
def note_for(name, tool_input):
    """One line that replaces an old result: which call it was, and that it can be run again."""
    key = {"read_file": "path", "bash": "command", "glob": "pattern"}.get(name)
    what = tool_input[key] if key in tool_input else json.dumps(tool_input, sort_keys=True)
    what = " ".join(str(what).split())[:200]  # one line, never too long
    return f"{CLEARED_HEAD}{name} {what}. Call it again if you need its output.]"


# chapter 05
def result_spots(messages):
    """(message index, block index) of every tool result, oldest first."""
    return [(i, j) for i, m in enumerate(messages) if m["role"] == "user" and isinstance(m["content"], list)
            for j, b in enumerate(m["content"]) if b.get("type") == "tool_result"]


# chapter 05
def stays(block, min_chars):
    """True for a result micro leaves alone: short, already a note, or a persisted-output marker."""
    content = block["content"]
    return result_chars(block) < min_chars or is_cleared(content) or is_persisted_marker(content)


# chapter 05
def micro(messages, keep_recent=3, min_chars=120, note=note_for):
    """All but the newest keep_recent tool results become a one-line note; a new list."""
    names, inputs = tool_names(messages), tool_inputs(messages)  # tool_use_id -> name / input
    spots, out = result_spots(messages), list(messages)
    for i, j in spots[: max(0, len(spots) - keep_recent)]:
        block = messages[i]["content"][j]
        tool_use_id = block["tool_use_id"]
        text = None if stays(block, min_chars) else note(names.get(tool_use_id), inputs.get(tool_use_id, {}))
        if text is None or len(text) >= result_chars(block):
            continue  # it must stay, or the note would not be smaller
        if out[i] is messages[i]:
            out[i] = {**messages[i], "content": list(messages[i]["content"])}
        out[i]["content"][j] = {**block, "content": text}
    return out
