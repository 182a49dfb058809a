"""Replaying a recorded session: each strategy turn by turn, what it cost, what left and where."""

from __future__ import annotations

from pathlib import Path

import pytest

from compaction.backend import connect
from compaction.messages import tool_result, tool_use, validate
from compaction.replay.cost import SONNET, request_cost
from compaction.replay.departures import departures, on_disk
from compaction.replay.engine import replay, turn_index, turns_of
from compaction.replay.fill import fill_by_kind
from compaction.tokens import count_text, estimate_tokens

WINDOW = 6_000


def long_session(turns=30, size=1_200):
    """A task, then ``turns`` reads of large distinct files, each answered."""
    messages = [
        {"role": "user", "content": [{"type": "text", "text": "Read every file, do not edit tests."}]}
    ]
    for i in range(turns):
        body = "\n".join(f"file{i}.py line {n}: value = {i * n}" for n in range(size // 30))
        messages.append(
            {"role": "assistant", "content": [tool_use(f"t{i}", "read_file", {"path": f"file{i}.py"})]}
        )
        messages.append({"role": "user", "content": [tool_result(f"t{i}", body)]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": "All read."}]})
    return messages


@pytest.fixture(scope="module")
def client():
    return connect(context_window=WINDOW)


def test_turns_end_with_each_user_message_and_every_message_has_a_turn():
    session = long_session(3)
    assert turns_of(session) == [(0, 1), (1, 3), (3, 5), (5, 7)]
    assert turn_index(session) == [0, 1, 1, 2, 2, 3, 3, 3]


def test_with_no_strategy_each_request_is_the_recorded_prefix(tmp_path):
    session = long_session(5)
    run = replay(session, "none", window=WINDOW, workdir=tmp_path)
    assert [t.messages for t in run.turns] == [1, 3, 5, 7, 9, 11]
    assert run.final == session[:-1]
    assert run.final_tokens == estimate_tokens(session[:-1], "tiktoken")
    assert run.events == [] and on_disk(run) == []


def test_an_unchanged_prefix_is_read_from_the_cache_and_only_the_new_part_is_written(tmp_path):
    session = long_session(3)
    run = replay(session, "none", window=WINDOW, workdir=tmp_path)
    first, second = run.turns[0], run.turns[1]
    assert first.cached == 0
    assert second.cached == first.tokens  # the whole first request is the second one's prefix
    reply = estimate_tokens(session[1:2], "tiktoken")
    assert second.cost == pytest.approx(request_cost(second.cached, second.tokens - second.cached, reply))


def test_cache_pricing_reads_at_a_tenth_and_writes_at_one_and_a_quarter_of_the_input_price():
    assert SONNET.cache_read == pytest.approx(SONNET.input / 10)
    assert SONNET.cache_write == pytest.approx(SONNET.input * 1.25)
    assert request_cost(1_000_000, 0, 0) == pytest.approx(0.30)
    assert request_cost(0, 1_000_000, 1_000_000) == pytest.approx(3.75 + 15)


def test_the_uncompacted_session_overflows_and_the_pipeline_keeps_it_in_the_window(tmp_path, client):
    session = long_session()
    none = replay(session, "none", window=WINDOW, workdir=tmp_path / "none")
    pipeline = replay(session, "pipeline", window=WINDOW, workdir=tmp_path / "pipeline", client=client)
    assert none.over_window is not None and none.peak > WINDOW
    assert pipeline.over_window is None and pipeline.peak <= WINDOW
    assert pipeline.fired()
    validate(pipeline.final)
    assert pipeline.sent < none.sent


@pytest.mark.parametrize("strategy, layers", [("masking", {"micro"}), ("summary", {"summary"})])
def test_each_strategy_fires_only_its_own_layers(tmp_path, client, strategy, layers):
    run = replay(long_session(), strategy, window=WINDOW, workdir=tmp_path, client=client)
    assert set(run.fired()) == layers


def test_every_departure_names_a_file_or_folder_that_exists_and_holds_what_left(tmp_path, client):
    run = replay(long_session(), "pipeline", window=WINDOW, workdir=tmp_path, client=client)
    rows = departures(run)
    assert rows and all(d.freed > 0 for d in rows)
    assert all(Path(d.where).exists() for d in rows)
    written = "\n".join(p.read_text() for p in on_disk(run))
    assert "file0.py line 3" in written  # the first file's content left the context, and is on disk


def test_on_turn_reports_progress_once_per_request(tmp_path):
    seen = []
    replay(long_session(4), "none", window=WINDOW, workdir=tmp_path, on_turn=lambda d, n: seen.append((d, n)))
    assert seen == [(i, 5) for i in range(1, 6)]


def test_an_unknown_strategy_is_named(tmp_path):
    with pytest.raises(ValueError, match="unknown strategy 'magic'"):
        replay(long_session(1), "magic", window=WINDOW, workdir=tmp_path)


def test_fill_by_kind_splits_a_request_into_the_palette_kinds():
    session = long_session(2)
    fill = fill_by_kind(session, len)
    assert fill["user_text"] == len("Read every file, do not edit tests.")
    assert fill["tool_calls"] > 0 and fill["tool_results"] > fill["tool_calls"]
    assert fill["assistant_text"] == len("All read.")
    assert fill["placeholders"] == fill["summary"] == 0


def test_the_peak_context_is_the_request_the_peak_was_counted_on(tmp_path):
    run = replay(long_session(6), "none", window=WINDOW, workdir=tmp_path)
    assert estimate_tokens(run.peak_context, "tiktoken") == run.peak
    assert sum(fill_by_kind(run.peak_context, lambda s: count_text(s, "tiktoken")).values()) <= run.peak
