"""Replaying a recorded session: each strategy turn by turn, what it cost, what left and where."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW
from compaction.core.messages import tool_result, tool_use, validate
from compaction.core.tokens import count_text, estimate_tokens
from compaction.evaluate.cost import CACHE_READ, CACHE_WRITE
from compaction.evaluate.find import find_probes
from compaction.evaluate.replay.columns import COLUMNS, HELD_OVER, cells
from compaction.evaluate.replay.departures import NOT_SAVED, departures, on_disk
from compaction.evaluate.replay.engine import INPUT_PRICE, replay, turn_index
from compaction.evaluate.replay.fill import fill_by_kind
from compaction.evaluate.replay.turns import over_the_window, turn_slices

WINDOW = 6_000


def long_session(turns=30, size=1_200):
    """A task with a constraint, then ``turns`` reads of large distinct files, each answered."""
    messages = [{"role": "user", "content": [{"type": "text", "text": "Read every file. Never edit tests."}]}]
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
    return connect(context_window=SAMPLE_WINDOW)


def test_every_message_is_given_the_turn_before_which_it_arrived():
    assert turn_index(long_session(3)) == [1, 2, 2, 3, 3, 4, 4, 4]


def test_with_no_strategy_each_request_is_the_recorded_prefix(tmp_path, client):
    session = long_session(5)
    run = replay(session, "none", window=WINDOW, workdir=tmp_path, client=client)
    assert [t.messages for t in run.turns] == [1, 3, 5, 7, 9, 11]
    assert [t.turn for t in run.turns] == [1, 2, 3, 4, 5, 6]
    assert run.final == session[:-1]
    assert run.final_tokens == estimate_tokens(session[:-1], "tiktoken")
    assert run.events == [] and on_disk(run) == []


def test_an_unchanged_prefix_is_read_from_the_cache_and_only_the_new_part_is_written(tmp_path, client):
    run = replay(long_session(3), "none", window=WINDOW, workdir=tmp_path, client=client)
    first, second = run.turns[0], run.turns[1]
    assert first.units == pytest.approx(CACHE_WRITE * first.tokens)
    assert second.units == pytest.approx(
        CACHE_READ * first.tokens + CACHE_WRITE * (second.tokens - first.tokens)
    )
    assert run.dollars == pytest.approx(sum(t.units for t in run.turns) * INPUT_PRICE / 1e6)


def test_the_uncompacted_session_overflows_and_the_pipeline_keeps_it_in_the_window(tmp_path, client):
    session = long_session()
    none = replay(session, "none", window=WINDOW, workdir=tmp_path / "none", client=client)
    pipeline = replay(session, "pipeline", window=WINDOW, workdir=tmp_path / "pipeline", client=client)
    assert none.over_window is not None and none.peak > WINDOW
    assert (
        none.outcome == over_the_window(none.over_window) == f"over the window from turn {none.over_window}"
    )
    assert pipeline.over_window is None and pipeline.peak <= WINDOW
    assert pipeline.outcome == "31 turns" and pipeline.fired()
    validate(pipeline.final)


def test_the_uncompacted_reference_counts_every_request_and_says_where_the_api_would_refuse_it(
    tmp_path, client
):
    """none is the reference: the whole session's cost, its row marked from the turn the API refuses."""
    session = long_session()
    probes = find_probes(session)
    none = replay(session, "none", window=WINDOW, workdir=tmp_path / "none", client=client, probes=probes)
    first_refused = turn_slices(session)[none.over_window - 1][0]
    before = replay(
        session[:first_refused], "none", window=WINDOW, workdir=tmp_path / "b", client=client, probes=probes
    )
    assert before.over_window is None
    assert none.cost.sent == sum(t.tokens for t in none.turns) > before.cost.sent
    assert all(t.units > 0 for t in none.turns if t.turn >= none.over_window)
    assert (
        none.outcome == over_the_window(none.over_window) == f"over the window from turn {none.over_window}"
    )
    assert probes and cells(none)[COLUMNS.index("probes kept")].endswith(HELD_OVER)
    assert not cells(before)[COLUMNS.index("probes kept")].endswith(HELD_OVER)
    assert none.peak > WINDOW  # the timeline still shows how far past the window it would have gone


def test_masking_is_a_micro_layer_and_its_clearings_show_as_events(tmp_path, client):
    run = replay(long_session(), "masking 3", window=WINDOW, workdir=tmp_path, client=client)
    assert set(run.fired()) == {"micro"}
    assert all(e.tokens_after < e.tokens_before for e in run.events)
    (first, *_) = departures(run, "s.jsonl")
    assert Path(first.where).parent.name == ".transcripts"  # as a layer it writes what it clears first


def test_recent_turns_keeps_no_copy_and_its_rows_point_to_the_session_file(tmp_path, client):
    run = replay(long_session(), "recent turns", window=WINDOW, workdir=tmp_path, client=client)
    (first, *_) = departures(run, "s.jsonl")
    assert first.layer == "recent turns" and first.where == NOT_SAVED + "s.jsonl"


def test_a_strategy_that_cannot_fit_is_refused_and_the_replay_stops_there(tmp_path, client):
    run = replay(long_session(), "masking 10", window=3_000, workdir=tmp_path, client=client)
    assert run.outcome.startswith("refused at turn ")
    turn = int(run.outcome.split()[3].rstrip(":"))
    assert len(run.turns) == turn - 1 and run.refused and run.outcome.endswith(run.refused)


@pytest.mark.parametrize("strategy", ["summary only", "pipeline", "recent turns"])
def test_a_strategy_whose_summary_fails_is_refused_with_the_reason_not_an_exception(
    tmp_path, client, strategy
):
    run = replay(long_session(), strategy, window=300, workdir=tmp_path, client=client)
    assert run.outcome.startswith("refused at turn "), run.outcome
    assert run.refused and not re.search(r"[\s(]-\d", run.refused), run.refused


def test_every_departure_of_the_pipeline_names_a_place_on_disk_that_holds_what_left(tmp_path, client):
    run = replay(long_session(), "pipeline", window=WINDOW, workdir=tmp_path, client=client)
    rows = departures(run)
    assert rows and all(d.freed > 0 for d in rows)
    assert all(Path(d.where).exists() for d in rows)
    written = "\n".join(p.read_text() for p in on_disk(run))
    assert "file0.py line 3" in written  # the first file's content left the context, and is on disk


def test_a_replay_of_a_session_file_writes_no_copy_of_the_recorded_messages_that_leave(tmp_path, client):
    source = tmp_path / "recorded.jsonl"
    source.write_text("the session file stands here")
    run = replay(
        long_session(), "pipeline", window=WINDOW, workdir=tmp_path / "w", client=client, source=source
    )
    micro = [d for d in departures(run) if d.layer == "micro"]
    assert micro and all(d.where == str(source) for d in micro)
    saved = [e for e in run.events if e.kind == "summary"]  # a summary's list is the pipeline's own
    assert len(on_disk(run)) >= len(saved) and not any(
        "file0.py line 3" in p.read_text() for p in on_disk(run)
    )


def test_probes_found_in_the_session_are_scored_on_the_final_context_and_losses_are_charged(tmp_path, client):
    session = long_session()
    probes = find_probes(session)
    assert probes and not any(p.kind == "instruction" for p in probes)  # its rule is in the first message
    none = replay(session, "none", window=WINDOW, workdir=tmp_path / "n", client=client, probes=probes)
    summary = replay(
        session, "summary only", window=WINDOW, workdir=tmp_path / "s", client=client, probes=probes
    )
    assert none.score.missed == []
    for probe_id in summary.score.missed:
        turn, by = summary.lost[probe_id]
        assert by == "summary" and 1 <= turn <= len(summary.turns)


def test_on_turn_reports_progress_once_per_request(tmp_path, client):
    seen = []
    replay(
        long_session(4),
        "none",
        window=WINDOW,
        workdir=tmp_path,
        client=client,
        on_turn=lambda d, n: seen.append((d, n)),
    )
    assert seen == [(i, 5) for i in range(1, 6)]


def test_an_unknown_strategy_is_named(tmp_path, client):
    with pytest.raises(ValueError, match="unknown strategy 'magic'"):
        replay(long_session(1), "magic", window=WINDOW, workdir=tmp_path, client=client)


def test_fill_by_kind_splits_a_request_into_the_palette_kinds():
    session = long_session(2)
    fill = fill_by_kind(session, len)
    assert fill["user_text"] == len("Read every file. Never edit tests.")
    assert fill["tool_calls"] > 0 and fill["tool_results"] > fill["tool_calls"]
    assert fill["assistant_text"] == len("All read.")
    assert fill["placeholders"] == fill["summary"] == 0


def test_the_peak_context_is_the_request_the_peak_was_counted_on(tmp_path, client):
    run = replay(long_session(6), "none", window=WINDOW, workdir=tmp_path, client=client)
    assert estimate_tokens(run.peak_context, "tiktoken") == run.peak
    assert sum(fill_by_kind(run.peak_context, lambda s: count_text(s, "tiktoken")).values()) <= run.peak


def test_the_left_the_context_column_says_one_time_and_two_times(tmp_path, client):
    from dataclasses import replace

    run = replay(long_session(), "masking 3", window=WINDOW, workdir=tmp_path, client=client)
    dropping = [e for e in run.events if e.tokens_after < e.tokens_before]
    assert len(dropping) >= 2
    assert cells(replace(run, events=dropping[:1]))[-1].startswith("1 time, ")
    assert cells(replace(run, events=dropping[:2]))[-1].startswith("2 times, ")
