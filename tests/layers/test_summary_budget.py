"""How long a summary's answer may be: a tenth of the window, with a floor for small windows."""

from __future__ import annotations

import pytest
from conversations import Call, Turn, build_session
from fake_summarizer import FakeClient

from compaction.layers.summarize import MIN_SUMMARY_TOKENS, compact_history, summary_tokens

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


def test_a_large_window_gives_a_tenth_of_it():
    assert summary_tokens(200_000) == 20_000
    assert summary_tokens(30_878) == 3_087


def test_a_small_window_gives_the_floor_not_a_tenth():
    assert MIN_SUMMARY_TOKENS == 800
    assert summary_tokens(4_180) == 800  # a tenth would be 418: room for a handful of findings
    assert summary_tokens(8_000) == 800  # where the floor and a tenth meet


def test_the_floor_never_takes_more_than_a_fifth_of_the_window_nor_less_than_256():
    assert summary_tokens(3_000) == 600
    assert summary_tokens(1_000) == 256
    for window in range(1_000, 12_000, 97):
        assert 256 <= summary_tokens(window) <= max(256, window // 5)
        assert summary_tokens(window) >= window // 10


def test_the_summary_request_asks_for_the_floor_in_a_small_window(tmp_path):
    session = build_session([Turn([Call("bash", "3 passed")])], final="All three pass.")
    client = FakeClient()
    compact_history(session, client=client, transcript_dir=tmp_path, context_window=4_180)
    assert client.requests[0]["max_tokens"] == 800
    compact_history(session, client=client, transcript_dir=tmp_path, context_window=100_000)
    assert client.requests[1]["max_tokens"] == 10_000
