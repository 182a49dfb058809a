"""The recent-turns design, a layer: the last N turns, each cut short, ride in a context block."""

from __future__ import annotations

import copy

import pytest

import compaction.layers.recent_turns as recent_turns_module
from compaction.core.messages import assistant, text, tool_result, tool_use, user, validate
from compaction.layers.recent_turns import CONTEXT_OPEN, RecentTurns, context_block, turn_text
from compaction.pipeline.compactor import Compactor


def pipeline(layer: RecentTurns, **options) -> Compactor:
    """A Compactor whose one layer is ``layer``."""
    return Compactor([layer], **options)


def grow(strategy: Compactor, turns: int, body=lambda i: f"output {i} " + "." * 900) -> list[dict]:
    """Drive ``prepare`` like the agent loop does: prepare, then append a call and its result."""
    messages = [user("Make the tests in tests/ pass.")]
    for i in range(turns):
        messages = strategy.prepare(messages)
        validate(messages)
        use_id = f"toolu_{i:03d}"
        messages = messages + [
            assistant(text(f"Step {i}."), tool_use(use_id, "bash", {"command": f"step {i}"})),
            user(tool_result(use_id, body(i))),
        ]
    return strategy.prepare(messages)


def test_a_turn_reads_as_text_with_tool_calls_and_results():
    message = assistant(text("Looking."), tool_use("t1", "read_file", {"path": "a.py"}))
    assert turn_text(message) == 'Looking. read_file {"path": "a.py"}'
    assert turn_text(user(tool_result("t1", "1\tx = 1"))) == "1\tx = 1"


def test_the_block_shows_only_the_last_n_turns_each_cut_to_max_chars():
    history = [("user", f"u{i} " + "a" * 50) for i in range(10)]
    block = context_block(history, keep_turns=2, max_chars=10)
    lines = block.splitlines()
    assert lines[0] == CONTEXT_OPEN and len(lines) == 2 + 4
    assert lines[1] == "[user]: u6 aaaaaaa"


def test_what_is_sent_stays_small_however_long_the_session_runs():
    short, long = pipeline(RecentTurns(keep_turns=3)), pipeline(RecentTurns(keep_turns=3))
    a, b = grow(short, 10), grow(long, 60)
    assert len(b) == 3
    assert abs(len(str(a)) - len(str(b))) < 50


def test_the_newest_exchange_is_sent_whole_and_the_list_stays_valid():
    out = grow(pipeline(RecentTurns(keep_turns=2, max_chars=100)), 8)
    validate(out)
    assert out[-1]["content"][0]["content"].startswith("output 7 ")
    assert len(out[-1]["content"][0]["content"]) > 900


def test_the_task_survives_but_an_early_error_scrolls_out_of_view():
    body = lambda i: "Traceback: ZeroDivisionError" if i == 0 else f"ok {i}"  # noqa: E731
    out = grow(pipeline(RecentTurns(keep_turns=3)), 12, body)
    assert out[0]["content"].startswith("Make the tests in tests/ pass.")
    assert "ZeroDivisionError" not in str(out)


def test_prepare_never_mutates_its_input():
    strategy = pipeline(RecentTurns(keep_turns=2))
    messages = [user("task")]
    messages = strategy.prepare(messages) + [
        assistant(tool_use("t1", "bash", {"command": "ls"})),
        user(tool_result("t1", "a.py")),
    ]
    before = copy.deepcopy(messages)
    strategy.prepare(messages)
    assert messages == before


def test_bad_parameters_are_rejected_by_name():
    with pytest.raises(ValueError, match="keep_turns"):
        RecentTurns(keep_turns=-1)
    with pytest.raises(ValueError, match="max_chars"):
        RecentTurns(max_chars=0)


def test_the_manual_compact_replaces_the_history_with_a_summary(tmp_path, monkeypatch):
    seen = []

    def fake_compact_history(messages, *, client, transcript_dir, focus=None):
        seen.append(list(messages))
        return [user(f"[summary] {len(messages)} messages")]

    monkeypatch.setattr(recent_turns_module, "compact_history", fake_compact_history, raising=False)
    strategy = pipeline(RecentTurns(keep_turns=2), client=object(), transcript_dir=tmp_path)
    messages = grow(strategy, 6)
    messages = messages + [assistant(tool_use("tc", "compact", {})), user(tool_result("tc", "compacting"))]
    assert strategy.compact(messages) == messages  # the list goes on; the history changed
    assert len(seen[0]) == 1 + 2 * 6 + 2  # the whole session, not just what was sent
    out = strategy.prepare(messages)
    assert "[summary] 15 messages" in out[0]["content"]
    assert strategy.counts()["compact"] == 1 and strategy.counts()["recent turns"] == 7  # a pass per call


def test_two_pipelines_keep_two_histories():
    layer = RecentTurns(keep_turns=2)
    one, two = pipeline(layer), pipeline(layer)  # one layer value, two sessions
    grow(one, 4)
    assert "Step" not in str(two.prepare([user("other task")]))
