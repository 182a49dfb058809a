"""Transcripts: the whole list on disk, private, durable, and read back identical."""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compaction.core.messages import assistant, text, tool_result, tool_use, user, validate
from compaction.core.transcript import TranscriptError, read_transcript, write_transcript

SESSION = [
    user("Fix the failing test in calc.py — ünïcødé and 日本語 too"),
    assistant("Let me look.", tool_use("toolu_1", "read_file", {"path": "calc.py"})),
    user(tool_result("toolu_1", "     1\tdef add(a, b):\n     2\t    return a - b"), text("thanks")),
    assistant("The bug is the minus sign."),
]


def test_a_transcript_reads_back_to_the_identical_list(tmp_path):
    path = write_transcript(SESSION, tmp_path)
    assert read_transcript(path) == SESSION


def test_a_transcript_has_one_message_per_line_in_utf8(tmp_path):
    path = write_transcript(SESSION, tmp_path)
    lines = path.read_bytes().decode("utf-8").splitlines()
    assert len(lines) == len(SESSION)
    assert "日本語" in lines[0]


def test_a_transcript_file_is_private_and_its_new_directory_too(tmp_path):
    directory = tmp_path / "deep" / ".transcripts"
    path = write_transcript(SESSION, directory)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(directory.stat().st_mode) == 0o700


def test_names_count_up_and_never_overwrite(tmp_path):
    first = write_transcript(SESSION, tmp_path)
    second = write_transcript(SESSION[:1], tmp_path)
    assert (first.name, second.name) == ("transcript-0001.jsonl", "transcript-0002.jsonl")
    assert read_transcript(first) == SESSION


def test_a_given_name_is_used_once_and_then_refused(tmp_path):
    path = write_transcript(SESSION, tmp_path, name="before-summary.jsonl")
    assert path.name == "before-summary.jsonl"
    with pytest.raises(TranscriptError, match="already exists"):
        write_transcript(SESSION, tmp_path, name="before-summary.jsonl")
    assert read_transcript(path) == SESSION


@pytest.mark.parametrize("name", ["../escape.jsonl", "a/b.jsonl", "", ".."])
def test_a_name_that_is_not_a_plain_file_name_is_refused(tmp_path, name):
    with pytest.raises(ValueError, match="name"):
        write_transcript(SESSION, tmp_path, name=name)


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_an_unwritable_directory_raises_a_transcript_error_naming_it(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    try:
        with pytest.raises(TranscriptError) as caught:
            write_transcript(SESSION, locked)
        assert isinstance(caught.value, OSError)
        assert "locked" in str(caught.value)
    finally:
        locked.chmod(0o700)


def test_a_directory_that_is_a_file_raises_a_transcript_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(TranscriptError, match="file"):
        write_transcript(SESSION, blocker / "sub")


def test_an_unserialisable_message_is_refused_before_any_file_exists(tmp_path):
    with pytest.raises(TranscriptError, match=r"messages\[1\]"):
        write_transcript([user("hi"), {"role": "assistant", "content": object()}], tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_half_of_a_surrogate_pair_is_refused_naming_the_message_before_any_file_exists(tmp_path):
    with pytest.raises(TranscriptError, match=r"messages\[1\] holds a lone UTF-16 surrogate \(U\+D83D"):
        write_transcript([user("hi"), user("an emoji cut in two: \ud83d")], tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_list_of_non_messages_is_a_type_error_naming_the_index(tmp_path):
    with pytest.raises(TypeError, match=r"messages\[0\]"):
        write_transcript(["hello"], tmp_path)


def test_reading_a_missing_or_corrupt_transcript_names_the_path_and_line(tmp_path):
    with pytest.raises(TranscriptError, match="missing.jsonl"):
        read_transcript(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"role": "user", "content": "hi"}\n{oops\n', encoding="utf-8")
    with pytest.raises(TranscriptError, match="line 2"):
        read_transcript(bad)


_text = st.text(min_size=1, max_size=40).filter(str.strip)


@st.composite
def conversations(draw):
    """Valid strict-form lists with text, tool calls and their results."""
    messages, n = [user(draw(_text))], draw(st.integers(0, 6))
    for turn in range(n):
        calls = draw(st.integers(0, 2))
        ids = [f"toolu_{turn}_{k}" for k in range(calls)]
        messages.append(assistant(draw(_text), *(tool_use(i, "bash", {"command": draw(_text)}) for i in ids)))
        if ids:
            messages.append(user(*(tool_result(i, draw(st.text(max_size=60))) for i in ids)))
        else:
            messages.append(user(draw(_text)))
    return messages


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(conversations())
def test_every_transcript_reads_back_to_a_valid_identical_list(tmp_path, messages):
    validate(messages)
    path = write_transcript(messages, tmp_path)
    back = read_transcript(path)
    assert back == messages
    validate(back)
