"""compaction.core.used: the lines of a result the agent relied on, and micro's placeholder keeping them."""

from __future__ import annotations

import pytest

from compaction.core.messages import text, tool_result, tool_use, validate
from compaction.core.placeholders import KEPT_HEAD, cleared_placeholder
from compaction.core.used import LaterUse, is_specific, specifics, used_lines
from compaction.layers.micro import is_cleared, micro_compact

GREP = (
    "textstats/counts.py:17:def top_words(tokens, n=10):\n"
    "textstats/counts.py:40:def hapaxes(tokens):\n"
    "the quick brown fox\n"
)


def said(words, **tool_input):
    content = [text(words)]
    if tool_input:
        content.append(tool_use("toolu_9", "read_file", tool_input))
    return {"role": "assistant", "content": content}


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("textstats/counts.py", True),
        ("top_words", True),
        ("TypeError", True),
        ("m.__doc__", True),
        ("54", True),
        ("7", False),  # one digit: too common to mean anything
        ("normalize", False),  # a plain word
        ("the", False),
        ("ab", False),
        ("", False),
    ],
)
def test_specific_tokens(token, expected):
    assert is_specific(token) is expected


def test_quoted_strings_and_file_names_are_specific():
    found = specifics('raise ValueError("n must be positive") in ./pkg/mod.py')
    assert {"n must be positive", "ValueError", "pkg/mod.py", "mod.py"} <= found
    assert "raise" not in found


def test_a_quoted_folder_path_is_specific_and_its_empty_file_name_is_not():
    found = specifics("ls 'src/pkg/' then \"build/\"")  # the file name after the last / is empty
    assert {"src/pkg/", "build/"} <= found and "" not in found


def test_a_line_is_used_when_a_later_tool_input_names_its_path():
    assert used_lines(GREP, [said("Reading it.", path="textstats/counts.py")]) == [
        "textstats/counts.py:17:def top_words(tokens, n=10):",
        "textstats/counts.py:40:def hapaxes(tokens):",
    ]


def test_the_line_with_more_used_tokens_comes_first_when_bounded():
    later = [said("top_words is wrong.", path="textstats/counts.py")]
    assert used_lines(GREP, later, max_lines=1) == ["textstats/counts.py:17:def top_words(tokens, n=10):"]


def test_plain_words_said_later_do_not_make_a_line_used():
    assert used_lines(GREP, [said("the quick brown fox")]) == []


def test_nothing_said_later_keeps_nothing():
    assert used_lines(GREP, []) == []
    assert (
        used_lines(GREP, [{"role": "user", "content": "textstats/counts.py"}]) == []
    )  # the user, not the agent


def test_the_character_bound_keeps_whole_lines_only():
    later = [said("x", path="textstats/counts.py")]
    kept = used_lines(GREP, later, max_chars=60)
    assert kept == ["textstats/counts.py:17:def top_words(tokens, n=10):"]
    assert sum(map(len, kept)) <= 60


def test_later_use_matches_used_lines_message_by_message():
    messages = session()
    index = LaterUse(messages)
    assert index.lines(GREP, 2) == used_lines(GREP, messages[3:])
    assert index.lines(GREP, len(messages)) == []


def session():
    """A grep whose first hit the agent reads next; then two more results so micro clears the grep."""
    messages = [{"role": "user", "content": "Find top_words."}]
    calls = [
        ("bash", {"command": 'grep -rn "def " textstats'}, GREP + "unused line\n" * 40),
        ("read_file", {"path": "textstats/counts.py"}, "def top_words():\n    pass\n" * 20),
        ("bash", {"command": "ls"}, "a\nb\n" * 50),
        ("bash", {"command": "pwd"}, "/work/project\n" * 20),
    ]
    for k, (name, args, output) in enumerate(calls):
        messages.append(
            {"role": "assistant", "content": [text(f"step {k}"), tool_use(f"toolu_{k}", name, args)]}
        )
        messages.append({"role": "user", "content": [tool_result(f"toolu_{k}", output)]})
    return messages


def test_micro_keeps_a_used_line_and_drops_an_unused_one():
    out = micro_compact(session(), keep_recent=2, keep_used=3)
    validate(out)
    note = out[2]["content"][0]["content"]
    assert is_cleared(note)
    assert note.splitlines()[1] == KEPT_HEAD
    assert "textstats/counts.py:17:def top_words(tokens, n=10):" in note  # read next: used
    assert "the quick brown fox" not in note  # never mentioned again: dropped
    assert "Run the command again for the rest of its output." in note
    assert len(note.splitlines()) <= 2 + 3


def test_micro_without_keep_used_writes_the_one_line_note():
    out = micro_compact(session(), keep_recent=2)
    assert out[2]["content"][0]["content"] == cleared_placeholder(
        "bash", {"command": 'grep -rn "def " textstats'}
    )


def test_a_placeholder_with_kept_lines_is_not_cleared_again():
    once = micro_compact(session(), keep_recent=2, keep_used=3)
    assert micro_compact(once, keep_recent=2, keep_used=3) == once


def test_keep_used_must_be_a_whole_number():
    with pytest.raises(ValueError, match="keep_used"):
        micro_compact(session(), keep_used=-1)


def test_a_result_that_only_looks_like_a_placeholder_is_not_one():
    assert not is_cleared("[Old tool result cleared: x. y.]\nsomething else")
