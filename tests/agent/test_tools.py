"""The agent's tools: what they do inside the workspace, and what they refuse outside it."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compaction.agent.shell import OUTPUT_CAP, cap_output
from compaction.agent.tools import COMPACT_TOOL, TOOL_DEFINITIONS, Workspace
from compaction.core.messages import tool_use


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "README.md").write_text("# demo\n")
    (tmp_path / "secret.txt").write_text("outside the workspace\n")
    return Workspace(root)


def call(ws, name, **args):
    return ws.run(tool_use("toolu_1", name, args))


# ------------------------------------------------------------ definitions


def test_every_tool_is_defined_in_the_api_tools_shape():
    names = [t["name"] for t in TOOL_DEFINITIONS]
    assert names == ["bash", "read_file", "write_file", "edit_file", "glob"]
    for tool in TOOL_DEFINITIONS + [COMPACT_TOOL]:
        assert set(tool) == {"name", "description", "input_schema"}
        assert tool["input_schema"]["type"] == "object"
        assert set(tool["input_schema"]["required"]) <= set(tool["input_schema"]["properties"])


def test_the_compact_tool_is_separate_and_its_focus_is_optional():
    assert COMPACT_TOOL["name"] == "compact"
    assert "compact" not in [t["name"] for t in TOOL_DEFINITIONS]
    assert COMPACT_TOOL["input_schema"]["required"] == []


# ------------------------------------------------------------ what the tools do


def test_read_file_numbers_lines_like_cat_n(ws):
    result = call(ws, "read_file", path="src/calc.py")
    assert result == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": "     1\tdef add(a, b):\n     2\t    return a - b",
    }


def test_read_file_offset_and_limit_pick_a_window_of_lines(ws):
    result = call(ws, "read_file", path="src/calc.py", offset=2, limit=1)
    assert result["content"] == "     2\t    return a - b"


def test_write_file_creates_folders_and_reports_a_relative_path(ws):
    result = call(ws, "write_file", path="new/dir/x.txt", content="a\nb\n")
    assert (ws.root / "new" / "dir" / "x.txt").read_text() == "a\nb\n"
    assert result["content"] == "wrote 2 lines to new/dir/x.txt"
    assert "is_error" not in result


def test_edit_file_replaces_exactly_one_match(ws):
    result = call(ws, "edit_file", path="src/calc.py", old_text="a - b", new_text="a + b")
    assert "is_error" not in result
    assert (ws.root / "src" / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"


def test_edit_file_with_no_match_is_an_error_and_changes_nothing(ws):
    before = (ws.root / "src" / "calc.py").read_text()
    result = call(ws, "edit_file", path="src/calc.py", old_text="a * b", new_text="x")
    assert result["is_error"] is True and "not found" in result["content"]
    assert (ws.root / "src" / "calc.py").read_text() == before


def test_edit_file_with_two_matches_is_an_error_and_changes_nothing(ws):
    before = (ws.root / "src" / "calc.py").read_text()
    result = call(ws, "edit_file", path="src/calc.py", old_text="b", new_text="x")
    assert result["is_error"] is True and "found 2 times" in result["content"]
    assert (ws.root / "src" / "calc.py").read_text() == before


def test_glob_lists_sorted_relative_paths(ws):
    (ws.root / "src" / "b.py").write_text("")
    assert call(ws, "glob", pattern="**/*.py")["content"] == "src/b.py\nsrc/calc.py"
    assert "no files match" in call(ws, "glob", pattern="*.rs")["content"]


def test_bash_runs_at_the_root_and_hides_its_absolute_path(ws):
    result = call(ws, "bash", command="pwd; ls src; cat README.md")
    assert result["content"] == ".\ncalc.py\n# demo\n"
    assert str(ws.root) not in call(ws, "bash", command="realpath src/calc.py")["content"]


def test_bash_failure_is_an_error_result_with_the_exit_code(ws):
    result = call(ws, "bash", command="echo oops >&2; exit 3")
    assert result["is_error"] is True
    assert result["content"] == "oops\n\n[exit code 3]"


def test_bash_python_is_the_interpreter_running_the_course(ws):
    result = call(ws, "bash", command="python -c 'import sys; print(sys.version_info[0])'")
    assert result["content"] == "3\n"


# ------------------------------------------------------------ confinement


@pytest.mark.parametrize("tool", ["read_file", "write_file", "edit_file"])
@pytest.mark.parametrize("path", ["../secret.txt", "src/../../secret.txt"])
def test_a_path_climbing_out_of_the_workspace_is_refused(ws, tool, path):
    args = {"read_file": {}, "write_file": {"content": "x"}, "edit_file": {"old_text": "o", "new_text": "x"}}
    result = call(ws, tool, path=path, **args[tool])
    assert result["is_error"] is True and "outside the workspace" in result["content"]
    assert (ws.root.parent / "secret.txt").read_text() == "outside the workspace\n"


def test_an_absolute_path_is_refused_even_when_it_exists(ws):
    outside = ws.root.parent / "secret.txt"
    result = call(ws, "read_file", path=str(outside))
    assert result["is_error"] is True and "absolute paths are refused" in result["content"]
    assert "outside the workspace\n" not in result["content"]


def test_a_symlink_pointing_out_is_neither_read_nor_written(ws):
    os.symlink(ws.root.parent / "secret.txt", ws.root / "link.txt")
    os.symlink(ws.root.parent, ws.root / "up")
    assert call(ws, "read_file", path="link.txt")["is_error"] is True
    assert call(ws, "write_file", path="link.txt", content="x")["is_error"] is True
    assert call(ws, "write_file", path="up/new.txt", content="x")["is_error"] is True
    assert (ws.root.parent / "secret.txt").read_text() == "outside the workspace\n"
    assert not (ws.root.parent / "new.txt").exists()
    assert "link.txt" not in call(ws, "glob", pattern="*")["content"]


def test_a_glob_pattern_climbing_out_is_refused(ws):
    result = call(ws, "glob", pattern="../*")
    assert result["is_error"] is True and "secret" not in result["content"]


def test_a_path_inside_that_uses_dotdot_is_fine(ws):
    assert "is_error" not in call(ws, "read_file", path="src/../README.md")


# ------------------------------------------------------------ bad calls become error results


@pytest.mark.parametrize(
    "name, args, message",
    [
        ("rm_rf", {}, "unknown tool 'rm_rf'"),
        ("read_file", {}, "missing required parameter 'path'"),
        ("read_file", {"path": 3}, "parameter 'path' must be a string"),
        ("read_file", {"path": "README.md", "offset": 0}, "'offset' must be a positive integer"),
        ("bash", {"command": "true", "cwd": "/"}, "unknown parameter(s) cwd"),
        ("read_file", {"path": "missing.txt"}, "missing.txt: no such file"),
        ("read_file", {"path": "src"}, "src: is a folder"),
        ("read_file", {"path": "a\x00b"}, "read_file failed: ValueError"),
        ("glob", {"pattern": ""}, "pattern must name files"),
        ("glob", {"pattern": "."}, "pattern must name files"),
    ],
)
def test_a_bad_call_is_an_error_result_not_an_exception(ws, name, args, message):
    result = call(ws, name, **args)
    assert result["is_error"] is True
    assert message in result["content"]


# ------------------------------------------------------------ bash limits


def test_bash_timeout_kills_the_process_group_and_says_so(tmp_path):
    ws = Workspace(tmp_path, timeout=0.5)
    result = call(ws, "bash", command="(sleep 30; touch late.txt) & echo started; wait")
    assert result["is_error"] is True
    assert result["content"] == "started\n\n[killed: the command ran longer than 0.5 s]"
    assert not (tmp_path / "late.txt").exists()


def test_without_a_pidfd_the_exit_code_and_the_timeout_are_the_same(tmp_path, monkeypatch):
    """Where os.pidfd_open is missing (not Linux), waiting falls back to Popen's own polling."""
    monkeypatch.delattr(os, "pidfd_open", raising=False)
    failed = call(Workspace(tmp_path, timeout=30), "bash", command="echo out; exit 3")  # room when busy
    assert failed["is_error"] is True and failed["content"] == "out\n\n[exit code 3]"
    ws = Workspace(tmp_path, timeout=0.5)
    killed = call(ws, "bash", command="(sleep 30; touch late.txt) & echo started; wait")
    assert killed["content"] == "started\n\n[killed: the command ran longer than 0.5 s]"
    assert not (tmp_path / "late.txt").exists()


def test_bash_output_is_capped_with_a_note_of_what_was_cut(ws):
    result = call(ws, "bash", command="python -c \"print('x' * 100000)\"")
    assert len(result["content"]) < OUTPUT_CAP + 200
    assert f"{100001 - OUTPUT_CAP:,} characters cut" in result["content"]


def test_cap_output_keeps_head_and_tail():
    out = cap_output("a" * 10 + "b" * 10, cap=10)
    assert out.startswith("aaaaa\n") and out.endswith("\nbbbbb")
    assert "10 characters cut" in out
    assert cap_output("short", cap=10) == "short"


def test_an_endless_output_is_read_with_bounded_memory_and_capped(tmp_path):
    ws = Workspace(tmp_path, timeout=1, cap=1000)
    result = call(ws, "bash", command="yes")
    assert result["is_error"] is True and result["content"].endswith(
        "[killed: the command ran longer than 1 s]"
    )
    assert len(result["content"]) < 1200 and "characters cut from the middle" in result["content"]
    assert result["content"].startswith("y\ny\n")


def test_cap_output_counts_characters_dropped_between_head_and_tail():
    out = cap_output("aaaabbbb", cap=4, dropped=100, split=4)
    assert out == "aa\n[... 104 characters cut from the middle of this output ...]\nbb"


def test_bash_does_not_inherit_secrets(ws, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-test")
    monkeypatch.setenv("MY_SECRET", "hush")
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = call(ws, "bash", command="env")["content"]
    for value in ("sk-ant-test", "ghp-test", "hush"):
        assert value not in env
    assert "LANG=C.UTF-8" in env


# ------------------------------------------------------------ any input at all


@given(
    name=st.sampled_from(["read_file", "write_file", "edit_file", "glob"]),
    path=st.text(alphabet="./a~*\x00-", max_size=12),
)
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
def test_any_path_gives_a_result_and_nothing_outside_changes(tmp_path, name, path):
    root = tmp_path / "root" / "ws"
    root.mkdir(parents=True, exist_ok=True)
    before = sorted(p.name for p in (tmp_path / "root").iterdir())
    args = {
        "read_file": {"path": path},
        "write_file": {"path": path, "content": "x"},
        "edit_file": {"path": path, "old_text": "x", "new_text": "y"},
        "glob": {"pattern": path},
    }[name]
    result = Workspace(root).run(tool_use("toolu_1", name, args))
    assert result["type"] == "tool_result" and isinstance(result["content"], str) and result["content"]
    assert sorted(p.name for p in (tmp_path / "root").iterdir()) == before
