"""Fault injection: whatever goes wrong with a summary, nothing is lost and the error says why."""

from __future__ import annotations

import copy

import anthropic
import pytest
from fake_summarizer import FakeClient, api_error, too_long
from strategies import Call, Turn, build_session

from compaction.messages import validate
from compaction.reactive import ReactiveCompactFailed, reactive_compact, send_with_recovery
from compaction.summarize import MAX_PTL_RETRIES, SummaryFailed, compact_history
from compaction.transcript import read_transcript

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
