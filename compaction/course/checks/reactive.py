"""Checks for chapter 09 (reactive compaction): the refusals, the reactive layer, and its tail.

``check_is_prompt_too_long`` builds the SDK's real exceptions (the two 400 refusals of a request too
big for the window, a 413, other 400s, 429, 500, 529, a timeout) and plain ones.
``check_reactive_layer`` runs a learner's layer on the course sessions against the offline model:
the transcript of the whole list first, then one summary message followed by a tail that is the end
of the list, starts at an assistant message and is kept verbatim (thinking blocks and all).
``check_tokens_over`` and ``check_tail_within`` are the exercises: how many tokens a refusal says
are too many, and the longest pair-safe tail within a token budget. ``check_pair_safe_tail`` compares
a tail by message count with the package's. Deliberately left out: the retry in the agent loop,
which the chapter shows rather than asks for.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

import anthropic

from compaction.agent.backend import connect
from compaction.core.api_errors import is_prompt_too_long, tokens_over
from compaction.core.messages import InvalidConversation, assistant, is_tool_result_message, user, validate
from compaction.core.tokens import estimate_tokens
from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions, handmade_session
from compaction.course.checks.summarize import LayerRuns
from compaction.layers.reactive import pair_safe_tail
from compaction.presentation.language import say

ANSWERS = ("tail_within",)  # what an exercise computes: kept out of for_exercise("reactive")

try:  # the SDK's HTTP library: httpx, or its successor httpx2 in newer SDKs
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed SDK
    import httpx


def api_error(status: int, message: str, kind: str = "invalid_request_error") -> anthropic.APIStatusError:
    """The exception the SDK raises for an HTTP error answer (the right subclass for the status)."""
    request = httpx.Request("POST", "http://127.0.0.1/v1/messages")
    body = {"type": "error", "error": {"type": kind, "message": message}}
    response = httpx.Response(status, json=body, request=request)
    classes = {
        400: anthropic.BadRequestError,
        413: getattr(anthropic, "ContentTooLargeError", anthropic.APIStatusError),
        429: anthropic.RateLimitError,
        500: anthropic.InternalServerError,
        529: getattr(anthropic, "OverloadedError", anthropic.InternalServerError),
    }
    return classes.get(status, anthropic.APIStatusError)(message, response=response, body=body)


CONTEXT_LIMIT = (
    "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, "
    "decrease input length or `max_tokens` and try again"
)
ERRORS = {
    "400 prompt is too long": lambda: api_error(400, "prompt is too long: 213021 tokens > 200000 maximum"),
    "400 input length and max_tokens exceed context limit": lambda: api_error(400, CONTEXT_LIMIT),
    "413 request too large": lambda: api_error(
        413, "Request exceeds the maximum allowed number of bytes.", "request_too_large"
    ),
    "400 unpaired tool_use": lambda: api_error(
        400, "messages.125: `tool_use` ids were found without `tool_result` blocks immediately after"
    ),
    "400 max_tokens too large": lambda: api_error(
        400, "max_tokens: 999999 > 64000, which is the maximum allowed number of output tokens"
    ),
    "400 context limit named in another error": lambda: api_error(
        400, "messages.3.content.0.text: the text mentions 'exceed context limit' and is invalid"
    ),
    "429 rate limit": lambda: api_error(
        429, "Number of request tokens has exceeded your rate limit", "rate_limit"
    ),
    "500 that mentions the words": lambda: api_error(500, "prompt is too long", "api_error"),
    "529 overloaded": lambda: api_error(529, "Overloaded", "overloaded_error"),
    "a timeout": lambda: anthropic.APITimeoutError(request=httpx.Request("POST", "http://127.0.0.1/")),
    "a plain ValueError with the words": lambda: ValueError("prompt is too long"),
    "a KeyError": lambda: KeyError("content"),
}


def check_is_prompt_too_long(fn: Callable[[BaseException], bool]) -> CheckReport:
    """``fn(error)`` is True for the API's refusals of a request too big for the window, else False."""

    def case_for(make):
        def case():
            error = make()
            got, want = fn(error), is_prompt_too_long(error)
            if got is want or got == want:
                return
            status = getattr(error, "status_code", None)
            what = f"HTTP {status}" if status else type(error).__name__
            message = str(getattr(error, "message", error))[:70]
            verdict = (
                say("it is a refusal of a request too big for the window") if want else say("it is not one")
            )
            raise AssertionError(
                say(
                    "{what} {message}: returned {got}, but {verdict}",
                    what=what,
                    message=f"{message!r}",
                    got=f"{got!r}",
                    verdict=verdict,
                )
            )

        return case

    return run_cases("is_prompt_too_long", [(name, case_for(make)) for name, make in ERRORS.items()])


def _handmade_tails() -> list[list[dict]]:
    """Targeted lists: parallel calls, a user text turn, the first message alone."""
    session = handmade_session()
    # the user speaks again mid-session: a tail must not start on that text either
    spoke = [session[0], assistant("Starting."), user("Also keep the old API working."), *session[1:]]
    return [session, session[:-1], session[:2] + [session[2]], session[:1], spoke]


def check_pair_safe_tail(fn: Callable[[list[dict], int], list[dict]]) -> CheckReport:
    """``fn(messages, keep)`` is identical to the package's tail on every course session and keep."""

    def lists():
        return [s for s in course_sessions() + _handmade_tails() if s]

    def identical():
        for messages in lists():
            for keep in range(1, len(messages) + 3):
                before = copy.deepcopy(messages)
                got, want = fn(messages, keep), pair_safe_tail(messages, keep)
                assert messages == before, say("the input list was changed; return a new list")
                assert got == want, say(
                    "keep={keep} on a {n}-message list: got {n1} messages, expected {n2}",
                    keep=keep,
                    n=f"{len(messages)}",
                    n1=f"{len(got)}",
                    n2=f"{len(want)}",
                )

    def never_orphaned():
        for messages in lists():
            for keep in range(1, len(messages)):
                tail = fn(messages, keep)
                assert tail, say("keep={keep}: the tail is empty", keep=keep)
                assert not is_tool_result_message(tail[0]), say(
                    "keep={keep}: the tail starts with a tool_result", keep=keep
                )
                validate([{"role": "user", "content": "[summary]"}, *tail])

    def keeps_enough():
        for messages in lists():
            for keep in range(1, len(messages)):
                tail = fn(messages, keep)
                assert len(tail) >= keep, say(
                    "keep={keep}: only {n} messages kept", keep=keep, n=f"{len(tail)}"
                )
                assert tail == messages[len(messages) - len(tail) :], say(
                    "the tail must be the end of the list"
                )

    return run_cases(
        "pair_safe_tail",
        [
            ("identical to the package on every course session and keep", identical),
            ("never starts with a tool_result; follows a summary validly", never_orphaned),
            ("keeps at least keep messages, from the end", keeps_enough),
        ],
    )


# ---------------------------------------------------------------- the chapter's reactive layer


def thinking_session() -> list[dict]:
    """The handmade session whose assistant messages think first (extended thinking, signed blocks)."""
    out = []
    for i, message in enumerate(handmade_session()):
        if message["role"] == "assistant" and isinstance(message["content"], list):
            thought = {"type": "thinking", "thinking": f"step {i}: what next?", "signature": f"sig-{i:03d}"}
            message = {**message, "content": [thought, *message["content"]]}
        out.append(message)
    return out


def check_reactive_layer(fn: Callable[..., list[dict]]) -> CheckReport:
    """``fn(messages, *, client, transcript_dir)``: transcript first, then a summary and a pair-safe tail."""
    sessions = {f"session {i} ({len(s)} messages)": s for i, s in enumerate(course_sessions(), 1)}
    sessions["the handmade session with thinking blocks"] = thinking_session()
    runs = LayerRuns(fn, connect("offline", context_window=1_000_000), "check-reactive-")

    def run(name: str) -> tuple:
        messages, before, got, watching = runs(name, sessions[name])
        assert isinstance(got, list) and len(got) >= 2, say(
            "{name}: expected a summary message and a tail, got {kind} of length {value}",
            name=name,
            kind=f"{type(got).__name__}",
            value=f"{len(got) if isinstance(got, list) else '-'}",
        )
        return messages, before, got, watching

    def each(rule: Callable[..., None]) -> Callable[[], None]:
        def case() -> None:
            for name in sessions:
                rule(name, *run(name))

        return case

    def transcript_first(name, messages, before, got, watching):
        assert watching.saved(), say(
            "{name}: no file in transcript_dir reads back as the whole list", name=name
        )
        assert watching.calls and watching.calls[0][1], say(
            "{name}: the summary was asked for before the whole list was on disk", name=name
        )

    def summary_then_tail(name, messages, before, got, watching):
        tail = got[1:]
        assert got[0].get("role") == "user", say(
            "{name}: the first message must be the summary, a user message", name=name
        )
        assert tail == before[len(before) - len(tail) :], say(
            "{name}: messages 1-{value} of the result are not the last {n} messages of the input, unchanged",
            name=name,
            value=f"{len(got) - 1}",
            n=f"{len(tail)}",
        )

    def starts_at_assistant(name, messages, before, got, watching):
        assert got[1].get("role") == "assistant", say(
            "{name}: the tail starts with a {value} message; start it at an assistant"
            " message, or its tool_result loses its tool_use",
            name=name,
            value=f"{got[1].get('role')}",
        )
        try:
            validate(got)
        except InvalidConversation as exc:
            raise AssertionError(
                say("{name}: the result breaks the strict form: {exc}", name=name, exc=exc)
            ) from None

    def keeps_last_assistant(name, messages, before, got, watching):
        last = max(i for i, m in enumerate(before) if m["role"] == "assistant")
        assert before[last] in got[1:], say(
            "{name}: the newest assistant message ({last}) is not in the tail unchanged;"
            " with extended thinking its thinking blocks must go back complete",
            name=name,
            last=last,
        )

    def smaller(name, messages, before, got, watching):
        size, after = estimate_tokens(before, "tiktoken"), estimate_tokens(got, "tiktoken")
        if size < 2_000:  # a short list: its summary may well be longer than what it replaces
            return
        assert after < size, say(
            "{name}: {size} tokens before, {after} after; nothing was saved",
            name=name,
            size=f"{size:,}",
            after=f"{after:,}",
        )

    def untouched(name, messages, before, got, watching):
        assert messages == before, say(
            "{name}: the input list was changed; build a new list instead", name=name
        )

    return run_cases(
        "reactive layer",
        [
            ("writes the whole list to a transcript, before the summary call", each(transcript_first)),
            ("returns a summary message, then the end of the list unchanged", each(summary_then_tail)),
            ("the tail starts at an assistant message; the result is valid", each(starts_at_assistant)),
            ("the newest assistant message stays, thinking blocks and all", each(keeps_last_assistant)),
            ("the result is smaller than a long input", each(smaller)),
            ("leaves the input list unchanged", each(untouched)),
        ],
    )


# ---------------------------------------------------------------- a tail within a token budget


def tail_within(messages: list[dict], max_tokens: int) -> list[dict]:
    """The check's reference: the longest pair-safe tail within ``max_tokens`` (tiktoken), or []."""
    for start in range(1, len(messages)):
        if messages[start].get("role") == "assistant":
            if estimate_tokens(messages[start:], "tiktoken") <= max_tokens:
                return list(messages[start:])
    return []


def check_tail_within(fn: Callable[[list[dict], int], list[dict]]) -> CheckReport:
    """``fn(messages, max_tokens)`` is the longest pair-safe tail within the budget, as the reference."""
    lists = [s for s in course_sessions() + _handmade_tails() if s]

    def budgets(messages):
        sizes = sorted({estimate_tokens(messages[i:], "tiktoken") for i in range(1, len(messages))})
        return sorted({0, 1, *sizes[:3], *(n - 1 for n in sizes[:3]), *sizes[-2:], 10**6})

    def identical():
        for messages in lists:
            for budget in budgets(messages):
                before = copy.deepcopy(messages)
                got, want = fn(messages, budget), tail_within(messages, budget)
                assert messages == before, say("the input list was changed; return a new list")
                if got == want:
                    continue
                size = estimate_tokens(got, "tiktoken") if isinstance(got, list) else None
                if isinstance(got, list) and got and size > budget:
                    raise AssertionError(
                        say(
                            "max_tokens={budget} on a {n}-message list: your tail is {size} tokens",
                            budget=budget,
                            n=f"{len(messages)}",
                            size=f"{size:,}",
                        )
                    )
                if want and len(got) < len(want) and estimate_tokens(want, "tiktoken") == budget:
                    raise AssertionError(
                        say(
                            "max_tokens={budget} on a {n}-message list: the boundary case, a tail of exactly"
                            " {budget1} tokens fits (at most, <=) and has {n2} messages; got {n3}",
                            budget=budget,
                            n=f"{len(messages)}",
                            budget1=f"{budget:,}",
                            n2=f"{len(want)}",
                            n3=f"{len(got)}",
                        )
                    )
                raise AssertionError(
                    say(
                        "max_tokens={budget} on a {n}-message list: got {n1} messages, the longest"
                        " pair-safe tail within it has {n2}",
                        budget=budget,
                        n=f"{len(messages)}",
                        n1=f"{len(got)}",
                        n2=f"{len(want)}",
                    )
                )

    def pair_safe():
        for messages in lists:
            for budget in budgets(messages):
                tail = fn(messages, budget)
                if tail:
                    assert tail[0].get("role") == "assistant", say(
                        "max_tokens={budget}: the tail starts with a {value} message",
                        budget=budget,
                        value=f"{tail[0].get('role')}",
                    )
                    assert tail == messages[len(messages) - len(tail) :], say(
                        "the tail must be the end of the list"
                    )
                    assert len(tail) < len(messages), say(
                        "the tail must leave the first message to the summary"
                    )

    return run_cases(
        "tail_within",
        [
            ("the longest pair-safe tail within the budget, on every course session", identical),
            ("starts at an assistant message, at the end of the list, never the whole list", pair_safe),
        ],
    )


# ---------------------------------------------------------------- how many tokens too many

OVER = {
    **ERRORS,
    "400 prompt is too long by one token": lambda: api_error(
        400, "prompt is too long: 200001 tokens > 200000 maximum"
    ),
    "400 context limit, the answer's room decides": lambda: api_error(
        400,
        "input length and `max_tokens` exceed context limit: 150000 + 64000 > 200000, decrease input length "
        "or `max_tokens` and try again",
    ),
    "400 the words without numbers": lambda: api_error(400, "prompt is too long"),
    "500 with the words and numbers": lambda: api_error(
        500, "prompt is too long: 10 tokens > 5 maximum", "api_error"
    ),
}


def check_tokens_over(fn: Callable[[BaseException], int | None]) -> CheckReport:
    """``fn(error)``: how many tokens over the window a refusal says, or None, as the package."""

    def case_for(make):
        def case():
            error = make()
            got, want = fn(error), tokens_over(error)
            if got == want and type(got) is type(want):
                return
            message = str(getattr(error, "message", error))[:110]
            status = getattr(error, "status_code", None)
            if want is None and status not in (None, 400):
                raise AssertionError(
                    say(
                        "HTTP {status} {message}: returned {got}; only a 400 refusal names a count",
                        status=status,
                        message=f"{message!r}",
                        got=f"{got!r}",
                    )
                )
            if want is None:
                raise AssertionError(
                    say(
                        "{message}: returned {got}; no count in this error; expected None",
                        message=f"{message!r}",
                        got=f"{got!r}",
                    )
                )
            raise AssertionError(
                say(
                    "{message}: returned {got}, expected {want} tokens over",
                    message=f"{message!r}",
                    got=f"{got!r}",
                    want=f"{want:,}",
                )
            )

        return case

    return run_cases("tokens_over", [(name, case_for(make)) for name, make in OVER.items()])
