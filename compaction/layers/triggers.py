"""When the pipeline acts: the summary threshold and the circuit breaker.

``summary_threshold`` is the estimate above which the pipeline asks for a summary: the context
window minus the tokens reserved for the answer minus a safety buffer. Claude Code uses a buffer
of 13,000 tokens (a reading of its bundled ``cli.js``, ``var nx1 = 13000``, in
anthropics/claude-code#12004) and caps a summary's answer at 20,000 tokens
(``MAX_OUTPUT_TOKENS_FOR_SUMMARY``, ``autoCompact.ts``, in the seed's table of Claude Code's constants:
learn-claude-code s08, https://github.com/shareAI-lab/learn-claude-code/tree/main/s08_context_compact;
both are third-party readings, not Anthropic's docs); for a small window both are scaled down in
proportion, or a teaching window of 8,000 tokens would be left with no room at all.
``CircuitBreaker`` stops automatic summarizing after ``max_failures`` consecutive failures (Claude
Code: 3, per its v2.1.76 changelog as quoted in anthropics/claude-code#34278), so a broken summary
call is not paid for on every turn. ``Guard`` is the rule on every layer that calls a model: its
breaker, and the loop guard, which stops it after ``LOOP_LIMIT`` runs in a row that left the estimate
over the threshold (a summary that cannot get under it would otherwise run before every call).
Deliberately left out: time-based triggers, and closing a breaker again after a pause.
"""

from __future__ import annotations

CLAUDE_CODE_WINDOW = 200_000
CLAUDE_CODE_BUFFER = 13_000  # AUTOCOMPACT_BUFFER_TOKENS
SUMMARY_OUTPUT = 20_000  # MAX_OUTPUT_TOKENS_FOR_SUMMARY
MAX_FAILURES = 3  # MAX_CONSECUTIVE_AUTOCOMPACT_FAILURES
LOOP_LIMIT = 2  # runs in a row that leave the estimate over the threshold before a model layer stops


def default_buffer(context_window: int) -> int:
    """Claude Code's 13,000-token buffer, scaled down in proportion for windows under 200K."""
    return min(CLAUDE_CODE_BUFFER, round(CLAUDE_CODE_BUFFER * context_window / CLAUDE_CODE_WINDOW))


def default_reserve(context_window: int) -> int:
    """Tokens kept free for the model's answer: 20,000, or a tenth of a smaller window."""
    return min(SUMMARY_OUTPUT, context_window // 10)


def summary_threshold(
    context_window: int, reserve_output: int | None = None, buffer: int | None = None
) -> int:
    """The estimate above which the pipeline summarizes: window - reserved output - buffer."""
    if isinstance(context_window, bool) or not isinstance(context_window, int) or context_window <= 0:
        raise ValueError(f"context_window must be a positive int, not {context_window!r}")
    reserve = default_reserve(context_window) if reserve_output is None else reserve_output
    buffer = default_buffer(context_window) if buffer is None else buffer
    if reserve < 0 or buffer < 0:
        raise ValueError(f"reserve_output ({reserve}) and buffer ({buffer}) must not be negative")
    threshold = context_window - reserve - buffer
    if threshold <= 0:
        raise ValueError(
            f"context_window {context_window} leaves no room after "
            f"reserve_output {reserve} and buffer {buffer}"
        )
    return threshold


class CircuitBreaker:
    """Opens after ``max_failures`` consecutive failures; a success before that resets the count."""

    def __init__(self, max_failures: int = MAX_FAILURES):
        if isinstance(max_failures, bool) or not isinstance(max_failures, int) or max_failures < 1:
            raise ValueError(f"max_failures must be a positive int, not {max_failures!r}")
        self.max_failures = max_failures
        self.failures = 0  # consecutive failures so far

    @property
    def is_open(self) -> bool:
        """True once automatic attempts must stop."""
        return self.failures >= self.max_failures

    def record(self, success: bool) -> None:
        """Count one attempt's outcome: a success resets, a failure adds one."""
        self.failures = 0 if success else self.failures + 1


class Guard:
    """What stops a layer that calls a model: its circuit breaker, and the loop guard."""

    def __init__(self, max_failures: int = MAX_FAILURES):
        self.breaker = CircuitBreaker(max_failures)
        self.over = 0  # runs in a row that left the estimate over the threshold
        self.stopped: str | None = None  # why the loop guard stopped the layer

    @property
    def holds(self) -> str | None:
        """Why the layer may not run now, or None."""
        if self.breaker.is_open:
            return "the circuit breaker is open"
        if self.stopped is not None:
            return "the loop guard stopped automatic summaries"
        return None

    def failed(self) -> None:
        """Count a failed run (an error, or a list it left unchanged)."""
        self.breaker.record(success=False)

    def succeeded(self, still_over: bool) -> bool:
        """Count a run that changed the list; True when the loop guard must stop the layer now."""
        self.breaker.record(success=True)
        self.over = self.over + 1 if still_over else 0
        return self.over >= LOOP_LIMIT
