"""The three levels and the signals on real sessions by other projects (SWE-agent, Claude Code)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compaction.core.messages import tool_inputs, tool_names, tool_result_blocks, validate
from compaction.importers import load
from compaction.levels.checkpoint import build_checkpoint, from_markdown
from compaction.levels.condense import condense, detect_kind
from compaction.levels.locations import missing_references
from compaction.levels.phase_summary import compact_phases
from compaction.levels.signals import detect_signals

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
FILES = sorted(DATA.glob("swe-agent-trajectories/*.traj")) + sorted(
    DATA.glob("claude-code-transcripts/*.jsonl")
)


def messages_of(path: Path) -> list[dict]:
    return load(path).messages


pytestmark = pytest.mark.skipif(not FILES, reason=f"the shared sessions are not here: {DATA} is absent")


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_every_tool_output_of_a_real_session_keeps_its_locations_when_condensed(path):
    messages = messages_of(path)
    inputs, names = tool_inputs(messages), tool_names(messages)
    for message in messages:
        for block in tool_result_blocks(message):
            if not isinstance(block["content"], str):
                continue
            tool, command = (
                names.get(block["tool_use_id"]),
                inputs.get(block["tool_use_id"], {}).get("command"),
            )
            if detect_kind(block["content"], tool=tool, command=command) != "listing":
                condensed = condense(block["content"], tool=tool, command=command)
                assert missing_references(block["content"], condensed) == []


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_real_session_stays_valid_after_its_finished_phases_are_summarized(path, tmp_path):
    messages = messages_of(path)
    validate(messages)
    validate(compact_phases(messages, transcript_dir=tmp_path))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_real_sessions_checkpoint_reads_back_the_same(path):
    checkpoint = build_checkpoint(messages_of(path))
    assert from_markdown(checkpoint.to_markdown()) == checkpoint


def test_the_pydicom_fix_lists_the_file_it_edited_through_swe_agents_open_file():
    path = DATA / "swe-agent-trajectories" / "pydicom__pydicom-1458-3.traj"
    files = build_checkpoint(messages_of(path)).files_modified
    assert "pydicom/pixel_data_handlers/numpy_handler.py (edited)" in files


def test_signals_on_real_sessions_name_a_known_action():
    for path in FILES:
        for signal in detect_signals(messages_of(path)):
            assert signal.action in ("consider", "compact_now", "summarize_phase", "condense_output")
            assert signal.notice
