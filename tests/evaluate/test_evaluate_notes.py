"""Strategies with memory: the offline agent's own notes, scored with one read that fits the window.

A ``+ memory`` strategy runs live on an offline session only (a recording's replies are fixed); its
final context is the agent's plus a read of its notes, priced as one request more and never over the
window; ``usage`` counts what memory put into the session.
"""

from __future__ import annotations

import argparse

import pytest

from compaction.agent.memory import MemoryFolder
from compaction.core.messages import (
    assistant,
    text_of,
    tool_result,
    tool_result_blocks,
    tool_use,
    tool_use_blocks,
    user,
)
from compaction.core.tokens import estimate_tokens
from compaction.evaluate import notes
from compaction.evaluate.compare import Session, offline_session, run
from compaction.evaluate.probes import score
from compaction.evaluate.replay.live import replay_offline
from compaction.evaluate.replay.options import add_parser
from compaction.evaluate.strategies import COMPARED, ON_REQUEST, STRATEGIES, WITH_MEMORY, build


@pytest.fixture
def memory(tmp_path):
    folder = MemoryFolder(tmp_path / "memory")
    (folder.root / "task.md").write_text("# Task\nFix the library, not the tests.\n")
    findings = "# Findings (newest first)\n" + "".join(f"- finding {k}: {'x' * 30}\n" for k in range(40))
    (folder.root / "findings.md").write_text(findings)
    return folder


def views(messages):
    return [u["input"] for m in messages for u in tool_use_blocks(m)]


def test_split_names_the_strategy_without_memory():
    assert notes.split("pipeline + memory") == ("pipeline", True)
    assert notes.split("pipeline + used") == ("pipeline + used", False)
    assert set(WITH_MEMORY) <= set(STRATEGIES) and not set(WITH_MEMORY) & set(COMPARED)  # chapter 18, not 13
    assert not [s for s in ON_REQUEST if notes.split(s)[1]]


def test_the_final_read_views_every_note_smallest_first_when_there_is_room(memory):
    read = notes.read_notes(memory)
    assert views(read) == [
        {"command": "view", "path": "/memories/task.md"},
        {"command": "view", "path": "/memories/findings.md"},
    ]
    assert "finding 39" in text_of(tool_result_blocks(read[1])[1]["content"])


def test_the_final_read_takes_the_newest_lines_that_fit_and_never_more(memory):
    whole = estimate_tokens(notes.read_notes(memory), "tiktoken")
    read = notes.read_notes(memory, room=whole // 2)
    assert estimate_tokens(read, "tiktoken") <= whole // 2
    task, found = views(read)
    assert task == {"command": "view", "path": "/memories/task.md"}
    first, last = found["view_range"]
    assert first == 1 and 1 < last < 41  # the top of the file: the newest findings
    assert notes.read_notes(memory, room=10) == []


def test_usage_counts_memory_calls_memory_only_turns_and_their_tokens():
    view = tool_use("toolu_a", "memory", {"command": "view", "path": "/memories"})
    create = tool_use("toolu_b", "memory", {"command": "create", "path": "/memories/t.md", "file_text": "x"})
    session = [
        user("task"),
        assistant(view),
        user(tool_result("toolu_a", "/memories: 0 entries\n(empty)")),
        assistant(create, tool_use("toolu_c", "bash", {"command": "ls"})),
        user(tool_result("toolu_b", "Created."), tool_result("toolu_c", "a.py")),
    ]
    got = notes.usage(session)
    assert got["calls"] == 2 and got["turns"] == 1
    assert got["call_tokens"] > 0 and got["result_tokens"] > 0


def test_build_refuses_a_strategy_with_memory_naming_the_live_run():
    with pytest.raises(ValueError, match="replay it on an offline session"):
        build("pipeline + memory", window=8_000, client=None, folder="/tmp")


def test_the_replay_command_offers_no_strategy_with_memory():
    parser = add_parser(argparse.ArgumentParser().add_subparsers())
    action = next(a for a in parser._actions if "--strategy" in a.option_strings)
    assert not [c for c in action.choices if notes.split(c)[1]]


def test_the_comparison_skips_memory_on_a_recorded_session_and_runs_it_live():
    recorded = Session("recorded", [], messages=[user("hello")], window=4_000)
    assert [r.strategy for r in run([recorded], ["none", "pipeline + memory"])] == ["none"]


def test_a_live_run_with_memory_reads_its_notes_within_the_window_and_pays_for_it():
    session = offline_session(80)  # long enough for a summary to take the notes' calls away
    options = {"turns": 80, "window": session.window, "probes": session.probes}
    plain = replay_offline("pipeline, no ledger", **options)
    with_notes = replay_offline("pipeline, no ledger + memory", **options)
    assert with_notes.strategy == "pipeline, no ledger + memory" and with_notes.counts["summary"] >= 1
    assert with_notes.memory["calls"] > 0 and with_notes.memory["turns"] >= 1  # the first look at least
    read = with_notes.final[-2:]
    assert [v["command"] for v in views(read)] == ["view"] * len(views(read)) and views(read)
    assert with_notes.peak <= session.window  # the read fits the window: it is an agent request too
    assert with_notes.cost.requests >= plain.cost.requests
    only_in_notes = set(score(session.probes, with_notes.final).answered) - set(
        score(session.probes, with_notes.final[:-2]).answered
    )
    assert only_in_notes  # some probe is answered by the notes read back, not by the context alone
