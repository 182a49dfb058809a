"""Prompt-cache pricing: reads at 0.1, writes at 1.25 of the base input price; a change re-writes the rest."""

from __future__ import annotations

import pytest

from compaction.evaluate.cost import CACHE_READ, CACHE_WRITE, Request, price

A, B, C, D, S = ({"n": n} for n in (100, 20, 30, 40, 7))


def tokens(message):
    return message["n"]


def req(*messages, framing=0, summary=False):
    return Request(tuple(messages), framing, "k", summary)


def test_the_published_multipliers():
    assert (CACHE_WRITE, CACHE_READ) == (1.25, 0.1)


def test_an_appended_turn_reads_the_prefix_and_writes_only_what_is_new():
    cost = price([req(A), req(A, B), req(A, B, C)], tokens)
    assert (cost.read, cost.written, cost.sent, cost.breaks) == (100 + 120, 150, 100 + 120 + 150, 0)
    assert cost.units == pytest.approx(0.1 * 220 + 1.25 * 150)
    assert cost.per_request == pytest.approx([125.0, 10 + 25, 12 + 37.5])


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
