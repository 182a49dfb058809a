"""The whole loop: 150 offline turns in an 8,000-token window, and the recent-turns design beside it."""

from __future__ import annotations

import re
from functools import lru_cache

import pytest
from rich.console import Console

from compaction.agent.session import SessionReport, ask_to_compact, run_compacted_demo, run_session
from compaction.core.messages import validate
from compaction.core.transcript import read_transcript

LINE = re.compile(
    r"^session: (\d+) turns, (\d+) errors, peak ([\d,]+) of ([\d,]+) tokens, "
    r"layers fired: budget=(\d+) snip=(\d+) micro=(\d+) summary=(\d+) reactive=(\d+)$"
)


@lru_cache(maxsize=1)
def long_session() -> SessionReport:
    return run_session(turns=150, window=8_000)


def test_the_150_turn_session_finishes_with_no_error_reaching_the_user_and_at_least_one_summary():
    report = long_session()
    assert len(report.turns) == 150
    assert report.error is None and report.errors == 0
    assert report.counts["summary"] >= 1
    assert report.peak <= 8_000


def test_every_request_of_the_session_was_valid_and_inside_the_window():
    for turn in long_session().turns:
        validate(turn.messages)
        assert turn.input_tokens is not None and turn.input_tokens <= 8_000


def test_every_layer_that_fired_left_an_event_on_the_turn_it_fired():
    report = long_session()
    assert sum(report.counts.values()) == len([e for e in report.events if e.kind in report.counts])
    for event in report.events:
        assert 0 <= event.turn < 150
        if event.kind in ("budget", "micro", "summary"):
            assert event.tokens_after < event.tokens_before


def test_the_closing_line_has_the_promised_form():
    report = long_session()
    match = LINE.match(report.line())
    assert match, report.line()
    turns, errors, peak, window, *fired = match.groups()
    assert (int(turns), int(errors), int(window.replace(",", ""))) == (150, 0, 8_000)
    assert int(peak.replace(",", "")) == report.peak
    assert [int(n) for n in fired] == [
        report.counts.get(k, 0) for k in ("budget", "snip", "micro", "summary", "reactive")
    ]


def test_the_demo_command_prints_one_closing_line_and_keeps_everything_under_its_folder(tmp_path):
    console = Console(record=True, width=80, force_terminal=False)
    code = run_compacted_demo(turns=150, window=8_000, workdir=tmp_path / "run", console=console)
    last = console.export_text().rstrip().splitlines()[-1]
    assert code == 0
    assert LINE.match(last), last
    transcripts = sorted((tmp_path / "run" / ".transcripts").iterdir())
    assert transcripts, "a summary writes its transcript first"
    for path in transcripts:
        validate(read_transcript(path))
    assert any((tmp_path / "run" / ".task_outputs").rglob("*.txt"))


def test_the_user_can_ask_for_a_compaction_and_the_model_calls_the_compact_tool():
    report = run_session(turns=30, window=8_000, compact_at=20)
    assert report.counts["compact"] == 1
    assert report.turns[20].tool_calls == ["compact"]
    assert report.error is None


def test_asking_to_compact_adds_the_request_after_the_tool_results_only_at_that_call():
    seen = []
    wrapped = ask_to_compact(lambda messages: list(messages), at=1)
    first = [{"role": "user", "content": [{"type": "text", "text": "task"}]}]
    seen.append(wrapped(first))
    seen.append(wrapped(first))
    seen.append(wrapped(first))
    assert seen[0] == first and seen[2] == first
    assert seen[1][-1]["content"][-1]["text"].startswith("Please compact")
    assert first == [{"role": "user", "content": [{"type": "text", "text": "task"}]}]


def test_the_recent_turns_design_runs_the_same_session_with_a_flat_small_context():
    report = run_session(turns=60, window=8_000, strategy="recent_turns")
    assert report.error is None and len(report.turns) == 60
    sizes = [t.input_tokens for t in report.turns[10:]]
    assert max(sizes) < long_session().peak


def test_an_unknown_strategy_is_rejected_by_name():
    with pytest.raises(ValueError, match="strategy"):
        run_session(turns=1, strategy="magic")
