"""Checks for chapter 02 (tokens): the usage-anchored count, the API's total, a trigger with a margin.

``check_anchored_count`` runs the chapter's function: the API's count of the last request plus an
estimate of what was appended, or a full estimate when the list no longer starts with that request.
It is differential, against the package's ``TokenCounter`` after ``observe``. The exercises:
``cache_read_share`` (the share of a request's input tokens read from the prompt cache) must equal the
reference within 1e-9 on the SDK's own ``Usage`` objects and on dicts, with cache fields present,
absent and ``None``, and on a request of 0 tokens; ``limit_for`` is checked by its defining property (the
largest estimate that still fits when the estimate is low by ``underestimate_pct``), so any correct
way of computing it passes. Deliberately left out: images and documents, counted by a flat guess.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

from anthropic.types import Usage

from compaction.core.messages import is_tool_result_message
from compaction.core.tokens import TokenCounter, usage_input_tokens
from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions, handmade_session
from compaction.presentation.language import say


def anchored_count_reference(messages: list, sent: list, sent_tokens: int, method: str = "chars") -> int:
    """The package's answer: what TokenCounter counts after observing ``sent`` with ``sent_tokens``."""
    counter = TokenCounter(method)
    counter.observe(sent, {"input_tokens": sent_tokens})
    return counter.count(messages)


def limit_for_reference(window: int, max_output: int, underestimate_pct: int) -> int:
    """The largest estimate e with e * (100 + pct) <= (window - max_output) * 100 (0 if no room)."""
    return max(0, (window - max_output) * 100 // (100 + underestimate_pct))


def _anchored(fn: Callable, messages: list, sent: list, tokens: int, method: str, what: str) -> None:
    want = anchored_count_reference(messages, sent, tokens, method)
    got = fn(copy.deepcopy(messages), copy.deepcopy(sent), tokens, method)
    assert got == want, say(
        "{what} ({n} messages sent, API counted {tokens}; {n1} now, method={method}):"
        " expected {want}, got {got}",
        what=what,
        n=f"{len(sent)}",
        tokens=f"{tokens:,}",
        n1=f"{len(messages)}",
        method=f"{method!r}",
        want=f"{want:,}",
        got=f"{got!r}",
    )


def check_anchored_count(anchored_count: Callable) -> CheckReport:
    """Chapter 02: the API's count of the last request plus an estimate of the rest, or a full estimate."""
    cases = []
    for k, s in enumerate(course_sessions(), start=1):
        half = len(s) // 2
        first = next(i for i, m in enumerate(s) if is_tool_result_message(m))
        changed = copy.deepcopy(s)
        changed[first]["content"][0]["content"] = "[cleared]"
        for method in ("chars", "tiktoken"):
            cases.append(
                (
                    f"session {k}, {method}: two messages appended",
                    lambda s=s, h=half, m=method: _anchored(
                        anchored_count, s[: h + 2], s[:h], 1234, m, "appended"
                    ),
                )
            )
        cases += [
            (
                f"session {k}: nothing appended is the API's figure",
                lambda s=s: _anchored(anchored_count, s, s, 999, "chars", "same list"),
            ),
            (
                f"session {k}: a rewritten message drops the anchor",
                lambda s=s, c=changed, h=half: _anchored(anchored_count, c, s[:h], 500, "chars", "rewritten"),
            ),
            (
                f"session {k}: a shorter list drops the anchor",
                lambda s=s, h=half: _anchored(anchored_count, s[:h], s, 500, "chars", "shorter"),
            ),
        ]
    cases.append(
        (
            "nothing sent yet: a full estimate",
            lambda: _anchored(anchored_count, handmade_session(), [], 0, "chars", "no anchor"),
        )
    )
    return run_cases("anchored_count", cases)


USAGES = [
    ("no cache fields", {"input_tokens": 1200, "output_tokens": 50}),
    ("cache fields None", {"input_tokens": 1200, "cache_read_input_tokens": None, "output_tokens": 5}),
    ("a cache write", {"input_tokens": 40, "cache_creation_input_tokens": 3000, "output_tokens": 5}),
    ("a cache read", {"input_tokens": 300, "cache_read_input_tokens": 2700, "output_tokens": 5}),
    (
        "a cache read and a write",
        {"input_tokens": 12, "cache_read_input_tokens": 9000, "cache_creation_input_tokens": 700},
    ),
]


def cache_read_share_reference(usage: object) -> float:
    """The share of a request's input tokens read from the prompt cache (0.0 for a request of no tokens)."""
    total = usage_input_tokens(usage)
    read = usage.get("cache_read_input_tokens") if isinstance(usage, dict) else usage.cache_read_input_tokens
    return (read or 0) / total if total else 0.0


def _share(fn: Callable, usage: object, what: str) -> None:
    want = cache_read_share_reference(usage)
    kind = (
        say("a dict")
        if isinstance(usage, dict)
        else say("the SDK's Usage object (read fields as attributes)")
    )
    try:
        got = fn(usage)
    except ZeroDivisionError as exc:
        raise AssertionError(
            say("{what}: a request of 0 input tokens read nothing from the cache: 0.0", what=what)
        ) from exc
    except (AttributeError, KeyError, TypeError) as exc:  # the usual mistakes: one shape only, None added
        raise AssertionError(
            say(
                "{what}: the usage is {kind}, and your function raised {error}: {exc}; a cache"
                " field may be missing or None, which counts as 0",
                what=what,
                kind=kind,
                error=f"{type(exc).__name__}",
                exc=exc,
            )
        ) from exc
    if isinstance(got, (int, float)) and math.isclose(got, want, abs_tol=1e-9):
        return
    hint = ""
    if isinstance(got, (int, float)) and _input_only(usage, got):
        hint = say("; divide by all the input tokens of the request, not by `input_tokens` alone")
    elif isinstance(got, (int, float)) and got > 1:
        hint = say("; a share is between 0 and 1, not a percentage")
    raise AssertionError(
        say(
            "{what}: expected {want} (cache reads / all input tokens, where all = input +"
            " cache writes + cache reads), got {got}{hint}",
            what=what,
            want=f"{want:.4f}",
            got=f"{got!r}",
            hint=hint,
        )
    )


def _input_only(usage: object, got: float) -> bool:
    """True when ``got`` is cache reads divided by ``input_tokens`` alone (the usual wrong divisor)."""
    get = usage.get if isinstance(usage, dict) else lambda k: getattr(usage, k, None)
    return bool(get("input_tokens")) and math.isclose(
        got, (get("cache_read_input_tokens") or 0) / get("input_tokens")
    )


def check_cache_read_share(cache_read_share: Callable) -> CheckReport:
    """Exercise 1: the share of a request's input read from the cache, for SDK Usage objects and dicts."""
    cases = []
    for name, fields in USAGES:
        sdk = Usage(**{"output_tokens": 0, **fields})
        cases.append((f"SDK Usage, {name}", lambda u=sdk, n=name: _share(cache_read_share, u, n)))
        cases.append((f"dict, {name}", lambda u=dict(fields), n=name: _share(cache_read_share, u, n)))
    cases.append(
        ("a request of 0 input tokens: 0.0", lambda: _share(cache_read_share, {"input_tokens": 0}, "empty"))
    )
    return run_cases("cache_read_share", cases)


def _limit(fn: Callable, window: int, max_output: int, pct: int) -> None:
    got = fn(window, max_output, pct)
    room = window - max_output
    where = f"window={window:,}, max_output={max_output:,}, underestimate_pct={pct}"
    assert isinstance(got, int), say(
        "{where}: return an int, got {kind} {got}", where=where, kind=f"{type(got).__name__}", got=f"{got!r}"
    )
    if room <= 0:
        assert got == 0, say("{where}: no room at all, expected 0, got {got}", where=where, got=f"{got:,}")
        return
    assert got * (100 + pct) <= room * 100, say(
        "{where}: an estimate of {got} can really be {value} tokens, more than the {room} that fit",
        where=where,
        got=f"{got:,}",
        value=f"{got * (100 + pct) / 100:,.2f}",
        room=f"{room:,}",
    )
    if (got + 1) * (100 + pct) <= room * 100:
        as_float = room / (1 + pct / 100)
        exact = (got + 1) * (100 + pct) == room * 100
        cause = (
            f"; {got + 1:,} fills the room exactly, and an exact fit is allowed: <=, not <" if exact else ""
        ) + (
            f"; if you divided, floating point is the cause: {room} / {1 + pct / 100} gives {as_float!r}, "
            f"which int() cuts to {got:,}; the rule: an exact fit must survive the arithmetic, so keep "
            "every step in whole numbers"
            if exact and int(as_float) == got
            else ""
        )
        raise AssertionError(
            f"{where}: returned {got:,}, but {got + 1:,} still fits "
            f"({(got + 1) * (100 + pct) / 100:,.2f} <= {room:,}); return the largest estimate that fits"
            + cause
        )


def check_limit_for(limit_for: Callable) -> CheckReport:
    """Exercise 2: the largest local estimate at which a request surely fits the window."""
    grid = [(200_000, 20_000, 20), (8_000, 1_000, 15), (8_000, 1_000, 0), (7_000, 1_400, 40)]
    cases = [
        (f"window {w:,}, output {o:,}, low by {p}%", lambda w=w, o=o, p=p: _limit(limit_for, w, o, p))
        for w, o, p in grid
    ]
    cases += [
        ("an exact fit is allowed (<=, not <)", lambda: _limit(limit_for, 1_100, 0, 10)),
        ("no room left: 0", lambda: _limit(limit_for, 4_000, 4_000, 10)),
        ("more output than window: 0", lambda: _limit(limit_for, 4_000, 5_000, 10)),
    ]
    return run_cases("limit_for", cases)
