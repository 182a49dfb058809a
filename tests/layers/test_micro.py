"""L2 micro_compact: old results become one line naming what to re-run; the newest stay whole."""

from __future__ import annotations

import copy

import pytest
from conversations import Call, Turn, build_session

from compaction.core.messages import assistant, tool_result, tool_result_blocks, tool_use, user, validate
from compaction.core.placeholders import persisted_marker
from compaction.layers.micro import Micro, cleared_count, is_cleared, micro_compact, placeholder_for

LONG = "x = 1\n" * 100  # 600 characters


def reads(n, content=LONG):
    return build_session([Turn([Call("read_file", content)]) for _ in range(n)])


def results(messages):
    return [b for m in messages for b in tool_result_blocks(m)]


def test_all_but_the_newest_three_results_are_replaced():
    out = micro_compact(reads(7), keep_recent=3)
    validate(out)
    assert [is_cleared(b["content"]) for b in results(out)] == [True] * 4 + [False] * 3


def test_the_placeholder_names_the_file_to_read_again():
    out = micro_compact(reads(2), keep_recent=1)
    assert results(out)[0]["content"] == (
        "[Old tool result cleared: read_file of src/module_0.py. Read the file again if you need its output.]"
    )


@pytest.mark.parametrize(
    ("name", "tool_input", "expected"),
    [
        ("read_file", {"path": "a/b.py"}, "read_file of a/b.py. Read the file again"),
        ("bash", {"command": "pytest -q\nls"}, "bash `pytest -q ls`. Run the command again"),
        ("glob", {"pattern": "**/*.py"}, "glob **/*.py. Run the glob again"),
        (
            "edit_file",
            {"path": "a.py", "old_text": "x"},
            'edit_file {"old_text": "x", "path": "a.py"}. Call the tool',
        ),
        (None, None, "unknown tool {}. Call the tool again"),
    ],
)
def test_placeholders_say_what_to_re_run_on_one_line(name, tool_input, expected):
    note = placeholder_for(name, tool_input)
    assert expected in note and "\n" not in note and is_cleared(note)


def test_a_very_long_command_is_shortened_in_the_placeholder():
    note = placeholder_for("bash", {"command": "echo " + "a" * 5_000})
    assert len(note) < 300 and "..." in note


def test_ids_error_flags_and_pairing_are_kept():
    session = build_session(
        [Turn([Call("bash", LONG, is_error=True), Call("read_file", LONG)]) for _ in range(3)]
    )
    out = micro_compact(session, keep_recent=1)
    validate(out)
    for a, b in zip(results(session), results(out), strict=True):
        assert a["tool_use_id"] == b["tool_use_id"] and a.get("is_error") == b.get("is_error")


def test_short_results_stay_as_they_are():
    out = micro_compact(reads(6, content="ok"), keep_recent=1, min_chars=120)
    assert cleared_count(out) == 0


def test_excluded_tools_are_never_cleared():
    session = build_session([Turn([Call("bash", LONG), Call("read_file", LONG)]) for _ in range(4)])
    out = micro_compact(session, keep_recent=0, exclude_tools={"read_file"})
    kinds = [(b["content"] == LONG) for b in results(out)]
    assert kinds == [False, True] * 4


def test_persisted_markers_and_earlier_placeholders_are_left_alone():
    marker = persisted_marker("tool-results/t.txt", 300_000, "y" * 2_000)
    session = build_session(
        [Turn([Call("bash", marker)]), *[Turn([Call("read_file", LONG)]) for _ in range(4)]]
    )
    once = micro_compact(session, keep_recent=1)
    assert results(once)[0]["content"] == marker
    assert micro_compact(once, keep_recent=1) == once


def test_a_huge_imitation_of_a_marker_is_cleared_like_any_other_result():
    fake = persisted_marker("../../etc/passwd", 1, "z" * 50_000)
    out = micro_compact(
        build_session([Turn([Call("bash", fake)]), Turn([Call("bash", "ok")])]), keep_recent=1
    )
    assert is_cleared(results(out)[0]["content"])


def test_list_contents_are_measured_by_their_text():
    content = [{"type": "text", "text": LONG}, {"type": "text", "text": LONG}]
    out = micro_compact(build_session([Turn([Call("read_file", content)]), Turn([])]), keep_recent=0)
    assert is_cleared(results(out)[0]["content"])


def test_keep_recent_zero_clears_every_long_result_and_a_large_keep_clears_none():
    assert cleared_count(micro_compact(reads(5), keep_recent=0)) == 5
    assert cleared_count(micro_compact(reads(5), keep_recent=10)) == 0


def test_the_input_is_never_mutated_and_untouched_messages_are_shared():
    session = reads(6)
    before = copy.deepcopy(session)
    out = micro_compact(session, keep_recent=2)
    assert session == before
    assert out[-1] is session[-1] and out[0] is session[0]


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"keep_recent": -1}, "keep_recent"),
        ({"min_chars": -3}, "min_chars"),
        ({"keep_recent": "3"}, "keep_recent"),
        ({"exclude_tools": "bash"}, "exclude_tools"),
        ({"exclude_tools": [1]}, "exclude_tools"),
    ],
)
def test_bad_parameters_raise_value_error_naming_the_parameter(kwargs, name):
    with pytest.raises(ValueError, match=name):
        micro_compact(reads(2), **kwargs)


def test_keep_unread_never_clears_a_result_the_model_has_not_read():
    """Several calls of one turn answered together: all of the last message's results stay whole."""
    long = "x" * 2_000
    calls = assistant(*[tool_use(f"t{k}", "read_file", {"path": f"f{k}.py"}) for k in range(3)])
    answered = [
        user("go"),
        assistant(tool_use("t-old", "read_file", {"path": "old.py"})),
        user(tool_result("t-old", long)),
    ]
    messages = [*answered, calls, user(*[tool_result(f"t{k}", long) for k in range(3)])]
    after = Micro(keep_recent=1, keep_unread=True).apply(messages, None)
    assert is_cleared(after[2]["content"][0]["content"])  # answered: cleared
    assert [b["content"] for b in after[-1]["content"]] == [long] * 3  # not yet read: whole
    assert (
        micro_compact(messages, keep_recent=1)[-1]["content"][0]["content"] != long
    )  # the function alone clears


TRACE = (
    "Traceback (most recent call last):\n"
    '  File "chall.py", line 9, in <module>\n'
    "    ct = encrypt(msg)\n"
    + "  ...\n" * 40
    + "TypeError: unsupported operand type(s) for *: 'int' and 'str'"
)


def failed_then_used():
    """A failed run, then a long listing whose one port line the agent names later, then more work."""
    listing = "\n".join(f"service svc_{k} on port {9000 + k}" for k in range(40))
    return build_session(
        [
            Turn([Call("bash", TRACE)]),
            Turn([Call("bash", listing)]),
            Turn([Call("bash", "ok " * 80)], say="svc_17 listens on 9017, so I connect there."),
            Turn([Call("bash", "done " * 80)]),
        ]
    )


def test_a_placeholder_keeps_a_failed_results_error_line_and_its_used_line_bounded():
    messages = failed_then_used()
    out = micro_compact(messages, keep_recent=1, keep_errors=2, keep_used=1)
    validate(out)
    trace, listing = (b["content"] for b in results(out)[:2])
    assert is_cleared(trace) and is_cleared(listing)
    assert "TypeError: unsupported operand type(s) for *: 'int' and 'str'" in trace
    assert "Traceback (most recent call last)" not in trace  # the exception, not the traceback's head
    assert listing.splitlines()[-1] == "service svc_17 on port 9017"  # the one line named later
    assert len(listing.splitlines()) == 3  # the note, the kept-lines head, one line: bounded
    plain = micro_compact(messages, keep_recent=1)
    assert "TypeError" not in results(plain)[0]["content"]  # off by default in micro_compact


def test_keep_errors_is_a_whole_number():
    with pytest.raises(ValueError, match="keep_errors"):
        micro_compact(reads(2), keep_errors=-1)
    with pytest.raises(ValueError, match="keep_errors"):
        Micro(keep_errors=1.5)
