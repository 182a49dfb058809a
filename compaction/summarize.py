"""L4 compact_history: the transcript first, then a structured summary replaces the history.

``compact_history`` writes the whole list to a JSONL transcript before anything else (no
transcript, no summary), asks the model for a summary with a prompt that forbids tool calls at its
start and again at its end, asks for an ``<analysis>`` first and the summary inside ``<summary>``
tags with the nine sections a production summary fills, strips the analysis, and returns a new
list of ONE user message: a note that the session continues from a summary, where the transcript
is, the summary, then the files the agent read most recently (``compaction.restore``). Any failure
raises ``SummaryFailed`` with a reason and leaves the input untouched, so a caller can count
failures (the pipeline's circuit breaker). Deliberately left out: the circuit breaker itself (in
``compaction.pipeline``), summarizing in several parts, and streaming the summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from compaction.messages import Message, has_tool_use, is_tool_result_message, text, text_of, validate
from compaction.restore import MAX_TOKENS_PER_FILE, MAX_TOTAL_TOKENS, restore_files
from compaction.summary_request import fit_request
from compaction.tokens import estimate_tokens, message_tokens
from compaction.transcript import TranscriptError, write_transcript

MAX_OUTPUT_TOKENS_FOR_SUMMARY = 20_000  # Claude Code's cap on a summary's length
MAX_PTL_RETRIES = 3  # times the request is cut again after the API still says "prompt is too long"

NO_TOOLS_HEAD = "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools."

SECTIONS = (
    "Primary Request and Intent",
    "Key Technical Concepts",
    "Files and Code Sections",
    "Errors and Fixes",
    "Problem Solving",
    "All User Messages",
    "Pending Tasks",
    "Current Work",
    "Optional Next Step",
)

_SECTION_LINES = "\n".join(f"{i}. {name}:" for i, name in enumerate(SECTIONS, 1))

SUMMARY_PROMPT = f"""{NO_TOOLS_HEAD}

The conversation above is about to be removed from your context. Write the summary that will
replace it, so that you can carry on the work without the original messages.

First think inside <analysis> tags: go through the conversation in order and note what the user
asked for, what you did, which files you read or changed, which errors came up and how they were
fixed, and what was happening at the very end. Then write the summary inside <summary> tags, with
exactly these numbered sections:

{_SECTION_LINES}

Quote the user's own words in section 6, name files with their paths, and keep error messages
verbatim but short. In section 9 give only a step that follows directly from the current work.

REMINDER: answer with plain text only. Any tool call will be rejected and waste this turn."""

_ANALYSIS = re.compile(r"<analysis>.*?(</analysis>|$)", re.DOTALL)
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)
_TOO_LONG = re.compile(r"(\d+) tokens > (\d+) maximum")
_TRANSCRIPT_NAMED = re.compile(r"messages\) is in the transcript (\S+);")  # see continuation_text


class SummaryFailed(RuntimeError):
    """The summary could not be made; ``reason`` says why, ``transcript`` is the saved history."""

    def __init__(self, reason: str, transcript: Path | None = None):
        self.reason = reason
        self.transcript = transcript
        where = f" (the full history is in {transcript})" if transcript else ""
        super().__init__(f"summary failed: {reason}{where}")


def strip_analysis(answer: str) -> str:
    """The answer without its ``<analysis>...</analysis>`` part, stripped."""
    return _ANALYSIS.sub("", answer).strip()


def extract_summary(answer: str) -> str:
    """The text inside ``<summary>`` tags, analysis removed; SummaryFailed when there is none."""
    found = _SUMMARY.search(strip_analysis(answer))
    if found is None or not found.group(1).strip():
        raise SummaryFailed("the answer has no non-empty <summary>...</summary>")
    return found.group(1).strip()


def summarize_messages(
    messages: Sequence[Message],
    *,
    client: Any,
    model: str,
    max_tokens: int,
    context_window: int | None = None,
    focus: str | None = None,
    system: str | None = None,
    tools: list[dict] | None = None,
    timeout: float | None = None,
) -> tuple[str, int]:
    """Ask the model for a summary of ``messages``: (summary text, messages left out of the request)."""
    from compaction.reactive import is_prompt_too_long

    extra = estimate_tokens([], "tiktoken", system=system, tools=tools)  # what the request carries besides
    budget = None if context_window is None else context_window - max_tokens
    for _ in range(MAX_PTL_RETRIES + 1):
        try:
            request, dropped = fit_request(messages, budget, focus=focus, extra_tokens=extra)
        except ValueError as exc:
            raise SummaryFailed(str(exc)) from exc
        options = {"system": system, "tools": tools, "timeout": timeout}
        try:
            response = client.messages.create(
                model=model,
                max_tokens=max_tokens,
                messages=request,
                **{k: v for k, v in options.items() if v is not None},
            )
        except Exception as exc:  # noqa: BLE001 - any failure of the call is a failed summary
            too_long = _TOO_LONG.search(str(exc)) if is_prompt_too_long(exc) else None
            if too_long is None:
                raise SummaryFailed(f"the summary call failed: {type(exc).__name__}: {exc}") from exc
            sent, maximum = map(int, too_long.groups())  # the server's count and its window
            estimate = sum(message_tokens(m, "tiktoken") for m in request) + extra
            budget = estimate - (sent - maximum) - max(200, estimate // 20)
            if budget <= 0:
                raise SummaryFailed(f"the summary request is still too long ({exc})") from exc
            continue
        return summary_from_blocks(_blocks(response)), dropped
    raise SummaryFailed(f"the summary request was still too long after {MAX_PTL_RETRIES} cuts")


def summary_from_blocks(content: list[dict]) -> str:
    """The summary in an answer's content blocks; SummaryFailed for a tool call, no text, no <summary>."""
    if any(block.get("type") == "tool_use" for block in content):
        raise SummaryFailed("the summary answer called a tool; a summary must be text only")
    answer = "".join(block.get("text", "") for block in content if block.get("type") == "text")
    if not answer.strip():
        raise SummaryFailed("the summary answer is empty")
    return extract_summary(answer)


def _blocks(response: Any) -> list[dict]:
    """A response's content as plain dicts (SDK objects or dicts alike)."""
    content = getattr(response, "content", None) or []
    return [b if isinstance(b, dict) else {"type": b.type, "text": getattr(b, "text", "")} for b in content]


def continuation_text(
    summary: str, transcript: str, *, messages: int, dropped: int = 0, manual: bool = False
) -> str:
    """The opening of the new list: the session continues from a summary; where the rest is."""
    how = "at the agent's request" if manual else "because the context was nearly full"
    lines = [
        f"[Compacted {how}] This session continues from a summary of the earlier conversation.",
        f"The full history ({messages} messages) is in the transcript {transcript}; read it if a "
        "detail is missing from the summary.",
    ]
    if dropped:
        lines.append(
            f"{dropped} earlier messages were only in the transcript: they did not fit in the "
            "summary request, so this summary does not cover them."
        )
    return "\n".join([*lines, "", summary])


def transcript_of(message: Message) -> Path | None:
    """The transcript a continuation message (see ``continuation_text``) points to, if it is one."""
    found = _TRANSCRIPT_NAMED.search(text_of(message.get("content")) if isinstance(message, dict) else "")
    return Path(found.group(1)) if found else None


def compact_history(
    messages: Sequence[Message],
    *,
    client: Any,
    transcript_dir: Path | str,
    focus: str | None = None,
    manual: bool = False,
    **options: Any,
) -> list[Message]:
    """Transcript first, then a summary: a new one-message list (summary and restored files).

    ``options`` go to ``summary_message``: model, max_tokens, context_window, workspace, restore,
    system, tools, timeout.
    """
    validate(list(messages))
    try:
        transcript = write_transcript(messages, transcript_dir)
    except TranscriptError as exc:
        raise SummaryFailed(f"the transcript could not be written, so nothing was summarized: {exc}") from exc
    return [
        summary_message(messages, transcript=transcript, client=client, focus=focus, manual=manual, **options)
    ]


def summary_message(
    messages: Sequence[Message],
    *,
    transcript: Path,
    client: Any,
    focus: str | None = None,
    model: str | None = None,
    max_tokens: int = MAX_OUTPUT_TOKENS_FOR_SUMMARY,
    context_window: int | None = None,
    workspace: Path | str | None = None,
    restore: bool = True,
    manual: bool = False,
    system: str | None = None,
    tools: list[dict] | None = None,
    timeout: float | None = None,
) -> Message:
    """The user message that replaces ``messages`` (already saved in ``transcript``): summary + files."""
    if context_window is not None:  # the answer must fit beside the request: a tenth of the window
        max_tokens = min(max_tokens, max(256, context_window // 10))
    if tools is None and any(has_tool_use(m) or is_tool_result_message(m) for m in messages):
        from compaction.tools import TOOL_DEFINITIONS  # the API wants tools defined for tool blocks

        tools = TOOL_DEFINITIONS
    try:
        summary, dropped = summarize_messages(
            messages,
            client=client,
            model=model or _default_model(),
            max_tokens=max_tokens,
            context_window=context_window,
            focus=focus,
            system=system,
            tools=tools,
            timeout=timeout,
        )
    except SummaryFailed as exc:
        raise SummaryFailed(exc.reason, transcript) from exc.__cause__
    shown = _shown_path(transcript, workspace)
    opening = continuation_text(summary, shown, messages=len(messages), dropped=dropped, manual=manual)
    content = [text(opening)]
    if restore and workspace is not None:
        budget = MAX_TOTAL_TOKENS if context_window is None else min(MAX_TOTAL_TOKENS, context_window // 10)
        per_file = min(MAX_TOKENS_PER_FILE, budget)
        content += restore_files(messages, workspace, max_tokens_per_file=per_file, max_total_tokens=budget)
    return {"role": "user", "content": content}


def _shown_path(transcript: Path, workspace: Path | str | None) -> str:
    """The transcript's path relative to the workspace when it lies inside it."""
    if workspace is not None:
        try:
            return transcript.resolve().relative_to(Path(workspace).resolve()).as_posix()
        except ValueError:
            pass
    return str(transcript)


def _default_model() -> str:
    try:
        from compaction.backend import DEFAULT_MODEL
    except ImportError:
        return "claude-sonnet-4-5"
    return DEFAULT_MODEL
