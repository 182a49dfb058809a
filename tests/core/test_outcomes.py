"""compaction.core.outcomes: a command's outcome from any harness's output, and errors with their fixes."""

from __future__ import annotations

import pytest

from compaction.core.messages import assistant, tool_result, tool_use, user
from compaction.core.outcomes import body, command_entry, errors_and_fixes, first_problem, tool_calls
from compaction.core.placeholders import CLEARED_HEAD, cleared_placeholder, kept_lines

TRACE = "Traceback (most recent call last):\n  File \"/w/helper.py\", line 3, in <module>\nKeyError: 'id'"
MINI = "<returncode>{code}</returncode>\n<output>\n{text}\n</output>"
REFUSED = "ERRORS:\n- E999 IndentationError: unexpected indent\nYour changes have NOT been applied."


@pytest.mark.parametrize(
    ("command", "output", "is_error", "expected"),
    [
        # mini-swe-agent wraps every output; its exit status is a tag, 0 is not worth a word
        ("python -m tool", MINI.format(code=1, text="python: No module named tool"), False,
         "- `python -m tool` -> exit 1; python: No module named tool"),
        ("ls src", MINI.format(code=0, text="a.py"), False, "- `ls src` -> a.py"),
        # Claude Code's "Exit code N" first line
        ("pkill -9 git", "Exit code 127\n/usr/bin/bash: line 1: pkill: command not found", True,
         "- `pkill -9 git` -> exit 127; /usr/bin/bash: line 1: pkill: command not found"),
        # no exit status at all (SWE-agent): a traceback fails it, and says its exception, not its first line
        ("python helper.py", TRACE, False, "- `python helper.py` -> failed; KeyError: 'id'"),
        # a search that finds nothing is not a failure
        ("grep -n foo a.py", MINI.format(code=1, text=""), False,
         "- `grep -n foo a.py` -> exit 1 (nothing found)"),
        ("find . | xargs grep -l foo", MINI.format(code=123, text=""), False,
         "- `find . | xargs grep -l foo` -> exit 123 (nothing found)"),
        # SWE-agent's syntax check refusing an edit
        ("edit 2:2\n  x = 1\nend_of_edit", REFUSED, False,
         "- `edit 2:2 x = 1 end_of_edit` -> failed; - E999 IndentationError: unexpected indent"),
    ],
)  # fmt: skip
def test_a_command_entry_reads_any_harness(command, output, is_error, expected):
    assert command_entry(" ".join(command.split()), output, is_error)[0] == expected


def test_body_drops_the_wrapping_and_keeps_the_output():
    wrapped = (
        "<returncode>0</returncode>\n<warning>\nToo long.\n</warning><output_head>\nline 1\n</output_head>"
    )
    assert body(wrapped) == "Too long.\nline 1"
    assert body("<html>\n<li>x</li>") == "<html>\n<li>x</li>"  # a page's own tags are its output


def session(calls: list[tuple[str, dict, str]]) -> list[dict]:
    messages = [user("Fix it.")]
    for k, (name, args, output) in enumerate(calls):
        messages += [assistant(tool_use(f"t{k}", name, args)), user(tool_result(f"t{k}", output))]
    return messages


def test_changes_between_a_failure_and_the_same_command_passing_are_its_fix():
    calls = [
        (
            "bash",
            {"command": "pytest"},
            MINI.format(code=1, text="FAILED t.py::test_a - AssertionError\n1 failed"),
        ),
        ("bash", {"command": "sed -i 's/1/2/' calc.py"}, MINI.format(code=0, text="")),
        ("bash", {"command": "pytest"}, MINI.format(code=0, text="1 passed")),
    ]
    (entry,) = errors_and_fixes(tool_calls(session(calls)))
    assert entry == (
        "- `pytest` failed (1 failed): t.py::test_a: AssertionError; edited calc.py; "
        "then `pytest` passed (1 passed)"
    )


def test_a_failure_never_run_again_gets_the_changes_to_files_it_names_and_the_next_command():
    calls = [
        ("bash", {"command": "python helper.py"}, MINI.format(code=1, text=TRACE)),
        ("bash", {"command": "cat > notes.md << 'EOF'\nunrelated\nEOF"}, MINI.format(code=0, text="")),
        ("bash", {"command": "sed -i 's/id/key/' helper.py"}, MINI.format(code=0, text="")),
        ("bash", {"command": "python -m tool"}, MINI.format(code=1, text="No module named tool")),
        ("bash", {"command": "pip install -e ."}, MINI.format(code=0, text="Successfully installed tool")),
        ("bash", {"command": "python -m tool --check"}, MINI.format(code=1, text="No module named yaml")),
        ("bash", {"command": "cat setup.py"}, MINI.format(code=0, text="setup()")),
    ]
    first, second, third = errors_and_fixes(tool_calls(session(calls)))
    assert (
        first == "- `python helper.py` failed: KeyError: 'id'; next `cat > notes.md << 'EOF' unrelated EOF`; "
        "edited helper.py"
    )
    assert "edited notes.md" not in first  # a change to a file the error never named is other work
    assert second == "- `python -m tool` failed: No module named tool; next `pip install -e .`"
    assert "next" not in third  # looking at a file is not a fix


def test_a_refused_edit_by_a_file_tool_is_an_error_with_its_line():
    calls = [
        (
            "edit",
            {"search": "a", "replace": " b"},
            "ERRORS:\n- E999 IndentationError: unexpected indent\nYour changes have NOT been applied.",
        )
    ]  # noqa: E501
    assert errors_and_fixes(tool_calls(session(calls))) == [
        "- edit failed: - E999 IndentationError: unexpected indent"
    ]


def test_a_failed_call_whose_result_micro_cleared_bare_says_its_output_was_cleared():
    bare = cleared_placeholder("Bash", {"command": "whoami /priv"})
    calls = [("Bash", {"command": "whoami /priv"}, bare), ("Bash", {"command": "id"}, "uid=1000")]
    messages = session(calls)
    messages[2]["content"][0]["is_error"] = True
    (entry,) = errors_and_fixes(tool_calls(messages))
    assert entry == "- `whoami /priv` failed: (output cleared); next `id`"
    assert CLEARED_HEAD not in first_problem(bare)


def test_a_placeholder_with_kept_lines_still_shows_its_first_line():
    kept = cleared_placeholder("bash", {"command": "pytest"}, ["t.py::test_a: AssertionError"])
    assert kept_lines(kept) == ["t.py::test_a: AssertionError"]
    assert first_problem(kept).startswith(CLEARED_HEAD)
    assert kept_lines(cleared_placeholder("bash", {"command": "pytest"})) == []
    assert kept_lines("t.py::test_a: AssertionError") == []  # not a placeholder
