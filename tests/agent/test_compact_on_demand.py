"""The client's side of on-demand compaction: the SDK's tool runner with a trigger, and diagnosed sessions."""

from __future__ import annotations

import pytest

from compaction.agent.compact_on_demand import run_diagnosed, run_runner, should_compact
from compaction.layers.prompt_cache import cache_breaks
from compaction.layers.triggers import summary_threshold
from compaction.offline.server.on_demand import sign

WINDOW = 8_000


@pytest.fixture(scope="module")
def triggered():
    return run_runner(window=WINDOW, turns=40, trigger=should_compact, threshold=summary_threshold(WINDOW))


def test_without_a_trigger_the_runner_overflows():
    run = run_runner(window=WINDOW, turns=40)
    assert run.error is not None and "prompt is too long" in str(run.error)
    assert run.compactions == 0


def test_a_trigger_on_input_tokens_alone_never_fires_under_caching():
    naive = run_runner(window=WINDOW, turns=40, trigger=lambda u, p, t: u.input_tokens > t, threshold=5000)
    assert naive.compactions == 0 and naive.error is not None
    assert (
        max(m.usage.input_tokens for m in naive.messages)
        < 5000
        < max(m.usage.cache_read_input_tokens for m in naive.messages)
    )


def test_the_trigger_compacts_and_the_session_finishes(triggered):
    assert triggered.error is None and triggered.compactions >= 1
    for message in triggered.messages:
        if message.stop_reason == "compaction":
            (block,) = message.content
            assert block.signature == sign(block.content)
    assert triggered.context[0]["content"][0]["type"] == "compaction"  # the block first, as sent
    assert triggered.log.totals()["summaries"] == triggered.compactions


def test_diagnostics_match_the_breaks_the_course_counts_row_for_row():
    calls, result = run_diagnosed(window=WINDOW, turns=30)
    assert result.error is None
    counted = dict(cache_breaks([c.messages for c in calls]))
    diagnosed = {i for i, c in enumerate(calls) if c.reason and c.reason["type"] == "messages_changed"}
    assert diagnosed == set(counted) and diagnosed
    for i in diagnosed:
        assert calls[i].reason["cache_missed_input_tokens"] > 0 and calls[i].layers
