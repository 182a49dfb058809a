"""Checks for chapter 18 (the memory tool): a safe path, a handler of the six commands, two exercises.

``check_safe_path`` holds a ``safe_path(root, path)`` to the rule of ``compaction.agent.memory_paths``:
it returns the real path under ``root`` for a ``/memories/...`` path and raises ``ValueError`` for each
kind of unsafe one: ``..``, an absolute path elsewhere, a relative path, a name that only starts like
the root, a NUL, a control character, a backslash, and a symbolic link anywhere in the folder (to a
file outside, as a folder in the middle, and back inside). ``check_memory_handler`` holds a
``handle(root, command)`` to the six commands, each case in a fresh folder: what it writes (read back
from disk, not from its answer), what a ``view`` must show, and what it must refuse by raising; its
answers' wording is free. The exercises: ``check_edit_through_hard_link`` (a ``str_replace`` that
never changes a file outside the folder through a hard link planted in it: refusing such a note or
writing a new file in its place both pass) and ``check_note_edit`` (the ``old_str``/``new_str`` of a
``str_replace`` that adds an entry at the top of one section of a notes file, exactly once, whatever
the other sections hold). Each case builds its own folder under the system's temporary folder.
Deliberately left out: the answers' exact wording, and concurrency.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from compaction.agent.memory import MemoryFolder
from compaction.agent.memory_paths import locate
from compaction.course.checks import CheckReport, run_cases
from compaction.presentation.language import say

ANSWERS = ("edit_note", "note_edit")  # what the exercises compute
LIMIT = 102_400  # bytes a memory file may hold: a memory store's limit (SDK memories.create)
SECRET = "outside the memory folder\n"


def _world(tmp: str) -> tuple[Path, Path]:
    """(the memory folder, the folder around it): a secret beside it, links planted in it."""
    around = Path(tmp)
    (around / "secret.txt").write_text(SECRET, encoding="utf-8")
    (around / "private").mkdir()
    root = around / "memories"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n", encoding="utf-8")
    os.symlink(around / "secret.txt", root / "out.md")
    os.symlink(around / "private", root / "docs")
    os.symlink(root / "notes.md", root / "alias.md")
    return root, around


# ---------------------------------------------------------------- safe paths (the chapter)

# why a path or a command must be refused, by key: said in the row that fails (``say(RULES[key])``)
RULES = {
    "dots": "no '..' segment",
    "prefix": "every path starts with /memories/",
    "root": "the root is /memories, not a prefix",
    "nul": "no NUL character",
    "control": "no control character",
    "backslash": "no backslash (a separator on Windows)",
    "link": "no symbolic link",
    "deep link": "no symbolic link, at any depth",
    "inner link": "no symbolic link, wherever it points",
    "create": "create never overwrites",
    "once": "old_str must occur exactly once",
    "insert": "insert_line is between 0 and the number of lines",
    "keep root": "/memories itself stays",
    "destination": "the destination must not exist",
    "commands": "only the six commands",
    "size": "at most 102,400 bytes",
}

# (name, the key of the rule it breaks, path): each must raise ValueError
UNSAFE = [
    ("`..` climbs out of the folder", "dots", "/memories/../secret.txt"),
    ("`..` deeper in the path", "dots", "/memories/notes/../../secret.txt"),
    ("an absolute path elsewhere", "prefix", "/etc/passwd"),
    ("a relative path", "prefix", "notes.md"),
    ("a name that only starts like the root", "root", "/memoriesX/notes.md"),
    ("a NUL in a name", "nul", "/memories/notes\x00.md"),
    ("a newline in a name", "control", "/memories/a\nb.md"),
    ("a backslash", "backslash", "/memories/..\\secret.txt"),
    ("a link to a file outside", "link", "/memories/out.md"),
    ("a link as a folder in the middle", "deep link", "/memories/docs/new.md"),
    ("a link back inside", "inner link", "/memories/alias.md"),
]
# (name, path, the real path under the root, as segments)
SAFE = [
    ("the root itself", "/memories", []),
    ("a note", "/memories/notes.md", ["notes.md"]),
    ("a note in folders not made yet", "/memories/projects/a/b.md", ["projects", "a", "b.md"]),
    ("a folder with a trailing /", "/memories/projects/", ["projects"]),
    ("a name in Japanese", "/memories/ノート.md", ["ノート.md"]),
]


def _escaped(text: str) -> str:
    """A text with a NUL or a newline shown as ``\\x00``, ``\\n``."""
    return text.encode("unicode_escape").decode("ascii")


def _where(got: object, root: Path) -> str:
    """A path an answer returned, shown from the memory folder (the temporary folder's name varies)."""
    try:
        return _escaped(f"<memory folder>/{Path(os.path.relpath(Path(str(got)), root)).as_posix()}")
    except (TypeError, ValueError):
        return _escaped(repr(got))[:80]


def _refused(fn: Callable, rule: str, path: str) -> None:
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        root, around = _world(tmp)
        before = sorted(p.name for p in around.rglob("*"))
        try:
            got = fn(root, path)
        except ValueError as exc:
            assert str(exc).strip(), say("refused, but with an empty message: say which rule it breaks")
            assert sorted(p.name for p in around.rglob("*")) == before, say("a refusal must touch nothing")
            return
        raise AssertionError(
            say(
                "{path} should be refused ({rule}); got {got}",
                path=_escaped(path),
                rule=say(RULES[rule]),
                got=_where(got, root),
            )
        )


def _accepted(fn: Callable, path: str, parts: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        root, _ = _world(tmp)
        try:
            got = fn(root, path)
        except ValueError as exc:
            raise AssertionError(
                say("{path} is safe but was refused: {error}", path=path, error=exc)
            ) from None
        want = root.joinpath(*parts)
        assert Path(got).resolve() == want.resolve(), say(
            "{path}: expected {want}, got {got}", path=path, want=_where(want, root), got=_where(got, root)
        )


# a URL-encoded `..`: a plain name on disk, or refused (the memory tool's docs ask to watch for
# URL-encoded traversal); either is safe, a decoded `..` that climbs out is not
ENCODED = ("%2e%2e: a name, or refused", "/memories/%2e%2e/x.md", ["%2e%2e", "x.md"])


def _name_or_refused(fn: Callable, path: str, parts: list[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        root, _ = _world(tmp)
        try:
            got = fn(root, path)
        except ValueError:
            return
        want = root.joinpath(*parts)
        assert Path(got).resolve() == want.resolve(), say(
            "{path}: refuse it or keep %2e%2e as a name ({want}); got {got}",
            path=path,
            want=_where(want, root),
            got=_where(got, root),
        )


def check_safe_path(fn: Callable) -> CheckReport:
    """The chapter's ``safe_path(root, path)``: each unsafe kind refused, safe paths mapped under root."""
    cases = [(name, lambda r=rule, p=path: _refused(fn, r, p)) for name, rule, path in UNSAFE]
    cases += [(name, lambda p=path, s=parts: _accepted(fn, p, s)) for name, path, parts in SAFE]
    name, path, parts = ENCODED
    cases.append((name, lambda: _name_or_refused(fn, path, parts)))
    return run_cases("safe_path", cases)


def safe_path_reference(root: Path, path: str) -> Path:
    """The package's rule (``memory_paths.locate``)."""
    return locate(Path(root), path)


# ---------------------------------------------------------------- the handler (the chapter)


def _answer(call: Callable[[], object], what: str) -> object:
    """What ``call`` returns; a refusal where none is due fails the row, naming what was refused."""
    try:
        return call()
    except (NotImplementedError, AssertionError):
        raise
    except Exception as exc:  # noqa: BLE001 - a wrong refusal is the answer's fault, said as such
        raise AssertionError(
            say("{what} was refused: {error}", what=what, error=f"{type(exc).__name__}: {exc}")
        ) from None


def _run(fn: Callable, root: Path, **command) -> str:
    got = _answer(lambda: fn(root, dict(command)), command["command"])
    assert isinstance(got, str), say("return the answer as a string, not {kind}", kind=type(got).__name__)
    return got


def _raises(fn: Callable, root: Path, why: str, **command) -> None:
    try:
        got = fn(root, dict(command))
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - any error with a message is a refusal the tool turns into is_error
        return
    raise AssertionError(
        say(
            "{command} should be refused ({why}); it answered {got}",
            command=command["command"],
            why=say(RULES[why]),
            got=repr(got)[:80],
        )
    )


def _file(root: Path, name: str) -> str:
    path = root / name
    assert path.is_file(), say("{name} is not in the folder", name=f"/memories/{name}")
    return path.read_text(encoding="utf-8")


def _numbered(shown: str, number: int, words: str) -> bool:
    """True when a line of ``shown`` has ``number`` before ``words``."""
    return any(re.search(rf"(?<!\d){number}(?!\d).*{re.escape(words)}", line) for line in shown.splitlines())


def _view_numbers(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="alpha\nbeta\ngamma\n")
    shown = _run(fn, root, command="view", path="/memories/n.md")
    for k, word in enumerate(("alpha", "beta", "gamma"), 1):
        assert _numbered(shown, k, word), say(
            "line {k} ({word}) is not shown with its number", k=k, word=word
        )


def _view_range(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="alpha\nbeta\ngamma\n")
    shown = _run(fn, root, command="view", path="/memories/n.md", view_range=[2, 3])
    assert "beta" in shown and "gamma" in shown, say("view_range [2, 3] must show lines 2 and 3")
    assert "alpha" not in shown, say("view_range [2, 3] showed line 1")


def _listing(fn, root):
    _run(fn, root, command="create", path="/memories/a.md", file_text="x")
    _run(fn, root, command="create", path="/memories/sub/b.md", file_text="y")
    shown = _run(fn, root, command="view", path="/memories")
    for name in ("a.md", "b.md"):
        assert name in shown, say("the listing of /memories does not name {name}", name=name)
    assert str(root) not in shown, say("the listing shows the real folder; show /memories paths only")


def _create(fn, root):
    _run(fn, root, command="create", path="/memories/x/y/n.md", file_text="one\ntwo\n")
    assert _file(root, "x/y/n.md") == "one\ntwo\n", say("the file does not hold file_text")


def _create_twice(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="first")
    _raises(fn, root, "create", command="create", path="/memories/n.md", file_text="second")
    assert _file(root, "n.md") == "first", say("the first text was overwritten")


def _replace_once(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="- status: exploring\n")
    _run(fn, root, command="str_replace", path="/memories/n.md", old_str="exploring", new_str="fixing")
    assert _file(root, "n.md") == "- status: fixing\n", say("old_str was not replaced by new_str")


def _replace_twice(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="- a\n- a\n")
    _raises(
        fn,
        root,
        "once",
        command="str_replace",
        path="/memories/n.md",
        old_str="- a",
        new_str="- b",
    )
    assert _file(root, "n.md") == "- a\n- a\n", say("the file changed although the edit was refused")


def _replace_absent(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="- a\n")
    _raises(
        fn,
        root,
        "once",
        command="str_replace",
        path="/memories/n.md",
        old_str="- z",
        new_str="- b",
    )


def _insert(fn, root, line, want):
    _run(fn, root, command="create", path="/memories/n.md", file_text="one\ntwo\n")
    _run(fn, root, command="insert", path="/memories/n.md", insert_line=line, insert_text="new")
    assert _file(root, "n.md") == want, say(
        "expected {want}, got {got}", want=repr(want), got=repr(_file(root, "n.md"))
    )


def _insert_past(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="one\ntwo\n")
    _raises(
        fn,
        root,
        "insert",
        command="insert",
        path="/memories/n.md",
        insert_line=3,
        insert_text="x",
    )


def _delete(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="x")
    _run(fn, root, command="create", path="/memories/old/a.md", file_text="x")
    _run(fn, root, command="delete", path="/memories/n.md")
    _run(fn, root, command="delete", path="/memories/old")
    assert not (root / "n.md").exists() and not (root / "old").exists(), say(
        "the file or folder is still there"
    )


def _delete_root(fn, root):
    _run(fn, root, command="create", path="/memories/n.md", file_text="x")
    _raises(fn, root, "keep root", command="delete", path="/memories")
    assert (root / "n.md").is_file(), say("the notes were deleted with the root")


def _rename(fn, root):
    _run(fn, root, command="create", path="/memories/a.md", file_text="a")
    _run(fn, root, command="rename", old_path="/memories/a.md", new_path="/memories/done/a.md")
    assert _file(root, "done/a.md") == "a" and not (root / "a.md").exists(), say("the file was not moved")


def _rename_over(fn, root):
    _run(fn, root, command="create", path="/memories/a.md", file_text="a")
    _run(fn, root, command="create", path="/memories/b.md", file_text="b")
    _raises(
        fn,
        root,
        "destination",
        command="rename",
        old_path="/memories/a.md",
        new_path="/memories/b.md",
    )
    assert _file(root, "b.md") == "b", say("the destination was overwritten")


def _unknown(fn, root):
    _raises(fn, root, "commands", command="format", path="/memories")


def _escapes(fn, root):
    for command in (
        {"command": "view", "path": "/memories/../secret.txt"},
        {"command": "create", "path": "/memories/../planted.md", "file_text": "x"},
        {"command": "delete", "path": "/memories/../secret.txt"},
    ):
        _raises(fn, root, "dots", **command)
    assert (root.parent / "secret.txt").read_text(encoding="utf-8") == SECRET, say(
        "the secret outside was changed"
    )
    assert not (root.parent / "planted.md").exists(), say("a file was created outside the folder")


def _too_big(fn, root):
    _raises(
        fn,
        root,
        "size",
        command="create",
        path="/memories/big.md",
        file_text="x" * (LIMIT + 1),
    )
    assert not (root / "big.md").exists(), say("the oversized file was written")
    _run(fn, root, command="create", path="/memories/n.md", file_text="# n\n")
    _raises(
        fn,
        root,
        "size",
        command="str_replace",
        path="/memories/n.md",
        old_str="# n",
        new_str="x" * (LIMIT + 1),
    )
    assert _file(root, "n.md") == "# n\n", say("the note grew over the limit")


HANDLER_CASES = [
    ("view: a file's lines, numbered from 1", _view_numbers),
    ("view: view_range [2, 3] shows lines 2-3", _view_range),
    ("view: /memories lists the files in it", _listing),
    ("create: writes file_text, makes its folders", _create),
    ("create never overwrites", _create_twice),
    ("str_replace: the one occurrence", _replace_once),
    ("str_replace: text found twice is refused", _replace_twice),
    ("str_replace: text not found is refused", _replace_absent),
    ("insert at line 0: the top", lambda fn, root: _insert(fn, root, 0, "new\none\ntwo\n")),
    ("insert after the last line", lambda fn, root: _insert(fn, root, 2, "one\ntwo\nnew\n")),
    ("insert past the end is refused", _insert_past),
    ("delete: a file and a folder", _delete),
    ("delete /memories itself is refused", _delete_root),
    ("rename: moves, makes the folder", _rename),
    ("rename onto an existing file is refused", _rename_over),
    ("an unknown command is refused", _unknown),
    ("`..` is refused by view, create and delete", _escapes),
    ("a file over 102,400 bytes is refused", _too_big),
]


def _in_fresh_folder(fn: Callable, case: Callable) -> None:
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        (Path(tmp) / "secret.txt").write_text(SECRET, encoding="utf-8")
        root = Path(tmp) / "memories"
        root.mkdir()
        case(fn, root)


def check_memory_handler(fn: Callable) -> CheckReport:
    """The chapter's ``handle(root, command)``: the six commands, each case in a fresh folder."""
    return run_cases(
        "handle", [(name, lambda c=case: _in_fresh_folder(fn, c)) for name, case in HANDLER_CASES]
    )


def handle_reference(root: Path, command: dict) -> str:
    """The package's handler on ``root`` (``MemoryFolder.call``; a refusal raises the SDK's ToolError)."""
    return MemoryFolder(root).call(command)


# ---------------------------------------------------------------- exercise 1: hard links


def _linked(fn: Callable, check: Callable[[Path, Path], None]) -> None:
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        around = Path(tmp)
        outside = around / "config.txt"
        outside.write_text("token: secret-1\n", encoding="utf-8")
        root = around / "memories"
        root.mkdir()
        os.link(outside, root / "linked.md")  # planted: the same file under two names
        (root / "notes.md").write_text("- status: exploring\n", encoding="utf-8")
        check(root, outside)


def _through_link(fn: Callable, root: Path, outside: Path) -> None:
    refused = False
    try:
        fn(root, "/memories/linked.md", "secret-1", "changed")
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - refusing a hard-linked note is a right answer too
        refused = True
    assert outside.read_text(encoding="utf-8") == "token: secret-1\n", say(
        "the file outside the folder was changed through the hard link /memories/linked.md"
    )
    if not refused:
        assert (root / "linked.md").read_text(encoding="utf-8") == "token: changed\n", say(
            "the edit was neither made in the note nor refused"
        )


def _plain_edit(fn: Callable, root: Path, outside: Path) -> None:
    _answer(lambda: fn(root, "/memories/notes.md", "exploring", "fixing"), "the edit of /memories/notes.md")
    assert (root / "notes.md").read_text(encoding="utf-8") == "- status: fixing\n", say(
        "the plain note was not edited"
    )


def _nothing_left(fn: Callable, root: Path, outside: Path) -> None:
    _answer(lambda: fn(root, "/memories/notes.md", "exploring", "fixing"), "the edit of /memories/notes.md")
    left = sorted(p.name for p in root.iterdir())
    assert left == ["linked.md", "notes.md"], say(
        "files left in the folder: {left}; leave no temporary file", left=left
    )


def _twice_refused(fn: Callable, root: Path, outside: Path) -> None:
    (root / "notes.md").write_text("- a\n- a\n", encoding="utf-8")
    try:
        fn(root, "/memories/notes.md", "- a", "- b")
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001
        assert (root / "notes.md").read_text(encoding="utf-8") == "- a\n- a\n", say(
            "refused, but the note changed"
        )
        return
    raise AssertionError(say("old_str found twice must be refused"))


def _escape_refused(fn: Callable, root: Path, outside: Path) -> None:
    try:
        fn(root, "/memories/../config.txt", "secret-1", "changed")
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001
        pass
    assert outside.read_text(encoding="utf-8") == "token: secret-1\n", say(
        "/memories/../config.txt was edited"
    )


# names a temporary file beside notes.md is often given; the check also plants whatever names the
# answer itself wrote on a first, clean run (seen through an audit hook), so a fixed name of its own
# is caught too, and a random one (uuid, mkstemp) is not planted where the next run writes
TEMPORARY_NAMES = (
    ".notes.md.new", "notes.md.new", ".notes.md.tmp", "notes.md.tmp", ".tmp-notes.md", "notes.md~",
    ".notes.md.swp", "notes.md.bak", "notes.new", "notes.tmp", ".notes.md", "notes.md.part",
)  # fmt: skip
_written: list[str] | None = None  # while recording: the paths an answer opened for writing or replaced
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _audit(event: str, args: tuple) -> None:
    """Record the files an answer writes (the ``open`` and ``os.rename``/``os.replace`` audit events)."""
    if _written is None:
        return
    if event == "open" and len(args) >= 3:
        path, mode, flags = args[0], args[1], args[2]
        writes = any(c in (mode or "") for c in "wax+") or bool((flags or 0) & _WRITE_FLAGS)
        if writes and isinstance(path, (str, bytes, os.PathLike)):
            _written.append(os.fsdecode(os.fspath(path)))
    elif event in ("os.rename", "os.replace") and args:
        _written.append(os.fsdecode(os.fspath(args[0])))


_hooked = False
VICTIM = "outside: never written through a memory command\n"
WRITTEN_THROUGH = {  # the row that fails, by the kind of link planted
    kind: f"the file outside was written through a {kind} link planted at a temporary name ({{names}})"
    for kind in ("symbolic", "hard")
}


def _names_written(fn: Callable) -> list[str]:
    """The names (other than notes.md) an answer writes in the folder when it edits notes.md once."""
    global _written, _hooked
    if not _hooked:
        sys.addaudithook(_audit)  # audit hooks cannot be removed: this one does nothing unless recording
        _hooked = True
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        root = Path(tmp) / "memories"
        root.mkdir()
        (root / "notes.md").write_text("- status: exploring\n", encoding="utf-8")
        _written = []
        try:
            fn(root, "/memories/notes.md", "exploring", "fixing")
        except Exception:  # noqa: BLE001 - only the names it wrote matter here
            pass
        finally:
            seen, _written = _written, None
        real = root.resolve()
        return sorted(
            {Path(p).name for p in seen if Path(p).parent.resolve() == real and Path(p).name != "notes.md"}
        )


def _planted(fn: Callable, kind: str) -> None:
    """Links planted at every temporary name: the file outside unchanged, notes.md a plain note."""
    own = _names_written(fn)  # named first in a failing row: the likeliest way through
    names = own + sorted(set(TEMPORARY_NAMES) - set(own))
    with tempfile.TemporaryDirectory(prefix="memory-check-") as tmp:
        around = Path(tmp)
        victim = around / "victim.txt"
        victim.write_text(VICTIM, encoding="utf-8")
        root = around / "memories"
        root.mkdir()
        (root / "notes.md").write_text("- status: exploring\n", encoding="utf-8")
        for name in names:
            (os.symlink if kind == "symbolic" else os.link)(victim, root / name)
        outside = sorted(p.name for p in around.iterdir())
        refused = False
        try:
            fn(root, "/memories/notes.md", "exploring", "fixing")
        except NotImplementedError:
            raise
        except Exception:  # noqa: BLE001 - refusing to write beside a planted link is safe too
            refused = True
        assert victim.read_text(encoding="utf-8") == VICTIM, say(
            WRITTEN_THROUGH[kind],
            names=", ".join(names[:4]) + (", ..." if len(names) > 4 else ""),
        )
        assert sorted(p.name for p in around.iterdir()) == outside, say("a file outside the folder was made")
        note = root / "notes.md"
        assert not note.is_symlink(), say("notes.md became a symbolic link to the file outside")
        if not refused:
            assert note.read_text(encoding="utf-8") == "- status: fixing\n", say(
                "the plain note was not edited"
            )
            assert os.stat(note).st_nlink == 1, say("notes.md is now a second name of the file outside")


def check_edit_through_hard_link(fn: Callable) -> CheckReport:
    """Exercise 1: ``edit_note(root, path, old_str, new_str)`` never writes through a planted hard link."""
    cases = [
        ("a hard-linked note: the file outside is unchanged", _through_link),
        ("a plain note is edited", _plain_edit),
        ("no temporary file is left", _nothing_left),
        ("text found twice is refused", _twice_refused),
        ("`..` is still refused", _escape_refused),
    ]
    rows = [(name, lambda c=c: _linked(fn, lambda r, o: c(fn, r, o))) for name, c in cases]
    rows += [
        ("symbolic links planted at the temporary names", lambda: _planted(fn, "symbolic")),
        ("hard links planted at the temporary names", lambda: _planted(fn, "hard")),
    ]
    return run_cases("edit_note", rows)


def edit_note_reference(root: Path, path: str, old_str: str, new_str: str) -> str:
    """The package's str_replace: a new file put in place of the old one (``memory_files.write_text``)."""
    return MemoryFolder(root).call(
        {"command": "str_replace", "path": path, "old_str": old_str, "new_str": new_str}
    )


# ---------------------------------------------------------------- exercise 2: notes that survive str_replace

MAX_OLD = 120  # characters of old_str: a str_replace sends a small change, not the whole file

# (name, notes, section, the notes after adding "- new" at the top of the section)
NOTE_CASES = [
    (
        "an empty section",
        "# Notes\n## Findings\n## Progress\n",
        "Findings",
        "# Notes\n## Findings\n- new\n## Progress\n",
    ),
    ("newest first", "## Findings\n- old\n", "Findings", "## Findings\n- new\n- old\n"),
    (
        "the same entry in two sections",
        "## Findings\n- tests pass\n## Progress\n- tests pass\n",
        "Progress",
        "## Findings\n- tests pass\n## Progress\n- new\n- tests pass\n",
    ),
    (
        "a heading that starts another heading",
        "## Findings (old)\n- a\n## Findings\n- b\n",
        "Findings",
        "## Findings (old)\n- a\n## Findings\n- new\n- b\n",
    ),
    (
        "the heading quoted in an entry",
        "## Progress\n- wrote ## Findings\n## Findings\n",
        "Findings",
        "## Progress\n- wrote ## Findings\n## Findings\n- new\n",
    ),
    ("the last line, no newline after it", "# Notes\n## Progress", "Progress", "# Notes\n## Progress\n- new"),
    (
        "the first line, quoted at the end of an entry",
        "## Findings\n- a\n## Progress\n- wrote ## Findings\n",
        "Findings",
        "## Findings\n- new\n- a\n## Progress\n- wrote ## Findings\n",
    ),
    (
        "the last line, starting another heading",
        "# Notes\n## Findings (old)\n- a\n## Findings",
        "Findings",
        "# Notes\n## Findings (old)\n- a\n## Findings\n- new",
    ),
    (
        "a long notes file: the edit stays small",
        "## Findings\n"
        + "".join(f"- finding {k}: {'x' * 40}\n" for k in range(20))
        + "## Progress\n- started\n",
        "Progress",
        "## Findings\n"
        + "".join(f"- finding {k}: {'x' * 40}\n" for k in range(20))
        + "## Progress\n- new\n- started\n",
    ),
]


def _note_case(fn: Callable, notes: str, section: str, want: str) -> None:
    got = _answer(lambda: fn(notes, section, "- new"), say("the section {section}", section=section))
    assert isinstance(got, dict) and {"old_str", "new_str"} <= set(got), say(
        "return a dict with old_str and new_str, the inputs of a str_replace"
    )
    old, new = got["old_str"], got["new_str"]
    found = notes.count(old) if old else 0
    assert found == 1, say(
        "old_str {old} occurs {n} times in the notes; a str_replace needs exactly one",
        old=repr(old)[:60],
        n=found,
    )
    assert len(old) <= MAX_OLD, say(
        "old_str is {n} characters; keep it to the heading's line ({limit} at most)",
        n=len(old),
        limit=MAX_OLD,
    )
    after = notes.replace(old, new, 1)
    assert after == want, say(
        "after the edit: {got}; expected {want}", got=repr(after)[-70:], want=repr(want)[-70:]
    )


def _missing_section(fn: Callable) -> None:
    try:
        got = fn("## Findings\n- a\n", "Progress", "- new")
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001
        return
    raise AssertionError(
        say("no section Progress: refuse rather than invent one; got {got}", got=repr(got)[:60])
    )


def check_note_edit(fn: Callable) -> CheckReport:
    """Exercise 2: ``note_edit(notes, section, line)``: the str_replace adding ``line`` atop the section."""
    cases = [
        (name, lambda n=notes, s=section, w=want: _note_case(fn, n, s, w))
        for name, notes, section, want in NOTE_CASES
    ]
    cases.append(("a missing section is refused", lambda: _missing_section(fn)))
    return run_cases("note_edit", cases)


def note_edit_reference(notes: str, section: str, line: str) -> dict:
    """The heading's line with the newlines around it, widened by a line at a time until unique."""
    heading = f"## {section}"
    lines = notes.split("\n")
    if lines.count(heading) != 1:
        raise ValueError(f"the notes have {lines.count(heading)} sections {section!r}; one is needed")
    k = first = last = lines.index(heading)
    while True:
        before = "\n" if first > 0 else ""  # the newline that ends the line before the window
        after = "\n" if last < len(lines) - 1 else ""  # the newline that ends the window's last line
        old = before + "\n".join(lines[first : last + 1]) + after
        if notes.count(old) == 1:
            new = before + "\n".join([*lines[first : k + 1], line, *lines[k + 1 : last + 1]]) + after
            return {"old_str": old, "new_str": new}
        if last < len(lines) - 1:  # the next line first: the heading's own entries
            last += 1
        else:
            first -= 1
