"""Hostile memory commands: refused with a tool error that names the rule, and nothing outside touched.

Every command here is one a confused or manipulated model could send. Each test snapshots the
whole temporary folder *around* the memory folder (names, bytes, modes) and checks it is the same
after the command: a refusal that still wrote, read through or deleted something outside fails.
"""

from __future__ import annotations

import os
import stat

import pytest

from compaction.agent.memory import MAX_FILE_BYTES, MemoryFolder
from compaction.agent.memory_paths import UnsafeMemoryPath, segments
from compaction.core.messages import tool_use

SECRET = "outside the memory folder\n"


@pytest.fixture
def world(tmp_path):
    """(memory, the folder around it): a secret file and folder beside the memory folder."""
    (tmp_path / "secret.txt").write_text(SECRET)
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "key").write_text("k")
    memory = MemoryFolder(tmp_path / "memories")
    (memory.root / "notes.md").write_text("# Notes\n")
    return memory, tmp_path


def outside(root, memory_root):
    """Every path outside the memory folder with its bytes and mode."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p == memory_root or memory_root in p.parents:
            continue
        info = p.lstat()
        data = p.read_bytes() if p.is_file() and not p.is_symlink() else None
        out[str(p.relative_to(root))] = (data, stat.S_IMODE(info.st_mode), stat.S_IFMT(info.st_mode))
    return out


def hostile(world, **args):
    """Run one command; it must be refused and leave everything outside the folder as it was."""
    memory, root = world
    before = outside(root, memory.root)
    block = memory.run(tool_use("toolu_1", "memory", args))
    assert block.get("is_error"), block["content"]
    assert outside(root, memory.root) == before
    assert str(root) not in block["content"]  # the real folder is never named
    return block["content"]


# ------------------------------------------------------------ paths that leave /memories


@pytest.mark.parametrize(
    "path",
    [
        "/memories/../secret.txt",
        "/memories/notes/../../secret.txt",
        "/memories/./notes.md",
        "/memories/..",
        "/memories//notes.md",
    ],
)
def test_dot_dot_and_empty_segments_are_refused(world, path):
    assert "segment" in hostile(world, command="view", path=path)


@pytest.mark.parametrize(
    "path", ["/etc/passwd", "/tmp/x.md", "secret.txt", "../secret.txt", "~/notes.md", ""]
)
def test_absolute_paths_elsewhere_and_relative_paths_are_refused(world, path):
    assert "starts with /memories/" in hostile(world, command="create", path=path, file_text="x")


@pytest.mark.parametrize("path", ["/memoriesX/a.md", "/memories-evil/a.md", "/Memories/a.md"])
def test_a_name_that_only_starts_like_the_root_is_refused(world, path):
    assert "starts with /memories/" in hostile(world, command="create", path=path, file_text="x")


@pytest.mark.parametrize(
    ("path", "said"),
    [
        ("/memories/notes\x00.md", "NUL"),
        ("/memories/a\nb.md", "U+000A"),
        ("/memories/a\tb.md", "U+0009"),
        ("/memories/a\u202eb.md", "U+202E"),  # right-to-left override: a format character
        ("/memories/a\u2028b.md", "U+2028"),
        ("/memories\\..\\secret.txt", "backslash"),
        ("/memories/e\u0301.md", "normalization form C"),
        ("/memories/" + "a" * 1100, "1,024 bytes"),
        ("/memories/" + "/".join(["d"] * 21), "more than 20 segments"),
    ],
)
def test_nul_control_characters_backslashes_and_oversized_paths_are_refused(world, path, said):
    assert said in hostile(world, command="create", path=path, file_text="x")


def test_a_nul_in_a_name_is_shown_escaped_never_raw(world):
    answer = hostile(world, command="view", path="/memories/a\x00b")
    assert "\\x00" in answer and "\x00" not in answer


def test_a_url_encoded_dot_dot_is_just_a_name_inside_the_folder(world):
    memory, root = world
    block = memory.run(
        tool_use("t", "memory", {"command": "create", "path": "/memories/%2e%2e/x", "file_text": "y"})
    )
    assert not block.get("is_error")
    assert (memory.root / "%2e%2e" / "x").read_text() == "y"  # no decoding: it stayed inside
    assert (root / "secret.txt").read_text() == SECRET


@pytest.mark.parametrize("bad", [None, 3, ["/memories"]])
def test_a_path_that_is_not_a_string_is_refused_before_any_use(bad):
    with pytest.raises(UnsafeMemoryPath, match="must be a string"):
        segments(bad)


# ------------------------------------------------------------ symbolic links planted in the folder


@pytest.fixture
def planted(world):
    """Links someone put in the memory folder: to a file outside, a folder outside, and a file inside."""
    memory, root = world
    os.symlink(root / "secret.txt", memory.root / "out.md")
    os.symlink(root / "private", memory.root / "outdir")
    os.symlink(memory.root / "notes.md", memory.root / "alias.md")
    return world


@pytest.mark.parametrize(
    "args",
    [
        {"command": "view", "path": "/memories/out.md"},
        {"command": "view", "path": "/memories/outdir/key"},
        {"command": "view", "path": "/memories/outdir"},
        {"command": "str_replace", "path": "/memories/out.md", "old_str": "outside", "new_str": "owned"},
        {"command": "insert", "path": "/memories/out.md", "insert_line": 0, "insert_text": "owned"},
        {"command": "create", "path": "/memories/outdir/new.md", "file_text": "planted"},
        {"command": "delete", "path": "/memories/out.md"},
        {"command": "delete", "path": "/memories/outdir"},
        {"command": "rename", "old_path": "/memories/out.md", "new_path": "/memories/mine.md"},
        {"command": "rename", "old_path": "/memories/notes.md", "new_path": "/memories/outdir/notes.md"},
        {"command": "view", "path": "/memories/alias.md"},  # a link back inside is not followed either
    ],
)
def test_every_command_through_a_planted_link_is_refused(planted, args):
    assert "is a symbolic link" in hostile(planted, **args)


def test_the_listing_skips_planted_links_and_says_how_many(planted):
    memory, _ = planted
    listing = memory.run(tool_use("t", "memory", {"command": "view", "path": "/memories"}))["content"]
    assert "3 symbolic links not followed" in listing.splitlines()[0]
    assert "key" not in listing and "out.md" not in listing


def test_deleting_a_folder_that_holds_a_link_removes_the_link_not_its_target(world):
    memory, root = world
    (memory.root / "old").mkdir()
    os.symlink(root / "private", memory.root / "old" / "link")
    block = memory.run(tool_use("t", "memory", {"command": "delete", "path": "/memories/old"}))
    assert not block.get("is_error")
    assert (root / "private" / "key").read_text() == "k"


def test_a_fifo_planted_in_the_folder_is_refused_without_waiting(world):
    memory, _ = world
    os.mkfifo(memory.root / "pipe.md")
    assert "not a regular file" in hostile(world, command="view", path="/memories/pipe.md")


# ------------------------------------------------------------ huge files


def test_a_file_at_the_limit_is_written_and_one_byte_more_is_refused(world):
    memory, _ = world
    fits = memory.run(
        tool_use(
            "t", "memory", {"command": "create", "path": "/memories/a", "file_text": "x" * MAX_FILE_BYTES}
        )
    )
    assert not fits.get("is_error")
    answer = hostile(world, command="create", path="/memories/b", file_text="x" * (MAX_FILE_BYTES + 1))
    assert "over the limit of 102,400 per memory file; nothing was written" in answer
    assert not (memory.root / "b").exists()


def test_an_edit_that_would_make_a_file_too_big_changes_nothing(world):
    memory, _ = world
    big = "x" * (MAX_FILE_BYTES // 2 + 10)
    hostile(world, command="str_replace", path="/memories/notes.md", old_str="# Notes", new_str=big + big)
    hostile(world, command="insert", path="/memories/notes.md", insert_line=1, insert_text=big + big)
    assert (memory.root / "notes.md").read_text() == "# Notes\n"


def test_a_huge_file_planted_in_the_folder_is_not_read(world):
    memory, _ = world
    (memory.root / "dump.log").write_bytes(b"y" * (MAX_FILE_BYTES + 5))
    assert "over the limit of 102,400; not read" in hostile(world, command="view", path="/memories/dump.log")


def test_the_whole_folder_has_a_limit_too(tmp_path):
    memory = MemoryFolder(tmp_path / "m", max_file_bytes=100, max_total_bytes=250)
    for name in ("a", "b"):
        args = {"command": "create", "path": f"/memories/{name}", "file_text": "x" * 100}
        assert not memory.run(tool_use("t", "memory", args)).get("is_error")
    block = memory.run(
        tool_use("t", "memory", {"command": "create", "path": "/memories/c", "file_text": "x" * 60})
    )
    assert block["is_error"] and "would hold 260 bytes, over its limit of 250" in block["content"]


def test_a_file_that_is_not_utf8_is_not_read(world):
    memory, _ = world
    (memory.root / "bin.md").write_bytes(b"\xff\xfe\x00")
    assert "not UTF-8" in hostile(world, command="view", path="/memories/bin.md")
