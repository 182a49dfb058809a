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
    DEFAULT_PRICES,
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


def reference_cost(requests, tokens, prices=DEFAULT_PRICES):
    """The cache model of ``cost`` computed the slow way: every request against every earlier entry.

    With a lifetime, an entry is alive when it was written or read at most that long ago (request i
    is sent at ``i * prices.pace``), and a read refreshes it; the clearing frontier's entry is written
    when the frontier moved since the last request of the same framing (or that request's frontier
    is not all in the messages the two share), not refreshed by every request that marks it.
    """
    digest = Fingerprints()
    entries, framings, cost, previous = [], {}, {"read": 0, "written": 0, "breaks": 0, "rewritten": 0}, None
    last: dict[str, tuple] = {}  # framing key -> (messages, clearing frontier) of its last request
    per_request = []

    def alive(used, now):
        return prices.lifetime is None or now - used <= prices.lifetime

    for i, r in enumerate(requests):
        now = i * prices.pace
        prints = [digest(m) for m in r.messages]
        sizes = [tokens(m) for m in r.messages]
        matching = [e for e in entries if e[0] == r.key and prints[: len(e[1])] == e[1] and alive(e[2], now)]
        hit = max((len(e[1]) for e in matching), default=0)
        for e in matching:
            if len(e[1]) == hit:
                e[2] = now  # the read refreshes it
        framed = r.key in framings and alive(framings[r.key], now)
        read = sum(sizes[:hit]) + (r.framing if framed else 0)
        written = sum(sizes[hit:]) + (0 if framed else r.framing)
        cost["read"] += read
        cost["written"] += written
        per_request.append(prices.read * read + prices.write * written)
        if not r.summary:
            if previous is not None and prints[: len(previous)] != previous:
                cost["breaks"] += 1
                cost["rewritten"] += sum(sizes[hit:])
            previous = prints
        framings[r.key] = now
        frontier = clearing_frontier(r.messages)
        before, before_frontier = last.get(r.key, (None, 0))
        new = True
        if before is not None:
            kept = next((k for k, (x, y) in enumerate(zip(before, r.messages, strict=False)) if x != y), None)
            kept = min(len(before), len(r.messages)) if kept is None else kept
            new = frontier != before_frontier if before_frontier == 0 or before_frontier < kept else True
        entries += [[r.key, prints, now]] + ([[r.key, prints[:frontier], now]] if frontier and new else [])
        last[r.key] = (r.messages, frontier)
    return cost, per_request


@pytest.mark.parametrize("prices", [Prices(), Prices(lifetime=300, pace=100)], ids=["forever", "300 s"])
def test_each_request_is_priced_as_comparing_it_with_every_earlier_entry_would(prices):
    """Agent and summary requests on two framings, clearings, snips, summaries, equal copies of messages.

    With a 300-second lifetime and requests 100 s apart, an entry unused for three requests expires.
    """
    rnd = random.Random(44)
    call = {"role": "assistant", "content": "reading", "n": 5}
    for _ in range(30):
        sent, requests = [user("go") | {"n": 10}], []
        for turn in range(40):
            sent = [*sent, call, result(f"r{turn}", rnd.randrange(20, 400))]
            roll = rnd.random()
            if roll < 0.25:  # micro: clear the oldest whole result
                whole = [i for i, m in enumerate(sent) if "the text" in str(m.get("content"))]
                if len(whole) > 1:
                    i = whole[0]
                    sent = [
                        *sent[:i],
                        result(sent[i]["content"][0]["tool_use_id"], 15, cleared=True),
                        *sent[i + 1 :],
                    ]
            elif roll < 0.3 and len(sent) > 6:  # snip the middle
                sent = sent[:1] + sent[len(sent) // 2 :]
            elif roll < 0.33:  # a summary request, then the list starts again from the summary
                requests.append(Request(tuple(sent) + (user("summarize") | {"n": 3},), 40, "a", True))
                sent = [user("summary") | {"n": 50}]
            if rnd.random() < 0.2:  # the same messages as other dicts: equal digests
                sent = [copy.deepcopy(m) for m in sent]
            requests.append(Request(tuple(sent), 40, rnd.choice("aab")))
        cost = price(requests, tokens, prices)
        expected, per_request = reference_cost(requests, tokens, prices)
        got = {"read": cost.read, "written": cost.written, "breaks": cost.breaks, "rewritten": cost.rewritten}
        assert got == expected
        assert cost.per_request == pytest.approx(per_request)
        assert cost.requests == len(requests)


def test_messages_that_differ_as_dicts_but_not_as_json_share_their_entry():
    """A tuple and a list serialise alike: the digest, not dict equality, says what the cache holds."""
    one = {"role": "user", "content": "x", "n": 10, "tags": ["a"]}
    other = {**one, "tags": ("a",)}
    cost = price([req(A, one), req(A, other, B)], tokens)
    assert (cost.breaks, cost.read) == (0, 110)
    assert reference_cost([req(A, one), req(A, other, B)], tokens)[0]["read"] == cost.read
