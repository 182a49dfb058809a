"""compaction.core.actions: what a call did to files, read the same way whatever the agent calls its tools."""

from __future__ import annotations

import pytest

from compaction.core.actions import changes, edit_refused, file_actions, shell_command
from compaction.core.shell import shell_actions

HEREDOC = "cat > repro.py << 'EOF'\nimport sqlfluff\nprint(sqlfluff.fix('SELECT 1'))\nEOF\npython repro.py"
PATCH = "\n".join(
    [
        "*** Begin Patch",
        "*** Update File: src/a.py",
        "@@",
        "-x = 1",
        "+x = 2",
        "*** Add File: b.py",
        "+print(1)",
    ]
)
SWE_EDIT = "edit 5:5\ndecrypted = pow(123, -1, 256)\nend_of_edit"
SHOWN = "[File: /ctf/decrypt.py (6 lines total)]\n1:with open('msg.enc') as f:"
REFUSED = (
    "Your proposed edit has introduced new syntax error(s).\n- E999 IndentationError\n"
    "Your changes have NOT been applied."
)


@pytest.mark.parametrize(
    ("name", "args", "output", "expected"),
    [
        # a shell command, whatever the tool is called
        ("bash", {"command": HEREDOC}, "", [("repro.py", "created (2 lines), starting `import sqlfluff`")]),
        (
            "Bash",
            {"command": "echo 'x = 1' > conf.py"},
            "",
            [("conf.py", "created (1 lines), starting `x = 1`")],
        ),
        ("bash", {"command": "echo done >> log.txt"}, "", [("log.txt", "appended")]),
        (
            "bash",
            {"command": "git diff src/L003.py > patch.txt"},
            "",
            [("patch.txt", "written by `git diff src/L003.py`")],
        ),
        (
            "bash",
            {"command": "sed -i 's/a - b/abs(a - b)/' main.py"},
            "",
            [("main.py", "edited: sed `s/a - b/abs(a - b)/`")],
        ),
        ("bash", {"command": "sed -n '10,20p' main.py"}, "", [("main.py", "read")]),
        ("bash", {"command": "cat src/L003.py | grep -n indent"}, "", [("src/L003.py", "read")]),
        ("bash", {"command": "python repro.py 2>/dev/null"}, "", []),
        (
            "bash",
            {"command": "patch -p1 < fix.patch"},
            "patching file src/L036.py\n",
            [("src/L036.py", "edited (patch)")],
        ),
        ("bash", {"command": "git checkout src/L036.py"}, "", [("src/L036.py", "reverted")]),
        ("bash", {"command": "git checkout main"}, "", []),  # a branch, not a file
        (
            "bash",
            {"command": "rm -f repro.py && touch notes.md"},
            "",
            [("repro.py", "deleted"), ("notes.md", "created (empty)")],
        ),
        ("bash", {"command": "cp a.py b.py"}, "", [("b.py", "created (copied from a.py)")]),
        ("bash", {"command": "printf 'x' | tee out.txt"}, "", [("out.txt", "created (empty)")]),
        # Codex: the shell's argument list, and apply_patch in a command or as its own tool
        ("shell", {"command": ["bash", "-lc", "cat main.py"]}, "", [("main.py", "read")]),
        (
            "shell",
            {"command": ["bash", "-lc", f"apply_patch <<'P'\n{PATCH}\nP"]},
            "",
            [("src/a.py", "edited: + `x = 2`"), ("b.py", "created (1 lines), starting `print(1)`")],
        ),
        (
            "apply_patch",
            {"input": "*** Begin Patch\n*** Delete File: old.py\n*** End Patch"},
            "",
            [("old.py", "deleted")],
        ),
        # SWE-agent's commands: the file an edit changed is the one its output shows
        ("bash", {"command": "create decrypt.py"}, "", [("decrypt.py", "created (empty)")]),
        ("bash", {"command": "open chall.py"}, "", [("chall.py", "read")]),
        (
            "bash",
            {"command": SWE_EDIT},
            SHOWN,
            [("/ctf/decrypt.py", "edited: + `decrypted = pow(123, -1, 256)`")],
        ),
        ("bash", {"command": SWE_EDIT}, REFUSED, []),  # refused: nothing changed
        (
            "edit",
            {"search": "return int(x)", "replace": "return int(round(x))"},
            "[File: /t/fields.py (9 lines total)]",
            [("/t/fields.py", "edited: + `return int(round(x))`")],
        ),
        ("create", {"filename": "reproduce.py"}, "", [("reproduce.py", "created (empty)")]),
        # file tools: any path key, whole content, old and new text
        (
            "Write",
            {"file_path": "C:\\repo\\msg.txt", "content": "Fix\n\nBody"},
            "",
            [("C:\\repo\\msg.txt", "created (3 lines), starting `Fix`")],
        ),
        (
            "Edit",
            {"file_path": "hook", "old_string": "python3", "new_string": "/c/Python314/python.exe"},
            "",
            [("hook", "edited: + `/c/Python314/python.exe`")],
        ),
        (
            "MultiEdit",
            {"file_path": "a.py", "edits": [{"old_string": "1", "new_string": "2"}]},
            "",
            [("a.py", "edited: + `2`")],
        ),
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.py"}, "", [("a.py", "read")]),
        (
            "str_replace_based_edit_tool",
            {"command": "create", "path": "n.py", "file_text": "x"},
            "",
            [("n.py", "created (1 lines), starting `x`")],
        ),
        ("read_file", {"path": "a.py"}, "", [("a.py", "read")]),
        ("Grep", {"pattern": "def", "path": "src"}, "", []),  # a folder searched, not a file read
    ],
)
def test_file_actions_read_any_agents_calls(name, args, output, expected):
    assert file_actions(name, args, output) == expected


def test_the_shell_command_of_any_tool_and_none_for_the_text_editors_sub_command():
    assert shell_command("bash", {"command": "ls"}) == "ls"
    assert shell_command("shell", {"command": ["bash", "-lc", "ls -la"]}) == "ls -la"
    assert shell_command("shell", {"command": ["git", "log", "-1"]}) == "git log -1"
    assert shell_command("run", {"cmd": "make"}) == "make"
    assert shell_command("str_replace_based_edit_tool", {"command": "view", "path": "a.py"}) is None
    assert shell_command("read_file", {"path": "a.py"}) is None


def test_the_memory_tools_notes_are_no_files_of_the_work():
    # chapter 18: the agent's notes under /memories are read back through the tool, not listed as files
    note = {"command": "create", "path": "/memories/task.md", "file_text": "- step 3 of 12\n"}
    assert file_actions("memory", note) == []
    assert shell_command("memory", {"command": "view", "path": "/memories"}) is None
    assert file_actions("str_replace_based_edit_tool", note) != []  # the same input from the editor is a file


def test_a_command_shlex_cannot_split_is_still_read():
    # an open quote: shlex gives up, a plain pattern still finds the redirection
    assert shell_actions("echo 'unbalanced > out.txt") == [
        ("out.txt", "created (1 lines), starting `'unbalanced`")
    ]
    assert shell_actions('cat notes.md; echo "it\'s" >> log.txt') == [
        ("notes.md", "read"),
        ("log.txt", "appended"),
    ]


def test_an_edit_shows_its_changed_lines_whole_and_a_refusal_is_told():
    assert changes("edit_file", {"old_text": "a\nb\n", "new_text": "a\nc\nd\n"}) == [
        "edited: + `c`",
        "edited: + `d`",
    ]
    assert changes("edit_file", {"old_text": "a\nb\n", "new_text": "a\n"}) == ["edited: - `b`"]
    assert edit_refused(REFUSED) and not edit_refused(SHOWN)
