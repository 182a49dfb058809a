"""Prompt-cache pricing: reads and writes at the default model's multiples; a change re-writes the rest."""

from __future__ import annotations

import copy
import random

import pytest

from compaction.core.messages import assistant, user
from compaction.core.placeholders import cleared_placeholder, clearing_frontier
from compaction.evaluate.cost import (
    CACHE_READ,
    CACHE_WRITE,
    Fingerprints,
    Prefixes,
    Prices,
    Request,
    Tokens,
    price,
)

A, B, C, D, S = ({"n": n} for n in (100, 20, 30, 40, 7))


def tokens(message):
    return message["n"]


def req(*messages, framing=0, summary=False):
    return Request(tuple(messages), framing, "k", summary)


def test_the_published_multipliers():
    assert (CACHE_WRITE, CACHE_READ) == (1.25, 0.05)  # Claude Sonnet 5.5's row: the pricing page


def test_an_appended_turn_reads_the_prefix_and_writes_only_what_is_new():
    cost = price([req(A), req(A, B), req(A, B, C)], tokens)
    assert (cost.read, cost.written, cost.sent, cost.breaks) == (100 + 120, 150, 100 + 120 + 150, 0)
    assert cost.units == pytest.approx(0.05 * 220 + 1.25 * 150)
    assert cost.per_request == pytest.approx([125.0, 0.05 * 100 + 25, 0.05 * 120 + 37.5])


def test_changing_an_earlier_message_breaks_the_cache_from_there():
    changed = {"n": 5}  # B replaced by a placeholder
    cost = price([req(A), req(A, B), req(A, changed, C)], tokens)
    assert cost.breaks == 1
    assert cost.rewritten == 5 + 30  # everything after the change is written again
    assert cost.read == 100 + 100  # request 3 reads back only the entry of request 1


def test_the_system_prompt_and_tools_are_written_once_then_read():
    cost = price([req(A, framing=50), req(A, B, framing=50)], tokens)
    assert (cost.read, cost.written) == (50 + 100, 50 + 100 + 20)


def test_a_summary_request_is_priced_but_is_no_break():
    cost = price([req(A), req(A, B), req(A, {"n": 60}, summary=True), req(S, C)], tokens)
    assert cost.breaks == 1  # only the agent request after the summary
    assert cost.read == 100 + 100  # request 2 and the summary request read the entry of request 1
    assert cost.requests == 4


def brute_force_hits(requests):
    """The longest earlier request (same framing) each request starts with, by comparing with all."""
    hits = []
    for i, request in enumerate(requests):
        starts = [
            len(e.messages)
            for e in requests[:i]
            if e.key == request.key
            and len(e.messages) <= len(request.messages)
            and list(e.messages) == list(request.messages[: len(e.messages)])
        ]
        hits.append(max(starts, default=0))
    return hits


def test_the_prefix_index_finds_the_same_entries_as_comparing_with_every_earlier_request():
    rnd = random.Random(7)
    session = [user("task")] + [m for i in range(30) for m in (assistant(f"step {i}"), user(f"result {i}"))]
    requests = []
    for end in range(1, len(session) + 1, 2):
        sent = [copy.deepcopy(m) for m in session[:end]]  # equal messages, never the same objects
        if end > 5 and rnd.random() < 0.3:  # a layer rewrote one earlier message
            k = rnd.randrange(1, end - 1)
            sent[k] = {**sent[k], "content": "[cleared]"}
        requests.append(Request(tuple(sent), 50, rnd.choice("ab")))
    counter, index, prints = Tokens(), Prefixes(), Fingerprints()
    found = []
    for request in requests:
        digests = [prints(m) for m in request.messages]
        found.append(index.longest(request.key, digests)[0])
        index.add(request.key, digests)
    assert found == brute_force_hits(requests)
    expected_read = sum(
        sum(counter(m) for m in r.messages[:hit]) for r, hit in zip(requests, found, strict=True)
    )
    framings = sum(50 for i, r in enumerate(requests) if r.key in {q.key for q in requests[:i]})
    cost = price(requests, counter)
    assert cost.read == expected_read + framings
    # request by request: the incremental walk (shared messages reused) agrees with the brute force
    for i, (request, hit) in enumerate(zip(requests, found, strict=True)):
        sizes = [counter(m) for m in request.messages]
        framed = request.key in {q.key for q in requests[:i]}
        read, written = sum(sizes[:hit]) + 50 * framed, sum(sizes[hit:]) + 50 * (not framed)
        assert cost.per_request[i] == pytest.approx(CACHE_READ * read + CACHE_WRITE * written), i


def result(name, n, cleared=False):
    """A user message holding one tool result of ``n`` tokens, or its placeholder."""
    content = cleared_placeholder("read_file", {"path": name}) if cleared else f"the text of {name}"
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": name, "content": content}],
        "n": n,
    }


def test_the_clearing_frontier_is_the_end_of_the_last_cleared_result():
    call = {"role": "assistant", "content": "reading", "n": 5}
    whole = [user("go") | {"n": 10}, call, result("a", 300), call, result("b", 300), call, result("c", 300)]
    assert clearing_frontier(whole) == 0  # nothing cleared
    one = [*whole[:2], result("a", 20, cleared=True), *whole[3:]]
    assert clearing_frontier(one) == 3  # through the message of the placeholder
    both = {**one[4], "content": [*one[2]["content"], *whole[4]["content"]]}  # cleared beside whole
    assert clearing_frontier([*one[:4], both]) == 4  # the next change can start in that message
    assert clearing_frontier(one, start=3, known=3) == 3 and clearing_frontier(whole, start=7, known=2) == 2


def test_a_second_clearing_reads_up_to_the_frontier_of_the_first():
    call = {"role": "assistant", "content": "reading", "n": 5}
    whole = [user("go") | {"n": 10}, call, result("a", 300), call, result("b", 300), call, result("c", 300)]
    first = [*whole[:2], result("a", 20, cleared=True), *whole[3:]]  # a cleared: a break at message 2
    second = [*first[:4], result("b", 20, cleared=True), *whole[5:]]  # then b: a break at message 4
    cost = price([req(*whole), req(*first), req(*first, call), req(*second, call)], tokens)
    assert cost.breaks == 2
    # without the frontier's entry the second clearing would read only what request 1 cached up to
    # message 2 (nothing but the user's message); with it, it reads through the first placeholder
    assert cost.per_request[3] == pytest.approx(0.05 * (10 + 5 + 20) + 1.25 * (5 + 20 + 5 + 300 + 5))


def test_the_priced_reads_match_every_earlier_end_and_frontier_compared_one_by_one():
    """Random sessions cleared oldest first, on two framings: the incremental scan agrees with brute force."""
    rnd = random.Random(11)
    call = {"role": "assistant", "content": "reading", "n": 5}
    for _ in range(20):
        sent, cleared, requests = [user("go") | {"n": 10}], 0, []
        for turn in range(25):
            sent = [*sent, call, result(f"r{turn}", rnd.randrange(20, 400))]
            results = [
                i for i, m in enumerate(sent) if m["role"] == "user" and isinstance(m["content"], list)
            ]
            if rnd.random() < 0.3 and cleared < len(results) - 1:  # clear the oldest whole ones
                upto = rnd.randrange(cleared + 1, len(results))
                for i in results[cleared:upto]:
                    sent[i] = result(sent[i]["content"][0]["tool_use_id"], 15, cleared=True)
                cleared = upto
            requests.append(Request(tuple(copy.deepcopy(sent)), 40, rnd.choice("ab")))
        entries: list[tuple[str, tuple]] = []  # (key, the messages an earlier entry covers)
        expected = []
        for r in requests:
            starts = [len(m) for key, m in entries if key == r.key and list(m) == list(r.messages[: len(m)])]
            hit = max(starts, default=0)
            expected.append(sum(tokens(m) for m in r.messages[:hit]))
            frontier = clearing_frontier(r.messages)
            entries += [(r.key, r.messages)] + ([(r.key, r.messages[:frontier])] if frontier else [])
        framed = [r.key in {q.key for q in requests[:i]} for i, r in enumerate(requests)]
        assert price(requests, tokens).read == sum(expected) + 40 * sum(framed)


def growing(n=6, size=400):
    """``n`` requests, each the one before with one message of ``size`` words appended."""
    messages = [user(f"message {i} " * size) for i in range(n)]
    return [Request(tuple(messages[: i + 1]), 0, "k") for i in range(n)]


def test_a_read_multiplier_of_a_tenth_prices_the_same_reads_twice_as_dear():
    requests = growing()
    default, tenth = price(requests), price(requests, prices=Prices(read=0.1))
    assert (tenth.read, tenth.written) == (default.read, default.written)  # the same traffic
    assert tenth.units - default.units == pytest.approx((0.1 - CACHE_READ) * default.read)
    assert tenth.units == pytest.approx(0.1 * tenth.read + CACHE_WRITE * tenth.written)


def test_an_entry_expires_when_the_pace_leaves_it_unused_longer_than_its_lifetime():
    requests = growing()
    for pace, expired in ((299, 0), (300, 0), (301, len(requests) - 1)):  # the boundary: 300 s still lives
        cost = price(requests, prices=Prices(lifetime=300, pace=pace))
        assert cost.expired == expired, pace
    never = price(requests)
    gone = price(requests, prices=Prices(lifetime=300, pace=301))
    assert gone.read == 0 and gone.written == never.read + never.written  # every request writes all again
    assert price(requests, prices=Prices(lifetime=300, pace=60)).units == pytest.approx(never.units)


def test_a_read_refreshes_an_entry_so_it_outlives_its_first_lifetime():
    a, b, c, x = (user(f"{w} " * 300) for w in "abcx")
    requests = [Request((a, b), 0, "k"), Request((a, b, c), 0, "k"), Request((a, b, x), 0, "k")]
    tokens = Tokens()
    cost = price(requests, tokens, Prices(lifetime=300, pace=200))
    # (a, b) was written at 0 s and read at 200 s: at 400 s it is 200 s from its last use, not 400
    read_ab = CACHE_READ * (tokens(a) + tokens(b))
    assert cost.per_request[2] == pytest.approx(read_ab + CACHE_WRITE * tokens(x))
    never_read = price([requests[0], requests[2]], tokens, Prices(lifetime=300, pace=400))
    assert never_read.per_request[1] == pytest.approx(CACHE_WRITE * (tokens(a) + tokens(b) + tokens(x)))


@pytest.mark.parametrize("bad", [{"read": -0.1}, {"lifetime": 0}, {"pace": -1}])
def test_impossible_prices_are_refused_naming_them(bad):
    with pytest.raises(ValueError, match="non-negative"):
        Prices(**bad)
