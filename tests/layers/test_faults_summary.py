"""Fault injection: whatever goes wrong with a summary, nothing is lost and the error says why."""

from __future__ import annotations

import copy

import anthropic
import pytest
from conversations import Call, Turn, build_session
from fake_summarizer import FakeClient, api_error, too_long

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent, sample_session
from compaction.core.failures import ReactiveCompactFailed, SummaryFailed
from compaction.core.messages import validate
from compaction.core.models import DEFAULT_MODEL
from compaction.core.store import OutputStore
from compaction.core.tokens import TokenCounter, estimate_tokens
from compaction.core.transcript import read_transcript
from compaction.layers.reactive import reactive_compact, send_with_recovery
from compaction.layers.summarize import MAX_PTL_RETRIES, compact_history
from compaction.pipeline.compactor import Compactor
from compaction.pipeline.hooks import Hooks

# the SDK warns when the default model name nears its end of life; it does not matter offline
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

SESSION = build_session(
    [Turn([Call("read_file", "     1\tx = 1")]), Turn([Call("bash", "2 passed")])] * 3,
    final="Tests pass now.",
)


def timeout_error():
    return anthropic.APITimeoutError(request=None)


FAULTS = {
    "a raised exception": (RuntimeError("connection reset by peer"), "RuntimeError"),
    "a timeout": (timeout_error(), "APITimeoutError"),
    "a server error": (api_error(500, "internal error"), "InternalServerError"),
    "an empty answer": ("   ", "empty"),
    "a tool call": ({"type": "tool_use", "id": "toolu_x", "name": "bash", "input": {}}, "called a tool"),
    "no summary tags": ("<analysis>only thinking</analysis>", "no non-empty <summary>"),
    "an empty summary": ("<summary>  </summary>", "no non-empty <summary>"),
}


@pytest.mark.parametrize("fault", FAULTS, ids=list(FAULTS))
@pytest.mark.parametrize("layer", ["compact_history", "reactive_compact"])
def test_a_failed_summary_raises_summary_failed_and_loses_nothing(tmp_path, fault, layer):
    outcome, why = FAULTS[fault]
    before = copy.deepcopy(SESSION)
    compact = compact_history if layer == "compact_history" else reactive_compact
    with pytest.raises(SummaryFailed) as caught:
        compact(SESSION, client=FakeClient(outcome), transcript_dir=tmp_path)
    assert why in caught.value.reason
    assert SESSION == before  # the list is untouched
    (path,) = tmp_path.iterdir()
    assert caught.value.transcript == path and str(path) in str(caught.value)
    assert read_transcript(path) == SESSION  # and the transcript is intact
    validate(read_transcript(path))


def test_the_timeout_is_passed_to_the_summary_call(tmp_path):
    client = FakeClient()
    compact_history(SESSION, client=client, transcript_dir=tmp_path, timeout=30.0)
    assert client.requests[0]["timeout"] == 30.0


def test_an_unwritable_transcript_directory_means_no_summary_is_asked_for(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the directory should be")
    client = FakeClient()
    for compact in (compact_history, reactive_compact):
        with pytest.raises(SummaryFailed, match="transcript could not be written") as caught:
            compact(SESSION, client=client, transcript_dir=blocker / "transcripts")
        assert "not-a-dir" in str(caught.value)
    assert client.requests == []  # nothing summarized, so nothing left the context unsaved


@pytest.mark.parametrize("sent", [8_100, 50_000], ids=["a little over", "far over"])
def test_repeated_prompt_too_long_on_the_summary_request_is_bounded(tmp_path, sent):
    client = FakeClient(too_long(sent, 8_000))
    with pytest.raises(SummaryFailed, match="still too long|does not fit") as caught:
        compact_history(SESSION, client=client, transcript_dir=tmp_path)
    assert len(client.requests) <= MAX_PTL_RETRIES + 1
    assert read_transcript(caught.value.transcript) == SESSION


def test_repeated_prompt_too_long_in_the_loop_ends_with_the_error_naming_the_transcript(tmp_path):
    client = FakeClient(too_long(9_120, 8_000), "<summary>x</summary>", too_long(9_001, 8_000))
    with pytest.raises(ReactiveCompactFailed, match="transcript") as caught:
        send_with_recovery(client, SESSION, transcript_dir=tmp_path, model="m", max_tokens=64)
    assert isinstance(caught.value.error, anthropic.BadRequestError)
    assert read_transcript(caught.value.transcript) == SESSION
    assert len(client.requests) == 3


def test_a_failing_summary_inside_the_loop_leaves_the_prompt_too_long_error_visible(tmp_path):
    client = FakeClient(too_long(9_120, 8_000), RuntimeError("summarizer down"))
    with pytest.raises(ReactiveCompactFailed, match="summarizer down") as caught:
        send_with_recovery(client, SESSION, transcript_dir=tmp_path, model="m", max_tokens=64)
    assert read_transcript(caught.value.transcript) == SESSION


# ------------------------------------------------------------ against the offline server


def _offline(window):
    return connect(context_window=window)


def test_the_offline_servers_refusal_is_recovered_with_one_reactive_compaction(tmp_path):
    session = sample_session(30)
    window = estimate_tokens(session, "tiktoken") * 2 // 3
    response, sent = send_with_recovery(
        _offline(window), session, transcript_dir=tmp_path, model=DEFAULT_MODEL, max_tokens=200
    )
    validate(sent)
    assert response.content and len(sent) < len(session)
    (path,) = tmp_path.iterdir()
    assert read_transcript(path) == session


def test_an_output_bigger_than_the_window_ends_in_the_clear_error_after_one_retry(tmp_path):
    session = sample_session(30)
    last = session[-2] if session[-1]["role"] == "assistant" else session[-1]
    end = session.index(last) + 1
    flood = [{**b, "content": "x y z\n" * 3000} if b["type"] == "tool_result" else b for b in last["content"]]
    flooded = [*session[: end - 1], {**last, "content": flood}]
    with pytest.raises(ReactiveCompactFailed, match="still too long") as caught:
        send_with_recovery(
            _offline(6_000), flooded, transcript_dir=tmp_path, model=DEFAULT_MODEL, max_tokens=200
        )
    assert isinstance(caught.value.error, anthropic.BadRequestError)
    assert read_transcript(caught.value.transcript) == flooded


def test_every_transcript_of_a_long_compacted_session_reads_back_valid(tmp_path):
    window, workspace = 3_000, new_workspace(tmp_path / "ws")
    client = _offline(window)
    pipeline = Compactor(
        store=OutputStore(workspace / ".outputs"),
        client=client,
        transcript_dir=workspace / ".transcripts",
        context_window=window,
        workspace=workspace,
        counter=TokenCounter("chars"),  # a crude estimate, so the API refuses a request now and then
    )
    result = run_agent(
        client,
        workspace=workspace,
        max_turns=100,
        hooks=Hooks(prepare=pipeline.prepare, on_prompt_too_long=pipeline.reactive),  # never anchored
    )
    assert result.error is None
    assert pipeline.counts()["reactive"] >= 1
    transcripts = sorted((workspace / ".transcripts").iterdir())
    assert transcripts
    for path in transcripts:
        validate(read_transcript(path))
