"""Importers on the real sessions in ../shared/data: every call and every result is kept, counted
against the source file, and the files are never written."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from compaction.core.messages import text_of, tool_result_blocks, tool_use_blocks, validate
from compaction.importers import MISSING_RESULT, load, session_paths

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")
FILES = session_paths(DATA) if DATA.is_dir() else []


def swe_source(path):
    """(calls, result texts) as the .traj file records them."""
    history = json.loads(path.read_text())["history"]
    calls, results = 0, []
    for i, entry in enumerate(history):
        nxt = history[i + 1] if i + 1 < len(history) else {}
        if entry["role"] == "assistant":
            calls += len(entry.get("tool_calls") or []) or int(
                bool(entry.get("action")) and nxt.get("role") == "user"
            )
        if entry["role"] == "tool" or (
            entry["role"] == "user"
            and i
            and history[i - 1]["role"] == "assistant"
            and not history[i - 1].get("tool_calls")
            and history[i - 1].get("action")
        ):
            results.append(
                text_of(entry["content"]) if isinstance(entry["content"], list) else entry["content"]
            )
    return calls, results


def claude_source(path):
    """(calls, result texts) of the readable user/assistant records of a Claude Code file."""
    calls, results = 0, []
    for line in path.read_text().splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        message = record.get("message") if isinstance(record, dict) else None
        if not isinstance(message, dict) or not isinstance(message.get("content"), list):
            continue
        for block in message["content"]:
            if isinstance(block, dict) and block.get("type") == "tool_use":
                calls += 1
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(block["content"])
    return calls, results


def mini_source(path):
    """(calls, result texts) of a mini-swe-agent trajectory: tool calls, tool messages, the submission."""
    messages = json.loads(path.read_text())["messages"]
    calls = sum(len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant")
    results = [m["content"] for m in messages if m["role"] == "tool"]
    ends = [m for m in messages if m["role"] == "exit"]
    if ends and messages[-2].get("tool_calls"):  # the submitting command's output closes the run
        results.append(ends[-1]["content"])
    return calls, results


def source(path):
    """The counts a session file records, read with plain json, not the importers."""
    if path.suffix == ".traj":
        return swe_source(path)
    return mini_source(path) if path.name.endswith(".traj.json") else claude_source(path)


def kept(messages):
    uses = [u for m in messages for u in tool_use_blocks(m)]
    results = [
        r["content"] for m in messages for r in tool_result_blocks(m) if r["content"] != MISSING_RESULT
    ]
    return uses, results


@needs_data
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_every_call_and_result_of_every_shared_session_is_kept(path):
    session = load(path)
    validate(session.messages)
    uses, results = kept(session.messages)
    calls, source_results = source(path)
    assert len(uses) == calls
    assert len({u["id"] for u in uses}) == calls
    assert Counter(map(str, results)) == Counter(map(str, source_results))
    assert sum(session.tally().values()) == session.records > 0  # every record accounted for


@needs_data
def test_marshmallow_1867_keeps_all_11_calls_though_it_reuses_5_ids():
    session = load(DATA / "swe-agent-trajectories" / "marshmallow-code__marshmallow-1867-0.traj")
    uses, results = kept(session.messages)
    assert (len(uses), len(results)) == (11, 11)
    assert [p.rule for p in session.problems] == ["renamed_id"] * 5


@needs_data
def test_the_claude_code_2_1_session_is_read_whole_every_record_accounted_for():
    """753 records as Claude Code 2.1.6 wrote them: a snapshot first, an isMeta caveat on the chain."""
    session = load(DATA / "claude-code-2.1" / "audit-session-3cfce0ff.jsonl")
    uses, results = kept(session.messages)
    assert (session.format, len(uses), len(results)) == ("claude-code", 290, 290)
    assert session.off_branch == 0 and session.problems == []
    assert session.records == 753 == sum(session.tally().values())
    assert session.tally()["read as messages"] == 704  # every user and assistant record
    assert session.ignored == {"file-history-snapshot": 20, "queue-operation": 22, "turn_duration system": 7}


@needs_data
def test_the_mini_swe_agent_trajectory_is_read_whole_and_its_exit_answers_the_last_call():
    session = load(DATA / "mini-swe-agent" / "sqlfluff__sqlfluff-1733.traj.json")
    uses, results = kept(session.messages)
    assert (session.format, len(uses), len(results)) == ("mini-swe-agent", 157, 157)
    assert session.problems == [] and session.ended == "Submitted"
    assert session.records == 316 == session.tally()["read as messages"]
    assert results[-1].startswith("diff --git a/src/sqlfluff/rules/L003.py")


@needs_data
def test_the_claude_code_edge_cases_file_reports_each_bad_line_and_keeps_the_rest():
    session = load(DATA / "claude-code-transcripts" / "edge_cases.jsonl")
    assert [(p.where, p.rule) for p in session.problems if p.skipped] == [
        ("line 10", "malformed_record"),
        ("line 11", "malformed_record"),
        *[(f"line {n}", "unknown_record") for n in (13, 14, 15, 16)],
    ]
    assert session.skipped == 6


@needs_data
def test_reading_every_shared_session_leaves_the_files_unchanged():
    def state():
        return {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in FILES}

    before = state()
    for path in FILES:
        load(path)
    assert state() == before
