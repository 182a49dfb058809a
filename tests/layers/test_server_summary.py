"""The ``ServerSummary`` layer: on-demand compaction by the offline server, a strategy of evaluate, replay."""

from __future__ import annotations

from api_sessions import tool_session

from compaction.agent.backend import connect
from compaction.core.tokens import estimate_tokens
from compaction.evaluate.probes import context_text
from compaction.evaluate.recording import RecordingClient
from compaction.evaluate.replay.live import replay_offline
from compaction.evaluate.strategies import STRATEGIES
from compaction.layers.server_summary import ServerSummary
from compaction.offline.server.on_demand import sign
from compaction.pipeline.compactor import Compactor


def server_pipeline(client, threshold=None, **options) -> Compactor:
    """A Compactor whose one layer is the server's summary."""
    return Compactor([ServerSummary()], client=client, threshold=threshold, **options)


def test_it_is_a_strategy_of_evaluate_and_replay():
    assert "server summarize" in STRATEGIES


def test_under_the_threshold_nothing_is_sent():
    client = RecordingClient(connect())
    messages = tool_session(2)
    assert server_pipeline(client).prepare(messages) == messages
    assert client.requests == []


def test_over_the_threshold_the_list_becomes_one_signed_block_priced_as_a_summary(tmp_path):
    client = RecordingClient(connect())
    messages = tool_session(6)
    pipeline = server_pipeline(
        client, threshold=estimate_tokens(messages, "tiktoken") - 1, transcript_dir=tmp_path
    )
    (only,) = pipeline.prepare(messages)
    (block,) = only["content"]
    assert only["role"] == "assistant" and block["type"] == "compaction"
    assert block["signature"] == sign(block["content"])
    assert pipeline.counts() == {"summary": 1, "compact": 0}
    assert [r.summary for r in client.requests] == [True]
    (event,) = pipeline.events  # what the block replaced is on disk first
    assert event.saved_to and (tmp_path / event.saved_to.rsplit("/", 1)[1]).is_file()


def test_the_compact_tool_sends_its_focus_as_instructions():
    (only,) = server_pipeline(connect()).compact(tool_session(4), "m2.py")
    assert only["content"][0]["content"].startswith("Summarized following the instructions: ")


def test_a_live_offline_run_compacts_and_carries_on():
    run = replay_offline("server summarize", turns=30, window=8_000)
    assert run.counts["summary"] >= 1
    assert run.outcome and run.progress is not None and run.progress > 10


def test_probes_read_the_compaction_blocks_summary():
    block = {"type": "compaction", "content": "The user wants NOTES.md updated.", "signature": "x"}
    assert "notes.md updated" in context_text([{"role": "assistant", "content": [block]}])
    assert context_text([{"role": "assistant", "content": [{"type": "compaction", "content": None}]}]) == ""
