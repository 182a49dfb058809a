"""Checks for chapters 06 and 08: the pipeline, its cache cost, the orders that lose an output, the
threshold, the breaker, the reserve chosen from observed answers (chapter 10).

Each check is differential: the learner's function must give the reference's answer on the course
sessions (grown turn by turn, and ending in five outputs at once), plus targeted cases that the
known-wrong answers fail: a trigger at ``>=`` instead of ``>``, a batch one token short, micro
before budget (a large output is then nowhere on disk), counting an append as a cache write, a
buffer that is never scaled down, a breaker that never opens or never resets. Deliberately left
out: the summary itself (chapter 07 checks it).
"""

from __future__ import annotations

import copy
import itertools
import random
import tempfile
from collections.abc import Callable
from pathlib import Path

from compaction.core.messages import assistant, shared_prefix, text, text_of, tool_result, tool_use, user
from compaction.core.placeholders import MARKER_OVERHEAD
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens, message_tokens
from compaction.course.checks import CheckReport, assert_same_messages, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.evaluate.cost import CACHE_READ, CACHE_WRITE
from compaction.layers.budget import tool_result_budget
from compaction.layers.micro import micro_compact
from compaction.layers.snip import snip_compact
from compaction.layers.triggers import summary_threshold
from compaction.presentation.language import say

ANSWERS = ("reserve_from_answers",)  # what an exercise computes: kept out of for_exercise("pipeline")

BIG = 40_000  # characters of the large output in the order case


def requests_of(session: list[dict], prepare: Callable[[list], list]) -> list[list[dict]]:
    """The requests an agent sends when ``prepare`` runs before each call, replayed from a session."""
    sent = [prepare(session[:1])]
    for i in range(1, len(session) - 1, 2):
        sent.append(prepare(sent[-1] + session[i : i + 2]))
    return sent


def with_parallel_outputs(session: list[dict], sizes: list[int]) -> list[dict]:
    """A session ending in one assistant message with parallel reads of the given sizes."""
    head = session if session[-1]["role"] == "user" else session[:-1]
    uses = [tool_use(f"toolu_big{j}", "read_file", {"path": f"data/big{j}.txt"}) for j in range(len(sizes))]
    results = [tool_result(f"toolu_big{j}", f"<{j}>" + "y" * n) for j, n in enumerate(sizes)]
    return [*head, assistant(text("Reading the data files."), *uses), user(*results)]


def _sessions() -> list[list[dict]]:
    return course_sessions()


# ---------------------------------------------------------------- chapter 06: the chapter's pipeline

# (max_chars, max_messages, keep_to, micro_at, clear_at_least)
SETTINGS = [(10_000, 40, 24, 3_000, 500), (200_000, 50, 30, 100_000, 500), (2_000, 20, 12, 0, 0)]


def pipeline_reference(
    messages: list[dict],
    store: OutputStore,
    *,
    max_chars: int,
    max_messages: int,
    keep_to: int,
    micro_at: int,
    clear_at_least: int,
) -> list[dict]:
    """Budget always; snip to keep_to past max_messages; micro past micro_at if it frees clear_at_least."""
    messages = tool_result_budget(messages, max_chars=max_chars, store=store)
    if len(messages) > max_messages:
        messages = snip_compact(messages, max_messages=keep_to)
    tokens = estimate_tokens(messages, "tiktoken")
    if tokens > micro_at:
        cleared = micro_compact(messages)
        if tokens - estimate_tokens(cleared, "tiktoken") >= clear_at_least:
            messages = cleared
    return messages


def _pipeline_case(fn: Callable, name: str, messages: list[dict], settings: tuple) -> None:
    keys = ("max_chars", "max_messages", "keep_to", "micro_at", "clear_at_least")
    kwargs = dict(zip(keys, settings, strict=True))
    where = f"{name}, " + ", ".join(f"{k}={v:,}" for k, v in kwargs.items())
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        given = copy.deepcopy(messages)
        got = fn(given, OutputStore(Path(a)), **kwargs)
        want = pipeline_reference(messages, OutputStore(Path(b)), **kwargs)
        assert given == messages, say("{where}: the input list was changed", where=where)
        assert_same_messages(got, want, where)
        mine = sorted(p.read_text() for p in Path(a).rglob("*") if p.is_file())
        theirs = sorted(p.read_text() for p in Path(b).rglob("*") if p.is_file())
        assert mine == theirs, say(
            "{where}: {n} outputs on disk, expected {m}", where=where, n=len(mine), m=len(theirs)
        )


def check_pipeline(pipeline: Callable) -> CheckReport:
    """Chapter 06: budget -> snip -> micro on their triggers, like the reference, outputs on disk."""
    cases = []
    for k, s in enumerate(_sessions(), start=1):
        grown = [s[:n] for n in range(1, len(s) + 1, 10)] + [
            with_parallel_outputs(s, [BIG, 300, 2_300, 300, 300])
        ]
        cases.append(
            (
                f"session {k}, growing, {len(SETTINGS)} settings",
                lambda g=grown, k=k: [
                    _pipeline_case(pipeline, f"session {k}, {len(m)} messages", m, x)
                    for m in g
                    for x in SETTINGS
                ],
            )
        )
    s = with_parallel_outputs(_sessions()[0], [BIG, 300, 2_300, 300, 300])
    tokens = estimate_tokens(s, "tiktoken")
    freed = tokens - estimate_tokens(micro_compact(s), "tiktoken")
    cases += [
        (
            "exactly max_messages: no snip",
            lambda: _pipeline_case(pipeline, "parallel", s, (10**6, len(s), 20, 10**6, 0)),
        ),
        (
            "exactly micro_at: no micro (>, not >=)",
            lambda: _pipeline_case(pipeline, "parallel", s, (10**6, 500, 20, tokens, 0)),
        ),
        (
            "frees exactly clear_at_least: micro",
            lambda: _pipeline_case(pipeline, "parallel", s, (10**6, 500, 20, 0, freed)),
        ),
        (
            "one token short of clear_at_least: no micro",
            lambda: _pipeline_case(pipeline, "parallel", s, (10**6, 500, 20, 0, freed + 1)),
        ),
    ]
    return run_cases("pipeline", cases)


# ---------------------------------------------------------------- chapter 06, exercise 1: cache cost

# 5-minute cache writes and cache reads, as multiples of the base input price at the default model
# (one home: its row of compaction.core.models, through compaction.core.models.PRICE)
WRITE, READ = CACHE_WRITE, CACHE_READ


def cache_cost_reference(requests: list[list[dict]], method: str = "tiktoken") -> float:
    """Input cost in base-price tokens: the prefix shared with the request before read, the rest written."""
    total, before = 0.0, []
    for request in requests:
        shared = shared_prefix(before, request)
        tokens = [message_tokens(m, method) for m in request]
        total += READ * sum(tokens[:shared]) + WRITE * sum(tokens[shared:])
        before = request
    return total


def _first_wrong_request(fn: Callable, requests: list[list[dict]]) -> str:
    """The first request whose added cost differs, with the rule that prices it."""
    before_got = before_want = 0.0
    for k in range(1, len(requests) + 1):
        try:
            got = fn(copy.deepcopy(requests[:k]))
        except Exception:  # noqa: BLE001 - the diagnosis is a hint; the row already failed
            return ""
        want = cache_cost_reference(requests[:k])
        if not isinstance(got, (int, float)) or abs(got - want) < 1e-6:
            before_got, before_want = got, want
            continue
        added, expected = got - before_got, want - before_want
        if k == 1:
            rule = say(
                "nothing is cached before the first request, so all its tokens are written ({write}x)",
                write=f"{WRITE:g}",
            )
        else:
            shared = shared_prefix(requests[k - 2], requests[k - 1])
            rule = say(
                "its first {shared} of {n} messages are the previous request's, read "
                "({read}x); the shared prefix stops at the first message that differs, every message "
                "after it is written ({write}x)",
                shared=shared,
                n=len(requests[k - 1]),
                read=f"{READ:g}",
                write=f"{WRITE:g}",
            )
        return say(
            "; request {k} adds {added}, expected {expected}: {rule}",
            k=k - 1,
            added=f"{added:,.1f}",
            expected=f"{expected:,.1f}",
            rule=rule,
        )
    return ""


def _cost(fn: Callable, requests: list[list[dict]], what: str) -> None:
    got, want = fn(copy.deepcopy(requests)), cache_cost_reference(requests)
    assert isinstance(got, (int, float)), say(
        "{what}: return a number, got {kind}", what=what, kind=type(got).__name__
    )
    if abs(got - want) >= 1e-6:
        raise AssertionError(
            say("{what}: expected {want}, got {got}", what=what, want=f"{want:,.1f}", got=f"{got:,.1f}")
            + _first_wrong_request(fn, requests)
        )


def check_cache_cost(cache_cost: Callable) -> CheckReport:
    """Exercise 1: what a session's input costs with a prompt cache, in base-price tokens."""
    cases = []
    for k, s in enumerate(_sessions(), start=1):
        grown = requests_of(s, list)
        every = requests_of(s, micro_compact)
        cases.append(
            (
                f"session {k}: appending only",
                lambda r=grown, k=k: _cost(cache_cost, r, f"session {k}, appending"),
            )
        )
        cases.append(
            (
                f"session {k}: micro on every call",
                lambda r=every, k=k: _cost(cache_cost, r, f"session {k}, micro"),
            )
        )
    task = [user("Fix the failing test.")]
    cases += [
        ("no requests cost nothing", lambda: _cost(cache_cost, [], "no requests")),
        ("the first request is all written", lambda: _cost(cache_cost, [task], "one request")),
        ("the same request twice is read", lambda: _cost(cache_cost, [task, task], "twice")),
    ]
    return run_cases("cache_cost", cases)


# ---------------------------------------------------------------- chapter 06, exercise 2: orders

ORDER_SETTINGS = {"max_chars": 10_000, "max_messages": 200, "keep_recent": 3}
LARGE = 2_000 + MARKER_OVERHEAD  # a result longer than this is one the budget would persist


def where_large_outputs_are(messages: list[dict], order: tuple[str, ...]) -> dict[str, str]:
    """For one order, each large result of the newest message (by id): "list", "store" or "lost"."""
    newest = {
        b["tool_use_id"]: text_of(b["content"])
        for b in messages[-1]["content"]
        if b.get("type") == "tool_result" and len(text_of(b["content"])) > LARGE
    }
    with tempfile.TemporaryDirectory() as root:
        out, store = list(messages), OutputStore(Path(root))
        for layer in order:
            if layer == "budget":
                out = tool_result_budget(out, max_chars=ORDER_SETTINGS["max_chars"], store=store)
            elif layer == "snip":
                out = snip_compact(out, max_messages=ORDER_SETTINGS["max_messages"])
            else:
                out = micro_compact(out, keep_recent=ORDER_SETTINGS["keep_recent"])
        kept = {
            text_of(b["content"])
            for m in out
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "tool_result"
        }
        on_disk = {p.read_text() for p in Path(root).rglob("*") if p.is_file()}
    return {i: "list" if r in kept else "store" if r in on_disk else "lost" for i, r in newest.items()}


def losing_orders_reference(messages: list[dict]) -> list[tuple[str, ...]]:
    """The orders of budget, snip and micro after which a large result of the newest message is nowhere whole.

    Large: longer than a marker (``LARGE`` characters), so budget would have kept it on disk; micro
    clearing a small result is by design (it can be run again, and the transcript keeps it).
    """
    return [
        order
        for order in itertools.permutations(("budget", "snip", "micro"))
        if "lost" in where_large_outputs_are(messages, order).values()
    ]


def _fate(messages: list[dict], order: tuple[str, ...]) -> str:
    """One order's large outputs in words: "toolu_x (40,000 chars) lost", "... found in the store"."""
    sizes = {
        b["tool_use_id"]: len(text_of(b["content"]))
        for b in messages[-1]["content"]
        if b.get("type") == "tool_result"
    }
    places = where_large_outputs_are(messages, order)
    return ", ".join(say(FATES[at], i=i, n=f"{sizes[i]:,}") for i, at in places.items()) or say(
        "no large output"
    )


FATES = {  # where_large_outputs_are's answer about one output, in words
    "lost": "{i} ({n} chars) lost: in neither the list nor the store",
    "list": "{i} ({n} chars) found in the list",
    "store": "{i} ({n} chars) found in the store",
}


def _orders(fn: Callable, messages: list[dict], what: str) -> None:
    got, want = fn(copy.deepcopy(messages)), losing_orders_reference(messages)
    if not isinstance(got, list):
        raise AssertionError(
            say(
                "{what}: expected a list of orders (tuples of layer names), got {got}",
                what=what,
                got=repr(got),
            )
        )
    untupled = [o for o in got if not isinstance(o, tuple)]
    if untupled:
        raise AssertionError(
            say(
                "{what}: each order must be a tuple, as itertools.permutations gives it; {order} is a {kind}",
                what=what,
                order=repr(untupled[0]),
                kind=type(untupled[0]).__name__,
            )
        )
    got = sorted(got)
    twice = sorted({o for o in got if got.count(o) > 1})
    missing = [o for o in want if o not in got]
    extra = [o for o in got if o not in want]
    rows = [
        say(
            "order {order} loses an output, your list leaves it out: {fate}",
            order=" -> ".join(o),
            fate=_fate(messages, o),
        )
        for o in missing
    ]
    rows += [
        say(
            "order {order} is in your list, but loses nothing: {fate}",
            order=" -> ".join(o),
            fate=_fate(messages, o),
        )
        if len(o) == 3 and set(o) == {"budget", "snip", "micro"}
        else say("{order} is not an order of budget, snip and micro", order=repr(o))
        for o in extra
    ]
    rows += [say("order {order} is in your list more than once", order=repr(o)) for o in twice]
    hint = (
        say(
            " (if one OutputStore served every order: a store shared between orders"
            " already holds the file an earlier order saved)"
        )
        if missing
        else ""
    )
    assert not rows, f"{what}: " + "; ".join(rows) + hint


def check_losing_orders(losing_orders: Callable) -> CheckReport:
    """Exercise 2: which of the six orders lose a result of the newest message for good."""
    s = _sessions()[0]
    return run_cases(
        "losing_orders",
        [
            (
                "one large output among five",
                lambda: _orders(
                    losing_orders, with_parallel_outputs(s, [BIG, 300, 2_300, 300, 300]), "one large"
                ),
            ),
            (
                "the large output last",
                lambda: _orders(
                    losing_orders, with_parallel_outputs(s, [300, 2_300, 300, 300, BIG]), "large last"
                ),
            ),
            (
                "only small outputs: no order loses",
                lambda: _orders(losing_orders, with_parallel_outputs(s, [300, 300]), "small"),
            ),
            (
                "two large outputs",
                lambda: _orders(losing_orders, with_parallel_outputs(s, [BIG, BIG, 300, 300]), "two large"),
            ),
        ],
    )


# ---------------------------------------------------------------- chapter 08, exercise 1

WINDOWS = [200_000, 1_000_000, 100_000, 32_000, 8_000, 4_000, 1_000]


def _threshold_case(fn: Callable, *args) -> None:
    try:
        want = summary_threshold(*args)
    except ValueError:
        try:
            got = fn(*args)
        except ValueError:
            return
        raise AssertionError(
            say(
                "summary_threshold{args}: expected a ValueError (no room left), got {got}", args=args, got=got
            )
        ) from None
    got = fn(*args)
    assert got == want, say(
        "summary_threshold{args}: expected {want}, got {got}", args=args, want=f"{want:,}", got=repr(got)
    )


def check_summary_threshold(fn: Callable) -> CheckReport:
    """Exercise: the threshold, identical to the package's for default and given reserves and buffers."""
    cases = [(f"window {w:,}", lambda w=w: _threshold_case(fn, w)) for w in WINDOWS]
    cases += [
        ("explicit reserve and buffer", lambda: _threshold_case(fn, 10_000, 1_000, 500)),
        ("a buffer of zero is a buffer", lambda: _threshold_case(fn, 10_000, 1_000, 0)),
        ("no room left is a ValueError", lambda: _threshold_case(fn, 1_000, 900, 200)),
    ]
    return run_cases("summary_threshold", cases)


# ---------------------------------------------------------------- chapter 10, exercise


def reserve_from_answers(output_tokens: list[int], allowed_over: int = 0) -> int:
    """The smallest reserve that at most ``allowed_over`` observed answers exceed; ValueError on bad input."""
    if allowed_over < 0:
        raise ValueError(f"allowed_over must be 0 or more, got {allowed_over}")
    if not output_tokens:
        raise ValueError("no answers observed")
    candidates = sorted({0, *output_tokens})
    return next(r for r in candidates if sum(1 for n in output_tokens if n > r) <= allowed_over)


def _reserve_case(fn: Callable, sizes: list[int], allowed_over: int) -> None:
    before = list(sizes)
    want = reserve_from_answers(sizes, allowed_over)
    got = fn(sizes, allowed_over)
    assert sizes == before, say("the list of answers was changed; leave it as it was")
    boundary = ""
    distinct = sorted(set(sizes), reverse=True)
    if isinstance(got, int) and got > want and sum(1 for n in sizes if n >= want) > allowed_over:
        boundary = say(
            " (the boundary case: an answer of exactly {want} tokens fits the reserve, <=)", want=f"{want:,}"
        )
    elif got != want and got == (distinct[allowed_over] if allowed_over < len(distinct) else 0):
        boundary = say(
            " (answers of the same size were counted once; each answer above the reserve counts, "
            "so do not remove repeated sizes)"
        )
    assert got == want, say(
        "answers {sizes}, allowed_over={allowed_over}: expected {want}, got {got}{boundary}",
        sizes=sizes,
        allowed_over=allowed_over,
        want=f"{want:,}",
        got=repr(got),
        boundary=boundary,
    )


def _reserve_error(fn: Callable, sizes: list[int], allowed_over: int) -> None:
    try:
        got = fn(sizes, allowed_over)
    except ValueError:
        return
    raise AssertionError(
        say(
            "answers {sizes}, allowed_over={allowed_over}: expected a ValueError, got {got}",
            sizes=sizes,
            allowed_over=allowed_over,
            got=repr(got),
        )
    )


def _random_answers(seed: int) -> tuple[list[int], int]:
    rng = random.Random(seed)
    sizes = [rng.choice([rng.randint(1, 400), rng.randint(1, 4_096)]) for _ in range(rng.randint(1, 30))]
    sizes += rng.sample(sizes, k=min(3, len(sizes)))  # repeated sizes, so ties are common
    return sizes, rng.randint(0, len(sizes) + 1)


def check_reserve_from_answers(fn: Callable) -> CheckReport:
    """Exercise: the reserve chosen from observed answer sizes, identical to the reference."""
    cases = [
        ("allowed_over=0: the largest answer", lambda: _reserve_case(fn, [120, 4_096, 300], 0)),
        ("allowed_over=1: the second largest", lambda: _reserve_case(fn, [120, 800, 300, 2_000], 1)),
        (
            "an answer of exactly the reserve fits (the boundary, <=)",
            lambda: _reserve_case(fn, [500, 300, 200], 1),
        ),
        ("two answers of the same size both count", lambda: _reserve_case(fn, [500, 500, 200], 1)),
        ("more allowed over than answers: no reserve", lambda: _reserve_case(fn, [10, 20], 5)),
        ("as many allowed over as answers: no reserve", lambda: _reserve_case(fn, [10, 20], 2)),
        ("no answers is a ValueError", lambda: _reserve_error(fn, [], 0)),
        ("a negative allowed_over is a ValueError", lambda: _reserve_error(fn, [10], -1)),
    ]
    cases.append(
        (
            "200 seeded lists of answers, ties included",
            lambda: [_reserve_case(fn, *_random_answers(seed)) for seed in range(200)],
        )
    )
    return run_cases("reserve_from_answers", cases)
