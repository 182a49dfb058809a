"""Level 2, phase summaries: what a summary keeps and drops, and a list that stays valid."""

from __future__ import annotations

import copy
import re

import pytest
from conversations import Call, Turn, build_session, sessions
from hypothesis import HealthCheck, given, settings

from compaction.core.messages import validate
from compaction.core.tokens import count_text
from compaction.core.transcript import read_transcript
from compaction.course.checks.levels import fix_session, project_line
from compaction.levels.condense import failing_tests
from compaction.levels.locations import references
from compaction.levels.phase_summary import MAX_SUMMARY_TOKENS, compact_phases, summarize_phase
from compaction.levels.phases import detect_phases


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return fix_session(tmp_path_factory.mktemp("ws"))


# ---------------------------------------------------------------- what a summary keeps


def test_a_research_summary_keeps_the_failing_tests_files_and_lines(session):
    phase = detect_phases(session)[0]
    summary = summarize_phase(session, phase.start, phase.end)
    assert summary.startswith("## Research phase complete")
    red = session[4]["content"][0]["content"]  # the first test run
    assert failing_tests(red) and all(name in summary for name in failing_tests(red))
    grep = session[10]["content"][0]["content"]  # grep -rn 'ngrams(' textstats
    assert references(summary)["textstats/ngrams.py"] == references(grep)["textstats/ngrams.py"]
    assert re.findall(r"^\d+ passed, \d+ failed$", red, re.M)[-1] in summary
    assert 100 <= count_text(summary, "tiktoken") <= MAX_SUMMARY_TOKENS


def test_an_implementation_summary_keeps_the_decision_its_reason_and_the_changed_line(session):
    phase = detect_phases(session)[1]
    summary = summarize_phase(session, phase.start, phase.end)
    assert "because every n-gram test expects the last one" in summary
    assert f"textstats/ngrams.py:{project_line('textstats/ngrams.py', 'range(len(tokens) - n)]')}" in summary
    assert re.search(r"`python run_tests.py tests/test_ngrams.py`: \d+ passed, 0 failed", summary)


def test_a_summary_drops_file_contents_and_step_by_step_detail(session):
    for phase in detect_phases(session):
        summary = summarize_phase(session, phase.start, phase.end)
        assert not re.search(r"^\s*\d+\t", summary, re.M), "numbered file lines leaked in"
        assert "Let me see the layout" not in summary and "read_file" not in summary


def test_a_dead_end_leaves_no_trace_in_the_summary():
    plan = [
        Turn([Call("read_file", "Error: missing.py: no such file", True, {"path": "missing.py"})]),
        Turn([Call("bash", "", input={"command": "grep -rn nothing src"})]),
        Turn([Call("read_file", "     1\tx = 1", input={"path": "src/real.py"})]),
    ]
    summary = summarize_phase(build_session(plan), 1, 7)
    assert "src/real.py" in summary and "missing.py" not in summary


def test_a_huge_phase_is_cut_to_300_tokens():
    plan = [
        Turn([Call("bash", f"src/m{k}.py:{k}:x", input={"command": f"grep -rn x{k} src"})])
        for k in range(400)
    ]
    messages = build_session(plan)
    assert count_text(summarize_phase(messages, 1, len(messages)), "tiktoken") <= MAX_SUMMARY_TOKENS


def test_summarize_phase_names_a_bad_range(session):
    with pytest.raises(ValueError, match="start < end"):
        summarize_phase(session, 5, 5)


# ---------------------------------------------------------------- replacing finished phases


def test_compact_phases_writes_the_transcript_first_and_keeps_the_list_valid(session, tmp_path):
    before = copy.deepcopy(session)
    out = compact_phases(session, transcript_dir=tmp_path)
    validate(out)
    assert session == before, "the input was changed"
    assert read_transcript(next(tmp_path.iterdir())) == session
    assert count_text(str(out), "tiktoken") < count_text(str(session), "tiktoken") / 2
    finished = [p for p in detect_phases(session) if p.reason != "open"]
    heads = [m["content"][0]["text"] for m in out if m["role"] == "assistant" and "phase complete" in str(m)]
    assert len(heads) == len(finished)
    assert "transcript-0001.jsonl" in out[2]["content"][0]["text"]


def test_compacting_twice_leaves_the_summaries_alone(session, tmp_path):
    once = compact_phases(session, transcript_dir=tmp_path)
    assert compact_phases(once, transcript_dir=tmp_path) == once


def test_keep_recent_leaves_the_newest_finished_phases_as_they_were(session, tmp_path):
    out = compact_phases(session, transcript_dir=tmp_path, keep_recent=1)
    last = [p for p in detect_phases(session) if p.reason != "open"][-1]
    assert out[-(len(session) - last.start) :] == session[last.start :]


def test_the_users_own_words_inside_a_phase_survive_in_the_note(tmp_path):
    plan = [
        Turn([Call("read_file")]),
        Turn([Call("bash")], note="Do not touch the CLI."),
        Turn([Call("edit_file")]),
    ]
    plan += [Turn([Call("read_file")])]
    out = compact_phases(build_session(plan), transcript_dir=tmp_path)
    assert "Do not touch the CLI." in str(out)


def test_keep_recent_must_not_be_negative(session, tmp_path):
    with pytest.raises(ValueError, match="keep_recent"):
        compact_phases(session, transcript_dir=tmp_path, keep_recent=-1)


@settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(sessions(max_turns=10, huge=False))
def test_any_valid_session_stays_valid_after_compact_phases(tmp_path, messages):
    out = compact_phases(messages, transcript_dir=tmp_path)
    validate(out)
