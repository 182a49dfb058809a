"""Server-side compaction, ``compact_20260112``: a summary block the client sends back.

What the documentation says (https://platform.claude.com/docs/en/build-with-claude/compaction-threshold):
when the input exceeds the trigger (150,000 tokens by default), the API summarizes the
conversation, returns the summary in a ``compaction`` block at the start of its answer, and goes
on with the compacted context; with ``pause_after_compaction`` it stops after the block with
``stop_reason`` "compaction" (SDK ``BetaStopReason``); on later requests "the API automatically
drops all message blocks prior to the compaction block". ``usage.iterations`` reports the
compaction and the message iteration apart, and the compaction's tokens are not in the top-level
``usage`` (SDK ``BetaUsage.iterations``). A block whose content is null is a no-op (SDK
``BetaCompactionBlock``). The SDK says a ``compaction`` entry measures the summarizing request
itself, whose counts "can be much smaller than that closed context", and gives it cache fields
(``BetaCompactionIterationUsage``); how the real API builds and caches that request is not
documented. The offline server's own choice: the request is the conversation plus the summary
prompt (``summary_request``), reported as uncached input (cache read and write 0), so its entry
is larger than the context it closes and its cost an upper bound.

The offline summary comes from ``compaction.offline.scripted.summarizer`` (extractive, the course's nine
sections), asked with the course's own summary prompt. ``instructions`` "completely replace the default
prompt" (the compaction-threshold page, parameters table): the summary request then carries them alone,
and the extractive summarizer follows them as it does for on-demand compaction (``focus``: the paths and
`backquoted` terms they name). An earlier summary goes into the summary request as the user's text, where
the summarizer reads a previous summary (``summary_request``; one request for threshold and on-demand
compaction). With ``inline-tools-2026-09-15`` the block carries the compacted range's ``tool_changes``
(``tool_changes``). Deliberately left out: ``encrypted_content`` and ``signature`` (threshold blocks come back
without one, as a live probe saw: tdavison784/context-runtime,
``docs/probes/2026-09-anthropic-descriptor-probe.md``).
"""

from __future__ import annotations

from compaction.core.messages import blocks, text
from compaction.core.summary_prompt import SUMMARY_PROMPT
from compaction.offline.scripted.focus import focused
from compaction.offline.scripted.summarizer import summarize

SUMMARY_RE_OPEN, SUMMARY_RE_CLOSE = "<summary>", "</summary>"


def from_last_compaction(messages: list) -> list:
    """The request as the model sees it: from the last compaction block with content on."""
    for i in range(len(messages) - 1, -1, -1):
        content = blocks(messages[i])
        for j in range(len(content) - 1, -1, -1):
            if content[j].get("type") == "compaction" and isinstance(content[j].get("content"), str):
                return [{**messages[i], "content": content[j:]}] + messages[i + 1 :]
    return messages


def for_the_model(messages: list) -> list:
    """The messages with each compaction block read as the text of its summary (null ones dropped)."""
    shown = []
    for message in messages:
        content = blocks(message)
        if not any(b.get("type") == "compaction" for b in content):
            shown.append(message)
            continue
        kept = [_as_text(b) for b in content if b.get("type") != "compaction" or b.get("content")]
        if kept:
            shown.append({**message, "content": kept})
    return shown


def _as_text(block: dict) -> dict:
    return text(block["content"]) if block.get("type") == "compaction" else block


def summary_request(messages: list, instructions: str | None) -> list:
    """What the summarizer reads: the conversation from the last compaction on, each earlier summary
    carried over as the user's text (where a summary request shows a previous summary), then the summary
    prompt, or the instructions that replace it, as a last user block. One request for both kinds of
    compaction: at a threshold and on demand (``on_demand``)."""
    shown: list[dict] = []
    for message in from_last_compaction(messages):
        kept = []
        for block in blocks(message):
            if block.get("type") != "compaction":
                kept.append(block)
            elif block.get("content"):
                shown.append({"role": "user", "content": [text(block["content"])]})
        if kept:
            shown.append({**message, "content": kept})
    prompt = text(instructions or SUMMARY_PROMPT)
    if shown and shown[-1].get("role") == "user":
        return shown[:-1] + [{**shown[-1], "content": blocks(shown[-1]) + [prompt]}]
    return shown + [{"role": "user", "content": [prompt]}]


def compaction_block(request: list, instructions: str | None = None) -> dict:
    """The ``compaction`` block for a summary request: the offline summary, without its analysis."""
    answer = summarize(request)
    start = answer.find(SUMMARY_RE_OPEN)
    end = answer.rfind(SUMMARY_RE_CLOSE)
    body = answer[start + len(SUMMARY_RE_OPEN) : end].strip() if start >= 0 and end > start else answer
    return {"type": "compaction", "content": focused(body, instructions) if instructions else body}
