"""No compaction loops: summaries that cannot get under the threshold stop after two, and say why.

The session's system prompt and tools alone are over the summary threshold (but inside the window),
so no summary can ever bring the estimate under it. Without a guard the pipeline would summarize
again before every call, paying for a summary each time and getting nowhere: a compaction loop.
"""

from __future__ import annotations

import functools
import re

import pytest

import compaction.layers.triggers as triggers
from compaction.agent.backend import connect
from compaction.agent.loop import SYSTEM_PROMPT, new_workspace, run_agent
from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens
from compaction.evaluate.replay.columns import outcome
from compaction.evaluate.replay.engine import StrategyRun
from compaction.layers.budget import Budget
from compaction.layers.triggers import summary_threshold
from compaction.pipeline.compactor import Compactor, default_layers

WINDOW = 20_000
TURNS = 12


def with_notes(n: int) -> str:
    """The agent's system prompt followed by ``n`` reference notes."""
    return SYSTEM_PROMPT + "".join(f" Reference note {k}: keep the style of the project." for k in range(n))


@functools.cache
def heavy_system_prompt(over: int) -> str:
    """A system prompt that, with the tools, is ``over`` tokens above the threshold (or more).

    The fewest notes that get there, found by doubling then bisecting (a count per step, not one
    per note: counting a growing prompt note by note cost seconds per test).
    """

    def enough(n: int) -> bool:
        tokens = estimate_tokens([], "tiktoken", system=with_notes(n), tools=TOOL_DEFINITIONS)
        return tokens >= summary_threshold(WINDOW) + over

    if enough(0):
        return with_notes(0)
    low, high = 0, 1  # from here on: never enough(low)
    while not enough(high):
        low, high = high, high * 2
    while high - low > 1:  # enough(high)
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return with_notes(high)


def run(tmp_path):
    workspace = new_workspace(tmp_path / "ws")
    keeper = Compactor(
        store=OutputStore(tmp_path / "store"),
        client=connect("offline", context_window=WINDOW),
        transcript_dir=tmp_path / "transcripts",
        context_window=WINDOW,
        workspace=workspace,
        layers=[Budget(max_chars=2_000), *default_layers()[1:]],
    )
    client = connect("offline", context_window=WINDOW)
    result = run_agent(
        client, workspace=workspace, max_turns=TURNS, system=heavy_system_prompt(200), hooks=keeper.hooks()
    )
    return keeper, result


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """One run of the guarded session, read (never changed) by the tests that take it."""
    return run(tmp_path_factory.mktemp("guarded"))


def test_two_summaries_over_the_threshold_stop_automatic_summarizing(guarded):
    keeper, result = guarded
    assert keeper.counts()["summary"] == 2
    assert keeper.stopped and not keeper.summarizing
    assert not keeper.breaker_open  # a loop stop is not a failure: the breaker stays closed
    assert result.error is None  # no error from the API reached the user
    assert len([t for t in result.turns if t.input_tokens is not None]) == TURNS


def test_the_event_names_what_cannot_be_compacted_against_the_window(guarded):
    keeper, _ = guarded
    [guard] = [e for e in keeper.events if e.kind == "loop_guard"]
    assert guard.detail == keeper.stopped
    overhead = re.search(r"system prompt and tools \(([\d,]+) tokens\)", guard.detail)
    assert overhead and int(overhead[1].replace(",", "")) > summary_threshold(WINDOW)
    assert "the newest turn (" in guard.detail and "the summary itself (" in guard.detail
    assert guard.detail.endswith(f"in a window of {WINDOW:,}")
    assert f"over the threshold of {summary_threshold(WINDOW):,}" in guard.detail


def test_without_the_guard_it_summarizes_on_almost_every_turn(tmp_path, monkeypatch):
    monkeypatch.setattr(triggers, "LOOP_LIMIT", 10**6)
    keeper, _ = run(tmp_path)
    assert keeper.counts()["summary"] >= TURNS - 3
    assert keeper.summarizing


@pytest.mark.parametrize("path", ["compact", "reactive"])
def test_asked_for_summaries_still_run_after_the_guard(tmp_path, path):
    keeper, result = run(tmp_path)
    before = keeper.counts()[path]
    getattr(keeper, path)(
        result.messages[:-1] if result.messages[-1]["role"] == "assistant" else result.messages
    )
    assert keeper.counts()[path] == before + 1


def test_a_replay_that_the_loop_guard_stopped_never_says_breaker_open(tmp_path):
    run = StrategyRun("pipeline", WINDOW, tmp_path, outcome="40 turns", loop_stopped=True)
    assert outcome(run) == "40 turns, loop guard stopped summaries"
    run.loop_stopped, run.breaker_open = False, True
    assert outcome(run) == "40 turns, breaker open"
