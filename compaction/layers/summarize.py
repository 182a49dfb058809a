"""compact_history: the transcript first, then a structured summary replaces the history.

``compact_history`` writes the whole list to a JSONL transcript before anything else (no
transcript, no summary), asks the model for a summary with a prompt that forbids tool calls at its
start and again at its end, asks for an ``<analysis>`` first and the summary inside ``<summary>``
tags with the nine sections a production summary fills, strips the analysis, and returns a new
list of ONE user message: a note that the session continues from a summary, where the transcript
is, the summary, the state ledger when asked for (``compaction.layers.ledger``: files, commands, errors and
instructions computed without a model), then the files the agent read most recently
(``compaction.layers.restore``). Any failure
raises ``SummaryFailed`` with a reason and leaves the input untouched, so a caller can count
failures (the pipeline's circuit breaker). A history too big for one summary request is summarized
in parts, each request within the window (``summarize_messages``). Deliberately left out: the
circuit breaker itself (in ``compaction.pipeline``) and streaming the summary.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from compaction.core.api_errors import too_long_counts
from compaction.core.failures import SummaryFailed
from compaction.core.guards import whole
from compaction.core.messages import (
    Message,
    from_response,
    has_tool_use,
    is_tool_result_message,
    text,
    tool_names,
    tool_use_blocks,
    validate,
)
from compaction.core.models import DEFAULT_MODEL
from compaction.core.placeholders import continuation_text
from compaction.core.summary_prompt import NO_TOOLS_HEAD, SECTIONS, SUMMARY_PROMPT  # noqa: F401 - the prompt
from compaction.core.tokens import estimate_tokens, message_tokens
from compaction.core.transcript import TranscriptError, write_transcript
from compaction.layers.instructions import pin_instructions
from compaction.layers.layer import QUIET, Layer, Shared, takes
from compaction.layers.ledger import ledger_text
from compaction.layers.restore import MAX_TOKENS_PER_FILE, MAX_TOTAL_TOKENS, restore_files
from compaction.layers.summary_request import fit_request, next_part, with_summary_prompt
from compaction.layers.triggers import MAX_FAILURES

MAX_OUTPUT_TOKENS_FOR_SUMMARY = 20_000  # Claude Code's cap, per the seed (layers/triggers.py)
MIN_SUMMARY_TOKENS = 800  # the floor of a summary's answer in a small window (``summary_tokens``)
MIN_SUMMARY_SHARE = 5  # ... but at most a fifth of the window: the request needs the rest
MAX_PTL_RETRIES = 3  # times the request is cut again after the API still says "prompt is too long"

_ANALYSIS = re.compile(r"<analysis>.*?(</analysis>|$)", re.DOTALL)
_SUMMARY = re.compile(r"<summary>(.*?)</summary>", re.DOTALL)


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
    cached: int = 0,
) -> tuple[str, int]:
    """Ask the model for a summary of ``messages``: (summary text, parts it was written in).

    A history that does not fit one request is summarized in parts (``next_part``): the longest run
    of whole groups that fits, then the summary so far plus the next run, until the newest message.
    ``cached``: leading messages the agent's last request sent, kept whole first (``fit_request``).
    When the API still says "prompt is too long", every part is planned again within its count.
    """
    extra = estimate_tokens([], "tiktoken", system=system, tools=tools)  # what the request carries besides
    budget = None if context_window is None else context_window - max_tokens
    if budget is not None and budget <= 0:
        raise SummaryFailed(
            f"a window of {context_window:,} tokens leaves no room for a summary request beside the "
            f"{max_tokens:,} tokens kept for the summary's answer"
        )
    options = {"system": system, "tools": tools, "timeout": timeout}
    ask = _Asker(client, model, max_tokens, {k: v for k, v in options.items() if v is not None}, extra)
    for _ in range(MAX_PTL_RETRIES + 1):
        try:
            if budget is None:
                return ask(with_summary_prompt(messages, focus)), 1
            if cached:
                request, left = fit_request(messages, budget, focus=focus, extra_tokens=extra, cached=cached)
                if not left:
                    return ask(request), 1
            return _in_parts(messages, budget - extra, focus, ask)
        except ValueError as exc:  # not even one part fits
            raise SummaryFailed(str(exc)) from exc
        except _TooLong as exc:
            budget = exc.budget
    raise SummaryFailed(f"the summary request was still too long after {MAX_PTL_RETRIES} cuts")


def _in_parts(messages: Sequence[Message], budget: int, focus: str | None, ask: _Asker) -> tuple[str, int]:
    """The summary of ``messages`` asked for in as few parts as ``budget`` allows; (summary, parts)."""
    start, so_far, parts = 0, None, 0
    while start < len(messages):
        request, start = next_part(messages, start, budget, so_far=so_far, focus=focus)
        so_far, parts = ask(request), parts + 1
    return str(so_far), parts


class _TooLong(Exception):
    """The API said a request was too long; ``budget`` is what the next plan may use."""

    def __init__(self, budget: int):
        super().__init__(budget)
        self.budget = budget


class _Asker:
    """One summary call: the request sent, the summary of its answer; a too-long refusal as ``_TooLong``."""

    def __init__(self, client: Any, model: str, max_tokens: int, options: dict[str, Any], extra: int):
        self.client, self.model, self.max_tokens = client, model, max_tokens
        self.options, self.extra = options, extra

    def __call__(self, request: list[Message]) -> str:
        """The summary the model answers to ``request``."""
        try:
            response = self.client.messages.create(
                model=self.model, max_tokens=self.max_tokens, messages=request, **self.options
            )
        except Exception as exc:  # noqa: BLE001 - any failure of the call is a failed summary
            too_long = too_long_counts(exc)
            if too_long is None:
                raise SummaryFailed(f"the summary call failed: {type(exc).__name__}: {exc}") from exc
            sent, maximum = too_long  # the server's count and its window
            estimate = sum(message_tokens(m, "tiktoken") for m in request) + self.extra
            budget = estimate - (sent - maximum) - max(200, estimate // 20)
            if budget <= 0:
                raise SummaryFailed(f"the summary request is still too long ({exc})") from exc
            raise _TooLong(budget) from exc
        return summary_from_blocks(from_response(response)["content"])


def summary_from_blocks(content: list[dict]) -> str:
    """The summary in an answer's content blocks; SummaryFailed for a tool call, no text, no <summary>."""
    if any(block.get("type") == "tool_use" for block in content):
        raise SummaryFailed("the summary answer called a tool; a summary must be text only")
    answer = "".join(block.get("text", "") for block in content if block.get("type") == "text")
    if not answer.strip():
        raise SummaryFailed("the summary answer is empty")
    return extract_summary(answer)


def tools_for(messages: Sequence[Message]) -> list[dict]:
    """A definition for each tool the list calls: the API wants tools defined for tool blocks."""
    names = sorted(set(tool_names(messages).values()))
    schema = {"type": "object"}
    return [{"name": n, "description": f"the agent's {n} tool", "input_schema": dict(schema)} for n in names]


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
    system, tools, timeout, ledger_tokens.
    """
    validate(list(messages))
    try:
        transcript = write_transcript(messages, transcript_dir)
    except TranscriptError as exc:
        raise SummaryFailed(f"the transcript could not be written, so nothing was summarized: {exc}") from exc
    return [
        summary_message(messages, transcript=transcript, client=client, focus=focus, manual=manual, **options)
    ]


def summary_tokens(context_window: int) -> int:
    """The most a summary's answer may take in ``context_window``: a tenth, ``MIN_SUMMARY_TOKENS`` at least.

    A tenth is the 20,000 of 200,000 (``MAX_OUTPUT_TOKENS_FOR_SUMMARY``). In a small window a tenth is too
    little to carry on from: nine section headings, the files changed (listed at any budget) and the
    request's share leave a 418-token summary (window 4,180) room for a handful of findings. Chosen
    on the real-session table (``python -m compaction evaluate --quick``, issue 40): floors of 256
    (the old one), 512, 640, 768 and 800 tokens kept 121, 122, 122, 124, 124 of 139 probes (the
    4,180-token i_got_id session lost 8, 7, 7, 5, 5), tokens removed 82-81%, cost 88% of none
    throughout; 900 and 1,024 kept 124 too but took offline 150's removed share from 86.7% to 82.9%
    and 82.6%, under its 85% goal (its 8,000-token window's tenth is 800). So 800, a tenth of the
    smallest window the course's own sessions run in. The floor never takes more than a fifth of the
    window (``MIN_SUMMARY_SHARE``): the request must fit beside the answer, and the summary beside
    the ledger under the threshold; at 4,000 tokens, the smallest window ``evaluate`` replays a real
    session in, a fifth is the floor itself, so the cap changes nothing on that table and only
    shrinks the floor in smaller windows (a chapter's 3,000: 600). Never less than 256 tokens.
    """
    floor = max(256, min(MIN_SUMMARY_TOKENS, context_window // MIN_SUMMARY_SHARE))
    return max(floor, context_window // 10)


def summary_message(
    messages: Sequence[Message],
    *,
    transcript: Path,
    client: Any,
    focus: str | None = None,
    manual: bool = False,
    context_window: int | None = None,
    workspace: Path | str | None = None,
    restore: bool = True,
    ledger_tokens: int = 0,
    history: Sequence[Message] | None = None,
    **request: Any,
) -> Message:
    """The user message that replaces ``messages`` (already saved in ``transcript``): summary + files.

    With ``ledger_tokens`` > 0 the state ledger of ``messages`` (``compaction.layers.ledger``), at most that
    many tokens, follows the summary, whoever wrote it; it reads ``history`` when given (the same
    messages with cleared results put back, ``ledger.ResultMemory``), else ``messages``. ``request``:
    the summary request's own options (``summarize_messages``): ``model`` (the package's default
    model), ``max_tokens`` (20,000, at most ``summary_tokens(context_window)``), ``system``, ``tools`` (one
    definition per tool the list calls), ``timeout``, and ``cached``, the leading messages the
    agent's last request sent, kept whole when the request must be cut.
    """
    max_tokens = request.pop("max_tokens", MAX_OUTPUT_TOKENS_FOR_SUMMARY)
    if context_window is not None:  # the answer must fit beside the request
        max_tokens = min(max_tokens, summary_tokens(context_window))
    if request.get("tools") is None and any(has_tool_use(m) or is_tool_result_message(m) for m in messages):
        request["tools"] = tools_for(messages)
    request["model"] = request.get("model") or DEFAULT_MODEL
    try:
        summary, parts = summarize_messages(
            messages,
            client=client,
            max_tokens=max_tokens,
            context_window=context_window,
            focus=focus,
            **request,
        )
    except SummaryFailed as exc:
        raise SummaryFailed(exc.reason, transcript) from exc.__cause__
    shown = _shown_path(transcript, workspace)
    opening = continuation_text(summary, shown, messages=len(messages), parts=parts, manual=manual)
    content = [text(opening)]
    if ledger_tokens:
        source = messages if history is None else history
        content.append(text(ledger_text(source, max_tokens=ledger_tokens, shown=summary)))
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


LEDGER_SHARE = 0.15  # of the window, for the state ledger every summary carries (chapter 13 measures it)
MAX_LEDGER_TOKENS = 10_000


def default_ledger_tokens(context_window: int) -> int:
    """The ledger's budget: 15% of the window (1,200 of 8,000), at most 10,000 tokens."""
    return min(MAX_LEDGER_TOKENS, int(context_window * LEDGER_SHARE))


def ledger_budget(ledger_tokens: int | None, shared: Shared) -> int:
    """A layer's ``ledger_tokens`` for this pipeline: None is the default share of its window, 0 off."""
    return default_ledger_tokens(shared.context_window) if ledger_tokens is None else ledger_tokens


def ledger_options(
    ledger_tokens: int | None, run: Callable[..., Any], messages: list[Message], shared: Shared
) -> dict[str, Any]:
    """The ledger's options for ``run``: its budget, and the history with cleared results put back.

    Empty when the ledger is off or ``run`` (a learner's summary function) takes no ``ledger_tokens``.
    The history comes from the pipeline's ``results`` (a ``ledger.ResultMemory``).
    """
    budget = ledger_budget(ledger_tokens, shared)
    if not budget or not takes(run, "ledger_tokens"):
        return {}
    options: dict[str, Any] = {"ledger_tokens": budget}
    if takes(run, "history"):
        shared.results.see(messages)
        options["history"] = shared.results.restore(messages)
    return options


def shared_options(shared: Shared) -> dict[str, Any]:
    """What a summary gets from the pipeline besides the list: the window, and the workspace if any."""
    options: dict[str, Any] = {"context_window": shared.context_window}
    if shared.workspace is not None:
        options["workspace"] = shared.workspace
    return options


def remember_results(ledger_tokens: int | None, messages: Sequence[Message], shared: Shared) -> None:
    """With a ledger, remember each new tool result whole before micro can clear it."""
    if ledger_budget(ledger_tokens, shared):
        shared.results.see(messages)


def needs_model(shared: Shared, what: str = "a summary") -> str | None:
    """Why ``what`` cannot run in this pipeline (no client or transcript folder), or None."""
    missing = " and ".join(n for n in ("client", "transcript_dir") if getattr(shared, n) is None)
    return f"{what} needs a Compactor with a {missing}" if missing else None


@dataclass(frozen=True, repr=False)
class Summary(Layer):
    """Over the pipeline's threshold, the transcript first, then a summary replaces the history.

    ``max_failures`` failed summaries in a row open its circuit breaker (kept by the pipeline).
    ``ledger_tokens`` bounds the state ledger appended to every summary (``compaction.layers.ledger``):
    None is 15% of the window, at most 10,000 tokens; 0 turns it off. ``options`` go to ``run`` as
    they are (``model``, ``restore``, ``max_tokens``, ...); ``run`` is called as
    ``run(messages, client=..., transcript_dir=..., focus=..., manual=..., context_window=...,
    workspace=..., **options)``. Every summary keeps the user's instructions word for word
    (``compaction.layers.instructions``), whoever wrote ``run``. It also answers the model's
    ``compact`` tool (``focus``: what the model asked the summary to keep).

    ``share_cache`` (off by default) makes the summary request read the agent's cached prefix, as
    Claude Code's does: "To produce the summary, Claude Code sends a separate request with the same
    system prompt, tools, and history as your conversation, plus a summarization instruction appended
    as a final user message. While the cache is warm, that request reads your prefix from the cache"
    (https://code.claude.com/docs/en/prompt-caching, "Compacting the conversation"). Give the agent's
    own system prompt and tools in ``options`` (``options={"system": ..., "tools": ...}``), or the
    request's framing differs and nothing of it is read from the cache; with ``share_cache`` the
    request then keeps the messages the agent's last request sent whole (``fit_request``'s
    ``cached``) and shortens only newer outputs when it must be cut.
    """

    name: ClassVar[str] = "summary"
    transcript_first: ClassVar[bool] = False  # it writes its own transcript before it summarizes
    calls_model: ClassVar[bool] = True
    answers_compact: ClassVar[bool] = True
    unchanged: ClassVar[str] = "the summary left the list unchanged"
    max_failures: int = MAX_FAILURES
    ledger_tokens: int | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    share_cache: bool = field(default=False, metadata=QUIET)
    run: Callable[..., list[Message]] = compact_history

    def __post_init__(self) -> None:
        whole("max_failures", self.max_failures, minimum=1)
        if self.ledger_tokens is not None:
            whole("ledger_tokens", self.ledger_tokens)
        if not isinstance(self.share_cache, bool):
            raise ValueError(f"share_cache must be True or False, not {self.share_cache!r}")

    def sees(self, messages: Sequence[Message], shared: Shared) -> None:
        """With a ledger, each new tool result is remembered whole before micro can clear it."""
        remember_results(self.ledger_tokens, messages, shared)

    def idle(self, messages: Sequence[Message], shared: Shared) -> str | None:
        """Not triggered within the threshold; held back when the pipeline has no model to ask."""
        estimate, threshold = shared.estimate(messages), shared.threshold
        if estimate <= threshold:
            return f"not triggered: {estimate:,} tokens, within the threshold {threshold:,}"
        if needs_model(shared):
            over = f"over the threshold ({estimate:,} > {threshold:,})"
            return f"{over}, but the Compactor has no client or transcript_dir"
        return None

    def apply(self, messages: list[Message], shared: Shared) -> list[Message]:
        """``run`` with the pipeline's client, transcript folder, window and workspace."""
        return self._summarize(messages, shared, focus=None, manual=False)

    def compact(self, messages: list[Message], shared: Shared, focus: str | None = None) -> list[Message]:
        """The manual compact: a summary now, with the model's ``focus``; the compact call and its
        result follow it, so the model sees it was done."""
        out = self._summarize(messages, shared, focus=focus, manual=True)
        if len(messages) >= 3 and any(b.get("name") == "compact" for b in tool_use_blocks(messages[-2])):
            out = [*out, *messages[-2:]]
        return out

    def _summarize(
        self, messages: list[Message], shared: Shared, focus: str | None, manual: bool
    ) -> list[Message]:
        missing = needs_model(shared)
        if missing:
            raise ValueError(missing)
        out = self.run(
            messages,
            client=shared.client,
            transcript_dir=shared.transcript_dir,
            focus=focus,
            manual=manual,
            **{
                **shared_options(shared),
                **ledger_options(self.ledger_tokens, self.run, messages, shared),
                **self._cache_options(messages, shared),
                **dict(self.options),
            },
        )
        return pin_instructions(messages, out)

    def _cache_options(self, messages: list[Message], shared: Shared) -> dict[str, Any]:
        """``cached``: how many leading messages the agent's last request sent (with ``share_cache``)."""
        if not self.share_cache or not takes(self.run, "cached"):
            return {}
        return {"cached": shared.counter.anchored_prefix(messages)}
