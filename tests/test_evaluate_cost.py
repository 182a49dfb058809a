"""Prompt-cache pricing: reads and writes at the default model's multiples; a change re-writes the rest."""

from __future__ import annotations

import copy
import random

import pytest

from compaction.core.messages import assistant, user
from compaction.evaluate.cost import CACHE_READ, CACHE_WRITE, Fingerprints, Prefixes, Request, Tokens, price

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
        found.append(index.longest(request.key, digests))
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
