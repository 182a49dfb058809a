"""Checks for chapter 04 (snip): the chapter's snip, snip by tokens, and a snip that keeps the request.

``check_snip`` runs the chapter's function: differential against the package's ``snip_compact`` on
lists snipped for the first time whose only user words are the task (there the package quotes
nothing, so the two lists must be equal), for a grid of ``max_messages`` and ``keep_head``, on the
course's sessions and on a long session of parallel calls. Every output must pass the strict form and
hold at most ``max_messages`` messages. The boundaries: a list of exactly ``max_messages`` messages,
one more, ``keep_head`` 0, and a single message. ``check_snip_to_tokens`` and
``check_snip_keeping_request`` compare with the references here, and a failing row first names the rule
broken: head and tail must fit the budget (the earliest start that fits, ``<=``; when none fits, the
newest assistant message's tail), and the newest request is quoted exactly when the snip drops it.
Deliberately left out: repeated snips, whose counts the package folds into one placeholder.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.core.messages import (
    InvalidConversation,
    assistant,
    blocks,
    text,
    tool_result,
    tool_use,
    user,
    validate,
)
from compaction.core.placeholders import REQUEST_LINE, snip_placeholder
from compaction.core.tokens import estimate_tokens
from compaction.course.checks import CheckReport, assert_same_messages, run_cases
from compaction.course.checks.messages import assert_unchanged, course_sessions
from compaction.layers.snip import is_snip_placeholder, snip_compact, snip_cuts, user_words
from compaction.presentation.language import say

GRID = [(m, h) for m in (6, 9, 12, 20, 25) for h in (0, 1, 3, 4)]


def parallel_session(turns: int = 14) -> list[dict]:
    """A long session: two or three parallel calls a turn, the task as the only user words."""
    out, k = [user("Rename `load` to `read_config` everywhere and keep the tests green.")], 0
    for t in range(turns):
        n = 2 + t % 2
        ids = [f"toolu_p{k + j:03d}" for j in range(n)]
        k += n
        out.append(
            assistant(f"Step {t}.", *(tool_use(i, "read_file", {"path": f"src/m{i[-3:]}.py"}) for i in ids))
        )
        out.append(user(*(tool_result(i, f"def load():\n    return {j}\n" * 20) for j, i in enumerate(ids))))
    out.append(assistant("All renamed."))
    return out


def with_requests(session: list[dict]) -> list[dict]:
    """The session with user words added after some results: a request in the middle, another late."""
    out = copy.deepcopy(session)
    results = [i for i, m in enumerate(out) if m["role"] == "user" and isinstance(m["content"], list)]
    for i, words in zip(
        results[len(results) // 3 :: max(1, len(results) // 3)][:2],
        ["Also keep the command-line output format unchanged.", "And add a test for the empty file."],
        strict=False,
    ):
        out[i]["content"].append(text(words))
    return out


def _sessions() -> list[tuple[str, list[dict]]]:
    named = [(f"course session {k}", s) for k, s in enumerate(course_sessions(), start=1)]
    return [*named, ("parallel calls", parallel_session())]


def _valid(messages: list[dict], where: str) -> None:
    try:
        validate(messages)
    except InvalidConversation as exc:
        raise AssertionError(
            say(
                "{where}: the result breaks {rule} at message {i}",
                where=where,
                rule=repr(exc.rule),
                i=exc.index,
            )
        ) from None


def _same(fn: Callable, reference: Callable, name: str, messages: list[dict], **kwargs) -> None:
    given = copy.deepcopy(messages)
    got = fn(given, **kwargs)
    where = f"{name}, {', '.join(f'{k}={v}' for k, v in kwargs.items())}"
    assert_unchanged(given, messages, where)
    if "max_messages" in kwargs and isinstance(got, list) and len(got) > kwargs["max_messages"]:
        raise AssertionError(
            say("{where}: {n} messages kept, more than max_messages", where=where, n=len(got))
        )
    if isinstance(got, list) and got:
        _valid(got, where)
    assert_same_messages(got, reference(messages, **kwargs), where)


def _grid(fn: Callable, reference: Callable, name: str, session: list[dict]) -> None:
    for m, h in GRID:
        _same(fn, reference, name, session, max_messages=m, keep_head=h)


def check_snip(snip: Callable) -> CheckReport:
    """Chapter 04: head and tail kept, one placeholder, pair-safe, at most max_messages; like the package."""
    ref = snip_compact
    cases = [(f"{n}, {len(GRID)} sizes", lambda n=n, s=s: _grid(snip, ref, n, s)) for n, s in _sessions()]
    s = parallel_session()
    cases += [
        (
            "exactly max_messages: unchanged",
            lambda: _same(snip, ref, "parallel", s, max_messages=len(s), keep_head=3),
        ),
        (
            "one more than max_messages: snipped",
            lambda: _same(snip, ref, "parallel", s, max_messages=len(s) - 1, keep_head=3),
        ),
        ("a single message", lambda: _same(snip, ref, "single", [user("hi")], max_messages=5, keep_head=0)),
    ]
    return run_cases("snip", cases)


# ---------------------------------------------------------------- exercise 1: by tokens


def snip_to_tokens_reference(
    messages: list[dict], max_tokens: int, keep_head: int = 3, method: str = "tiktoken"
) -> list[dict]:
    """Head as in snip; the longest tail from an assistant message that fits; always the newest turn."""
    n = len(messages)
    if estimate_tokens(messages, method) <= max_tokens:
        return list(messages)
    head = max(1, keep_head)
    while head < n and messages[head - 1]["role"] != "user":
        head += 1
    starts = [i for i in range(head, n) if messages[i]["role"] == "assistant"]
    if not starts:
        return list(messages)
    used, tail = estimate_tokens(messages[:head], method), starts[-1]
    for i in reversed(starts):
        if used + estimate_tokens(messages[i:], method) > max_tokens:
            break
        tail = i
    if tail <= head:
        return list(messages)
    last = messages[head - 1]
    note = text(snip_placeholder(tail - head))
    return [*messages[: head - 1], {**last, "content": [*blocks(last), note]}, *messages[tail:]]


def _head_end(messages: list[dict], keep_head: int) -> int:
    head = max(1, keep_head)
    while head < len(messages) and messages[head - 1]["role"] != "user":
        head += 1
    return head


def _tail_rule(got: object, messages: list[dict], max_tokens: int, keep_head: int, where: str) -> None:
    """Name the tail rule a wrong tail breaks: head and tail must fit; the earliest start that fits."""
    want = snip_to_tokens_reference(messages, max_tokens, keep_head)
    if not isinstance(got, list) or got == want or len(got) > len(messages):
        return
    n, head = len(messages), _head_end(messages, keep_head)
    start, best = n - (len(got) - head), n - (len(want) - head)
    if start == best or not head <= start <= n:
        return
    head_tokens = estimate_tokens(messages[:head], "tiktoken")
    used = head_tokens + estimate_tokens(messages[start:], "tiktoken")
    fits = head_tokens + estimate_tokens(messages[best:], "tiktoken")
    if fits > max_tokens:  # no tail fits: the reference keeps the newest turn anyway
        raise AssertionError(
            say(
                "{where}: no tail fits: the head ({head} tokens) and the newest assistant message's tail "
                "(message {best} on) already make {fits}, over max_tokens={max_tokens}; then keep the tail "
                "from the newest assistant message anyway (the current turn is never dropped); your tail "
                "starts at message {start}",
                where=where,
                head=f"{head_tokens:,}",
                best=best,
                fits=f"{fits:,}",
                max_tokens=f"{max_tokens:,}",
                start=start,
            )
        )
    if start < best:
        raise AssertionError(
            say(
                "{where}: your tail starts at message {start}; the head ({head} tokens) and that "
                "tail make {used}, over max_tokens={max_tokens}: head and tail together must fit; the "
                "earliest start that fits is message {best}",
                where=where,
                start=start,
                head=f"{head_tokens:,}",
                used=f"{used:,}",
                max_tokens=f"{max_tokens:,}",
                best=best,
            )
        )
    raise AssertionError(
        say(
            "{where}: your tail starts at message {start}, but the tail from message {best} fits too "
            "(head and tail {fits} <= {max_tokens}{exact}): take the earliest assistant message "
            "whose tail fits",
            where=where,
            start=start,
            best=best,
            fits=f"{fits:,}",
            max_tokens=f"{max_tokens:,}",
            exact=say(", exactly the budget: an exact fit is kept") if fits == max_tokens else "",
        )
    )


def _tokens(fn: Callable, name: str, messages: list[dict], max_tokens: int, keep_head: int = 3) -> None:
    given = copy.deepcopy(messages)
    got = fn(given, max_tokens=max_tokens, keep_head=keep_head)
    where = f"{name}, max_tokens={max_tokens:,}, keep_head={keep_head}"
    assert_unchanged(given, messages, where)
    _tail_rule(got, messages, max_tokens, keep_head, where)
    _same(fn, snip_to_tokens_reference, name, messages, max_tokens=max_tokens, keep_head=keep_head)


def exact_fit_budget(messages: list[dict], keep_head: int = 3, method: str = "tiktoken") -> int:
    """A budget the head plus the tail from the middle assistant message fill exactly, to the token."""
    head = max(1, keep_head)
    while head < len(messages) and messages[head - 1]["role"] != "user":
        head += 1
    starts = [i for i in range(head, len(messages)) if messages[i]["role"] == "assistant"]
    start = starts[len(starts) // 2]
    return estimate_tokens(messages[:head], method) + estimate_tokens(messages[start:], method)


def check_snip_to_tokens(snip_to_tokens: Callable) -> CheckReport:
    """Exercise 1: snip to a token budget instead of a message count."""
    cases = []
    for name, s in _sessions():
        total = estimate_tokens(s, "tiktoken")
        budgets = sorted({total // 5, total // 3, total // 2, total - 1})
        cases.append(
            (
                f"{name} ({total:,} tokens), {len(budgets)} budgets",
                lambda n=name, s=s, b=budgets: [_tokens(snip_to_tokens, n, s, x) for x in b],
            )
        )
    s = parallel_session()
    total = estimate_tokens(s, "tiktoken")
    cases += [
        ("exactly at the budget: unchanged", lambda: _tokens(snip_to_tokens, "parallel", s, total)),
        (
            "a tail that fills the budget exactly is kept (<=, not <)",
            lambda: _tokens(
                snip_to_tokens, "parallel, head and tail exactly at the budget", s, exact_fit_budget(s)
            ),
        ),
        ("a tiny budget keeps the newest turn", lambda: _tokens(snip_to_tokens, "parallel", s, 10)),
        ("keep_head=0 keeps the task", lambda: _tokens(snip_to_tokens, "parallel", s, total // 3, 0)),
    ]
    return run_cases("snip_to_tokens", cases)


# ---------------------------------------------------------------- exercise 2: the current request


def snip_keeping_request_reference(
    messages: list[dict], max_messages: int = 50, keep_head: int = 3
) -> list[dict]:
    """The chapter's snip at ``snip_cuts``; the placeholder quotes the newest request if it was dropped."""
    head, tail = snip_cuts(messages, max_messages=max_messages, keep_head=keep_head)
    if tail <= head:
        return list(messages)
    asked = [i for i, m in enumerate(messages) if user_words(m)]
    dropped = bool(asked) and head <= asked[-1] < tail
    note = text(snip_placeholder(tail - head, user_words(messages[asked[-1]]) if dropped else None))
    last = messages[head - 1]
    return [*messages[: head - 1], {**last, "content": [*blocks(last), note]}, *messages[tail:]]


def _request_rule(got: object, messages: list[dict], where: str, **kwargs) -> None:
    """Name the quoting rule a wrong placeholder breaks: quote the newest request only when it was dropped."""
    head, tail = snip_cuts(messages, **kwargs)
    if tail <= head or not isinstance(got, list) or len(got) < head:
        return
    notes = [b.get("text", "") for b in blocks(got[head - 1]) if is_snip_placeholder(b)]
    if not notes:
        return
    quoted = notes[-1].split(REQUEST_LINE, 1)[1] if REQUEST_LINE in notes[-1] else None
    asked = [i for i, m in enumerate(messages) if user_words(m)]
    newest = asked[-1] if asked else None
    dropped = newest is not None and head <= newest < tail
    at = say("{where}: message {i}, the placeholder", where=where, i=head - 1)
    if quoted is not None and not dropped:
        kept = say("message {i} was kept", i=newest) if newest is not None else say("no request was dropped")
        raise AssertionError(
            say(
                "{at} quotes a request, but {kept}: the request was kept, so don't quote it again",
                at=at,
                kept=kept,
            )
        )
    if dropped and quoted is None:
        raise AssertionError(
            say(
                "{at} does not quote the request of message {newest}, which was dropped (messages "
                "{first}-{last} went): quote the newest request when it goes",
                at=at,
                newest=newest,
                first=head,
                last=tail - 1,
            )
        )
    if dropped and quoted != user_words(messages[newest]):
        other = next((i for i in asked if user_words(messages[i]) == quoted), None)
        which = say("the request of message {i}", i=other) if other is not None else repr(quoted[:60])
        raise AssertionError(
            say(
                "{at} quotes {which}; quote the newest request, message {newest}",
                at=at,
                which=which,
                newest=newest,
            )
        )


def _keeping(fn: Callable, name: str, messages: list[dict]) -> None:
    for m, h in GRID:
        given = copy.deepcopy(messages)
        got = fn(given, max_messages=m, keep_head=h)
        where = f"{name}, max_messages={m}, keep_head={h}"
        assert_unchanged(given, messages, where)
        _request_rule(got, messages, where, max_messages=m, keep_head=h)
        _same(fn, snip_keeping_request_reference, name, messages, max_messages=m, keep_head=h)


def check_snip_keeping_request(snip_keeping_request: Callable) -> CheckReport:
    """Exercise 2: the newest user request, when the snip drops it, is quoted in the placeholder."""
    cases = []
    for name, s in _sessions():
        asked = with_requests(s)
        words = [i for i, m in enumerate(asked) if i and user_words(m)]
        cases.append(
            (
                f"{name} with requests at {words}",
                lambda n=name, a=asked: _keeping(snip_keeping_request, n, a),
            )
        )
        cases.append((f"{name}, nothing to quote", lambda n=name, s=s: _keeping(snip_keeping_request, n, s)))
    return run_cases("snip_keeping_request", cases)
