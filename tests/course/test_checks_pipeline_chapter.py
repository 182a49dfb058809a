"""Chapter 06's checks: right answers written differently pass; stubs and known-wrong answers fail."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import pytest

from compaction.core.messages import shared_prefix, text_of
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens, message_tokens
from compaction.course.checks import pipeline as checks
from compaction.layers.budget import Budget, tool_result_budget
from compaction.layers.micro import Micro, micro_compact
from compaction.layers.snip import Snip, snip_compact
from compaction.layers.triggers import summary_threshold
from compaction.pipeline.compactor import Compactor
from tests.check_cases import check_tests

# ---------------------------------------------------------------- right answers, written differently


def pipeline_by_steps(messages, store, *, max_chars, max_messages, keep_to, micro_at, clear_at_least):
    """The same triggers, each pass as a (test, layer) pair."""
    out = tool_result_budget(messages, max_chars=max_chars, store=store)
    out = snip_compact(out, max_messages=keep_to) if len(out) > max_messages else out
    before = estimate_tokens(out, "tiktoken")
    candidate = micro_compact(out) if before > micro_at else out
    return candidate if before - estimate_tokens(candidate, "tiktoken") >= clear_at_least else out


def cache_cost_by_prefix(requests):
    total, before = 0.0, []
    for request in requests:
        k = shared_prefix(before, request)
        costs = [message_tokens(m, "tiktoken") for m in request]
        total += checks.READ * sum(costs[:k]) + checks.WRITE * sum(costs[k:])
        before = request
    return total


def losing_orders_by_names(messages):
    big = [
        text_of(b["content"]) for b in messages[-1]["content"] if len(text_of(b["content"])) > checks.LARGE
    ]
    found = []
    for order in itertools.permutations(("budget", "snip", "micro")):
        with tempfile.TemporaryDirectory() as root:
            store, out = OutputStore(Path(root)), messages
            for layer in order:
                out = {
                    "budget": lambda m, s=store: tool_result_budget(m, max_chars=10_000, store=s),
                    "snip": lambda m: snip_compact(m, max_messages=200),
                    "micro": lambda m: micro_compact(m, keep_recent=3),
                }[layer](out)
            text = str(out)
            disk = "".join(p.read_text() for p in Path(root).rglob("*") if p.is_file())
            if any(r not in disk and repr(r)[1:-1] not in text for r in big):
                found.append(order)
    return found


# ---------------------------------------------------------------- known-wrong answers


def micro_first(messages, store, *, max_chars, max_messages, keep_to, micro_at, clear_at_least):
    out = micro_compact(messages) if estimate_tokens(messages, "tiktoken") > micro_at else messages
    out = tool_result_budget(out, max_chars=max_chars, store=store)
    return snip_compact(out, max_messages=keep_to) if len(out) > max_messages else out


def micro_at_inclusive(messages, store, *, max_chars, max_messages, keep_to, micro_at, clear_at_least):
    return checks.pipeline_reference(
        messages,
        store,
        max_chars=max_chars,
        max_messages=max_messages,
        keep_to=keep_to,
        micro_at=micro_at - 1,
        clear_at_least=clear_at_least,
    )


def batch_strict(messages, store, *, max_chars, max_messages, keep_to, micro_at, clear_at_least):
    return checks.pipeline_reference(
        messages,
        store,
        max_chars=max_chars,
        max_messages=max_messages,
        keep_to=keep_to,
        micro_at=micro_at,
        clear_at_least=clear_at_least + 1,
    )


def cuts_to_max_messages(messages, store, *, max_chars, max_messages, keep_to, micro_at, clear_at_least):
    return checks.pipeline_reference(
        messages,
        store,
        max_chars=max_chars,
        max_messages=max_messages,
        keep_to=max_messages,
        micro_at=micro_at,
        clear_at_least=clear_at_least,
    )


def cost_without_cache(requests):
    return sum(message_tokens(m, "tiktoken") for r in requests for m in r)


def cost_appends_as_writes_only(requests):
    """Reads nothing: every request written whole."""
    return checks.WRITE * cost_without_cache(requests)


def cost_prefix_off_by_one(requests):
    total, before = 0.0, []
    for request in requests:
        k = max(0, shared_prefix(before, request) - 1)
        costs = [message_tokens(m, "tiktoken") for m in request]
        total += checks.READ * sum(costs[:k]) + checks.WRITE * sum(costs[k:])
        before = request
    return total


def cost_zip_sum(requests):
    """Counts every equal pair of messages as read, not only the leading ones."""
    total, before = 0.0, []
    for request in requests:
        for k, m in enumerate(request):
            same = k < len(before) and before[k] == m
            total += (checks.READ if same else checks.WRITE) * message_tokens(m, "tiktoken")
        before = request
    return total


def cost_first_request_free(requests):
    """Prices each request against the one before it, but skips the first: nothing before it."""
    return (
        cache_cost_by_prefix(requests)
        - checks.WRITE * sum(message_tokens(m, "tiktoken") for m in requests[0])
        if (requests)
        else 0.0
    )


def losing_orders_shared_store(messages):
    """One store for all six orders: a later order finds the file an earlier one saved."""
    with tempfile.TemporaryDirectory() as root:
        store, found = OutputStore(Path(root)), []
        big = [
            text_of(b["content"])
            for b in messages[-1]["content"]
            if len(text_of(b["content"])) > checks.LARGE
        ]
        for order in itertools.permutations(("budget", "snip", "micro")):
            out = messages
            for layer in order:
                out = {
                    "budget": lambda m: tool_result_budget(m, max_chars=10_000, store=store),
                    "snip": lambda m: snip_compact(m, max_messages=200),
                    "micro": lambda m: micro_compact(m, keep_recent=3),
                }[layer](out)
            kept = {
                text_of(b["content"])
                for m in out
                if isinstance(m["content"], list)
                for b in m["content"]
                if b.get("type") == "tool_result"
            }
            disk = {p.read_text() for p in Path(root).rglob("*") if p.is_file()}
            if any(r not in kept and r not in disk for r in big):
                found.append(order)
    return found


def every_order_with_micro_loses(messages):
    return [
        o for o in itertools.permutations(("budget", "snip", "micro")) if o.index("micro") < o.index("budget")
    ]


def only_micro_first_loses(messages):
    return [o for o in checks.losing_orders_reference(messages) if o[0] == "micro"]


def losing_orders_as_lists(messages):
    """The right orders, each a list where a tuple is asked for."""
    return [list(o) for o in checks.losing_orders_reference(messages)]


def losing_orders_as_a_set(messages):
    """The right orders, in a set where a list is asked for."""
    return set(checks.losing_orders_reference(messages))


CASES = [
    (
        checks.check_pipeline,
        checks.pipeline_reference,
        [micro_first, micro_at_inclusive, batch_strict, cuts_to_max_messages],
    ),
    (
        checks.check_cache_cost,
        checks.cache_cost_reference,
        [
            cost_without_cache,
            cost_appends_as_writes_only,
            cost_prefix_off_by_one,
            cost_zip_sum,
            cost_first_request_free,
        ],
    ),
    (
        checks.check_losing_orders,
        checks.losing_orders_reference,
        [
            every_order_with_micro_loses,
            only_micro_first_loses,
            losing_orders_shared_store,
            losing_orders_as_lists,
            losing_orders_as_a_set,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


@pytest.mark.parametrize(
    ("check", "answer"),
    [
        (checks.check_pipeline, pipeline_by_steps),
        (checks.check_cache_cost, cache_cost_by_prefix),
        (checks.check_losing_orders, losing_orders_by_names),
    ],
    ids=["pipeline_by_steps", "cache_cost_by_prefix", "losing_orders_by_names"],
)
def test_a_right_answer_written_differently_passes(check, answer):
    report = check(answer)
    assert report.passed, str(report)


def test_the_reference_is_the_compactor_without_summary(tmp_path):
    window = 8_000
    for session in [
        checks._sessions()[0],
        checks.with_parallel_outputs(checks._sessions()[0], [checks.BIG, 300]),
    ]:
        for n in range(5, len(session) + 1, 12):
            store = OutputStore(tmp_path / "store", base=tmp_path)
            layers = [Budget(max_chars=8_000), Snip(max_messages=40, keep_to=24), Micro()]
            compactor = Compactor(layers, store=store, context_window=window)
            want = compactor.prepare(session[:n])
            got = checks.pipeline_reference(
                session[:n],
                store,
                max_chars=8_000,
                max_messages=40,
                keep_to=24,
                micro_at=summary_threshold(window) // 2,
                clear_at_least=window // 40,
            )
            assert got == want


def test_the_zip_sum_slip_is_told_the_prefix_stops_at_the_first_difference():
    report = checks.check_cache_cost(cost_zip_sum)
    assert not report.passed
    assert "the shared prefix stops at the first message that differs" in str(report)


def test_an_unpriced_first_request_is_told_so_not_blamed_on_the_prefix():
    report = checks.check_cache_cost(cost_first_request_free)
    assert not report.passed and "request 0 adds" in str(report)
    assert "nothing is cached before the first request" in str(report)
    assert "shared prefix" not in str(report)


def test_a_shared_store_is_told_it_already_holds_the_file():
    report = checks.check_losing_orders(losing_orders_shared_store)
    assert not report.passed
    assert "a store shared between orders already holds the file" in str(report)


def test_a_losing_order_row_names_the_order_the_output_and_where_it_is():
    report = str(checks.check_losing_orders(only_micro_first_loses))
    assert "order snip -> micro -> budget loses an output, your list leaves it out: toolu_" in report
    assert "chars) lost: in neither the list nor the store" in report
    assert "expected [" not in report


def test_an_order_that_loses_nothing_says_where_the_output_was_found():
    report = str(checks.check_losing_orders(every_order_with_micro_loses))
    assert "is in your list, but loses nothing: toolu_" in report
    assert "found in the list" in report or "found in the store" in report


def test_orders_given_as_lists_are_told_to_be_tuples():
    report = checks.check_losing_orders(losing_orders_as_lists)
    rows = [r.detail for r in report.failures]
    assert rows and all(
        "each order must be a tuple, as itertools.permutations gives it" in r for r in rows
    ), rows
    assert "['snip', 'micro', 'budget'] is a list" in rows[0], rows
    assert "a list of orders" in str(checks.check_losing_orders(losing_orders_as_a_set))
