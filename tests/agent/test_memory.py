"""The memory tool's handler: the six commands on one folder, answered as the model reads them.

Each command is checked on its own (what it writes, what it answers, what it refuses) and then as a
runnable tool: the agent loop and the SDK take it as they take ``BetaLocalFilesystemMemoryTool``.
Hostile commands (paths out of the folder, links, huge files) are in ``test_memory_hostile.py``.
"""

from __future__ import annotations

import os
import stat

import pytest
from anthropic.lib.tools import BetaAbstractMemoryTool

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.agent.memory import MEMORY_TOOL, MemoryFolder
from compaction.agent.tools import TOOL_DEFINITIONS, tool_params
from compaction.core.messages import tool_result_blocks, tool_use, tool_use_blocks


@pytest.fixture
def memory(tmp_path):
    return MemoryFolder(tmp_path / "memories")


def call(memory, **args):
    """(answer text, is_error) of one command."""
    block = memory.run(tool_use("toolu_1", "memory", args))
    return block["content"], bool(block.get("is_error"))


def ok(memory, **args):
    text, failed = call(memory, **args)
    assert not failed, text
    return text


def refused(memory, **args):
    text, failed = call(memory, **args)
    assert failed, text
    assert text.startswith("Error: memory")
    return text


# ------------------------------------------------------------ the tool itself


def test_it_is_the_sdks_memory_tool_and_names_itself_as_the_api_expects(memory):
    assert isinstance(memory, BetaAbstractMemoryTool)
    assert memory.to_dict() == MEMORY_TOOL == {"type": "memory_20250818", "name": "memory"}
    assert memory.name == "memory"


def test_the_folder_is_created_owner_only(tmp_path):
    MemoryFolder(tmp_path / "a" / "memories")
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "memories").st_mode) == 0o700


def test_a_folder_given_as_a_symbolic_link_is_refused(tmp_path):
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "link")
    with pytest.raises(ValueError, match="symbolic link"):
        MemoryFolder(tmp_path / "link")


# ------------------------------------------------------------ view


def test_view_of_an_empty_folder_says_so(memory):
    assert ok(memory, command="view", path="/memories").endswith("(empty)")


def test_view_lists_two_levels_with_sizes_and_leaves_hidden_names_out(memory):
    ok(memory, command="create", path="/memories/notes.md", file_text="# Notes\n")
    ok(memory, command="create", path="/memories/a/b/deep.md", file_text="x")
    (memory.root / ".hidden").write_text("secret")
    listing = ok(memory, command="view", path="/memories/")
    assert listing.splitlines()[1:] == [
        "     -\t/memories/a/",
        "     -\t/memories/a/b/",
        "    8B\t/memories/notes.md",
    ]
    assert ".hidden" not in listing and "deep.md" not in listing  # a third level is not shown
    assert str(memory.root) not in listing


def test_view_numbers_the_lines_of_a_file(memory):
    ok(memory, command="create", path="/memories/n.md", file_text="one\ntwo\nthree\n")
    assert ok(memory, command="view", path="/memories/n.md").splitlines() == [
        "/memories/n.md, lines 1-3 of 3:",
        "     1\tone",
        "     2\ttwo",
        "     3\tthree",
    ]


@pytest.mark.parametrize(
    ("view_range", "shown"),
    [([2, 3], ["2", "3"]), ([2, -1], ["2", "3"]), ([3, 3], ["3"]), ([1, 99], ["1", "2", "3"])],
)
def test_view_range_is_first_and_last_line_from_one_and_minus_one_ends_it(memory, view_range, shown):
    ok(memory, command="create", path="/memories/n.md", file_text="one\ntwo\nthree\n")
    lines = ok(memory, command="view", path="/memories/n.md", view_range=view_range).splitlines()[1:]
    assert [line.split("\t")[0].strip() for line in lines] == shown


@pytest.mark.parametrize("view_range", [[0, 2], [3, 2], [4, 5], [1], [1, 2, 3]])
def test_a_view_range_outside_the_file_is_refused(memory, view_range):
    ok(memory, command="create", path="/memories/n.md", file_text="one\ntwo\nthree\n")
    assert "view_range" in refused(memory, command="view", path="/memories/n.md", view_range=view_range)


def test_view_of_a_missing_file_is_refused_by_name(memory):
    assert "/memories/none.md: no such file" in refused(memory, command="view", path="/memories/none.md")


# ------------------------------------------------------------ create


def test_create_writes_the_text_owner_only_and_makes_its_folders(memory):
    assert ok(memory, command="create", path="/memories/p/q/n.md", file_text="a\nb\n") == (
        "Created /memories/p/q/n.md (2 lines)."
    )
    target = memory.root / "p" / "q" / "n.md"
    assert target.read_text() == "a\nb\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE((memory.root / "p").stat().st_mode) == 0o700
    assert not [p for p in memory.root.rglob(".tmp-*")]  # the temporary file is gone


def test_create_never_overwrites(memory):
    ok(memory, command="create", path="/memories/n.md", file_text="first")
    assert "already exists" in refused(memory, command="create", path="/memories/n.md", file_text="second")
    assert (memory.root / "n.md").read_text() == "first"


# ------------------------------------------------------------ str_replace


def test_str_replace_changes_the_one_occurrence_and_names_its_line(memory):
    ok(memory, command="create", path="/memories/n.md", file_text="# Notes\n- status: exploring\n")
    answer = ok(memory, command="str_replace", path="/memories/n.md", old_str="exploring", new_str="fixing")
    assert answer == "Edited /memories/n.md: replaced the text at line 2."
    assert (memory.root / "n.md").read_text() == "# Notes\n- status: fixing\n"


def test_str_replace_refuses_text_found_twice_or_not_at_all_and_changes_nothing(memory):
    ok(memory, command="create", path="/memories/n.md", file_text="- a\n- a\n")
    twice = refused(memory, command="str_replace", path="/memories/n.md", old_str="- a", new_str="- b")
    assert "found 2 times (lines 1, 2)" in twice
    assert "absent" in refused(memory, command="str_replace", path="/memories/n.md", old_str="zz", new_str="")
    assert "must not be empty" in refused(
        memory, command="str_replace", path="/memories/n.md", old_str="", new_str="x"
    )
    assert (memory.root / "n.md").read_text() == "- a\n- a\n"


# ------------------------------------------------------------ insert


@pytest.mark.parametrize(
    ("line", "after"), [(0, "new\none\ntwo\n"), (1, "one\nnew\ntwo\n"), (2, "one\ntwo\nnew\n")]
)
def test_insert_puts_the_text_after_the_line_given_zero_at_the_top(memory, line, after):
    ok(memory, command="create", path="/memories/n.md", file_text="one\ntwo\n")
    ok(memory, command="insert", path="/memories/n.md", insert_line=line, insert_text="new")
    assert (memory.root / "n.md").read_text() == after


@pytest.mark.parametrize("line", [-1, 3])
def test_insert_outside_the_file_is_refused(memory, line):
    ok(memory, command="create", path="/memories/n.md", file_text="one\ntwo\n")
    assert "not between 0 and 2" in refused(
        memory, command="insert", path="/memories/n.md", insert_line=line, insert_text="x"
    )


# ------------------------------------------------------------ delete and rename


def test_delete_a_file_and_a_folder_but_never_the_root(memory):
    ok(memory, command="create", path="/memories/n.md", file_text="x")
    ok(memory, command="create", path="/memories/old/a.md", file_text="x")
    ok(memory, command="create", path="/memories/old/b.md", file_text="x")
    assert ok(memory, command="delete", path="/memories/n.md") == "Deleted /memories/n.md."
    assert (
        ok(memory, command="delete", path="/memories/old")
        == "Deleted the folder /memories/old and 2 files in it."
    )
    assert "cannot be deleted" in refused(memory, command="delete", path="/memories")
    assert "no such file" in refused(memory, command="delete", path="/memories/n.md")
    assert memory.root.is_dir() and not list(memory.root.iterdir())


def test_rename_moves_and_refuses_an_existing_destination_the_root_and_a_move_into_itself(memory):
    ok(memory, command="create", path="/memories/a.md", file_text="a")
    ok(memory, command="create", path="/memories/b.md", file_text="b")
    assert ok(memory, command="rename", old_path="/memories/a.md", new_path="/memories/done/a.md") == (
        "Renamed /memories/a.md to /memories/done/a.md."
    )
    assert (memory.root / "done" / "a.md").read_text() == "a"
    assert "already exists" in refused(
        memory, command="rename", old_path="/memories/b.md", new_path="/memories/done/a.md"
    )
    assert "cannot be renamed" in refused(
        memory, command="rename", old_path="/memories", new_path="/memories/x"
    )
    assert "into itself" in refused(
        memory, command="rename", old_path="/memories/done", new_path="/memories/done/in"
    )
    assert "no such file" in refused(
        memory, command="rename", old_path="/memories/zz", new_path="/memories/yy"
    )


# ------------------------------------------------------------ inputs against the SDK's types


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ({"command": "zap", "path": "/memories"}, "command 'zap' is not one of view, create"),
        ({"command": "create", "path": "/memories/a"}, "create: file_text: Field required"),
        ({"command": "insert", "path": "/memories/a", "insert_line": "x", "insert_text": ""}, "insert_line"),
        (
            {"command": "insert", "path": "/memories/a", "insert_line": True, "insert_text": ""},
            "valid integer",
        ),
        (
            {"command": "insert", "path": "/memories/a", "insert_line": "1", "insert_text": ""},
            "valid integer",
        ),
        ({"command": "view", "path": 7}, "view: path: Input should be a valid string"),
        ({"command": "rename", "old_path": "/memories/a"}, "rename: new_path: Field required"),
    ],
)
def test_input_that_does_not_match_the_sdks_types_is_refused_naming_the_field(memory, args, said):
    assert said in refused(memory, **args)


def test_an_input_that_is_not_an_object_is_refused(memory):
    block = memory.run({"type": "tool_use", "id": "toolu_1", "name": "memory", "input": ["view"]})
    assert block["is_error"] and "must be an object" in block["content"]


# ------------------------------------------------------------ as a runnable tool


def test_tool_params_split_definitions_from_runnable_tools(memory):
    definitions, runnable = tool_params([*TOOL_DEFINITIONS, memory])
    assert definitions == [*TOOL_DEFINITIONS, MEMORY_TOOL]
    assert runnable == {"memory": memory}


def test_the_agent_loop_runs_memory_commands_with_the_folder(tmp_path, memory):
    result = run_agent(
        connect("offline", context_window=1_000_000),
        workspace=new_workspace(tmp_path / "ws"),
        max_turns=3,
        tools=[*TOOL_DEFINITIONS, memory],
    )
    uses = [u for m in result.messages for u in tool_use_blocks(m) if u["name"] == "memory"]
    assert uses and uses[0]["input"] == {"command": "view", "path": "/memories"}  # it looks first
    answers = {b["tool_use_id"]: b for m in result.messages for b in tool_result_blocks(m)}
    assert answers[uses[0]["id"]]["content"].startswith("/memories: ")
    assert not any(answers[u["id"]].get("is_error") for u in uses)
