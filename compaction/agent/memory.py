"""The memory tool's client side: one folder the model keeps notes in, and the tool's six commands.

``MemoryFolder(folder)`` answers the ``memory_20250818`` tool (``MEMORY_TOOL``): ``view`` (a folder two
levels deep, or a file's numbered lines, ``view_range`` optional), ``create`` (a new file only),
``str_replace`` (text found exactly once), ``insert`` (after line ``insert_line``, 0 for the top),
``delete`` and ``rename``. Inputs are checked against the SDK's own types
(``BetaMemoryTool20250818Command``); paths go through ``memory_paths`` (``/memories/...`` only, no
``..``, NUL or control characters, no symbolic links). A file over ``max_file_bytes`` (100 kB, the
API's memory stores' cap per memory) is neither written nor read, and all files together stay under
``max_total_bytes``. Files are created 0600 and folders 0700, as the SDK's
``BetaLocalFilesystemMemoryTool`` does; every write goes to a temporary file first and replaces the
old one in one step. Answers name only ``/memories`` paths, never the real folder.

It is a ``BetaAbstractMemoryTool`` (SDK ``lib/tools/_beta_builtin_memory_tool.py``), so the SDK's tool
runner takes it as it is (``tools=[MemoryFolder(path)]``), and so does ``run_agent``
(``tools=[*TOOL_DEFINITIONS, MemoryFolder(path)]``); a refused command raises the SDK's ``ToolError``,
which both turn into a tool_result with ``is_error``. ``run(block)`` answers one ``tool_use`` block.
Deliberately left out: the async variant, encryption, expiry of old notes, and several processes
sharing one folder (no locks).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pydantic
from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaCacheControlEphemeralParam,
    BetaMemoryTool20250818Command,
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from compaction.agent.memory_files import (
    FOLDER_MODE,
    VIEW_DEPTH,
    listing,
    make_folders,
    read_text,
    write_text,
)
from compaction.agent.memory_paths import ROOT, UnsafeMemoryPath, locate, segments, virtual
from compaction.agent.tools import run_tool
from compaction.core.messages import Block

MEMORY_TOOL = {"type": "memory_20250818", "name": "memory"}  # SDK BetaMemoryTool20250818Param
MAX_FILE_BYTES = 102_400  # a memory store's cap, "100 kB (102,400 bytes)" (SDK memories.create)
MAX_TOTAL_BYTES = 1_048_576  # every file together: the course's own bound
_COMMANDS = pydantic.TypeAdapter(BetaMemoryTool20250818Command)


def _count(n: int, one: str, many: str = "") -> str:
    """``1 line``, ``3 lines``."""
    return f"{n} {one}" if n == 1 else f"{n} {many or one + 's'}"


def _numbered(lines: list[str], first: int) -> str:
    return "\n".join(f"{n:6}\t{line}" for n, line in enumerate(lines, first))


class MemoryFolder(BetaAbstractMemoryTool):
    """The memory tool on one real folder, which the model sees as ``/memories``."""

    def __init__(
        self,
        folder: str | os.PathLike,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        max_total_bytes: int = MAX_TOTAL_BYTES,
        cache_control: BetaCacheControlEphemeralParam | None = None,
    ):
        super().__init__(cache_control=cache_control)
        folder = Path(folder)
        if folder.is_symlink():
            raise ValueError(f"memory folder {folder} is a symbolic link; give the real folder")
        folder.mkdir(mode=FOLDER_MODE, parents=True, exist_ok=True)
        self.root = folder.resolve()
        self.max_file_bytes, self.max_total_bytes = max_file_bytes, max_total_bytes

    def _save(self, target: Path, shown: str, text: str, *, new: bool = False) -> None:
        limits = (self.max_file_bytes, self.max_total_bytes)
        write_text(self.root, target, shown, text, new=new, limits=limits)

    # ------------------------------------------------------------ entry points

    def call(self, input: object) -> str:
        """One command from a tool_use input, checked against the SDK's types; ToolError if refused."""
        try:
            command = _COMMANDS.validate_python(input, strict=True)  # "1" or true is not an integer
        except pydantic.ValidationError as exc:
            raise ToolError(f"memory: invalid input: {_first_problem(exc, input)}") from None
        try:
            return self.execute(command)
        except (UnsafeMemoryPath, ToolError) as exc:
            raise ToolError(f"memory {command.command}: {exc}") from None
        except OSError as exc:  # the folder's own trouble: named by its memory path, never the real one
            raise ToolError(f"memory {command.command}: {exc.strerror or type(exc).__name__}") from None

    def run(self, block: Block) -> Block:
        """The tool_result for one ``memory`` tool_use block (a refusal as ``is_error``)."""
        return run_tool(self, block)

    # ------------------------------------------------------------ the six commands

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        """A folder's files two levels deep (hidden ones left out), or a file's numbered lines."""
        target = locate(self.root, command.path)
        shown = virtual(segments(command.path))
        if target.is_dir():
            if command.view_range is not None:
                raise ToolError(f"{shown} is a folder; view_range applies to files")
            rows, links = listing(target, shown)
            note = f"; {_count(links, 'symbolic link')} not followed" if links else ""
            entries = _count(len(rows), "entry", "entries")
            head = f"{shown}: {entries}, {VIEW_DEPTH} levels deep, hidden ones left out{note}"
            return "\n".join([head, *rows]) if rows else f"{head}\n(empty)"
        lines = read_text(target, shown, self.max_file_bytes).splitlines()
        first, last = _view_range(command.view_range, len(lines), shown)
        if not lines:
            return f"{shown} is empty."
        return f"{shown}, lines {first}-{last} of {len(lines)}:\n" + _numbered(lines[first - 1 : last], first)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        """A new file with ``file_text``; an existing one is refused (edit it, or delete it first)."""
        target = locate(self.root, command.path)
        shown = virtual(segments(command.path))
        if target == self.root or target.exists():
            raise ToolError(f"{shown} already exists; edit it with str_replace or insert, or delete it first")
        self._save(target, shown, command.file_text, new=True)
        return f"Created {shown} ({_count(len(command.file_text.splitlines()), 'line')})."

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        """``old_str`` replaced by ``new_str``; it must occur exactly once."""
        target = locate(self.root, command.path)
        shown = virtual(segments(command.path))
        body = read_text(target, shown, self.max_file_bytes)
        if not command.old_str:
            raise ToolError("str_replace: old_str must not be empty")
        at = [k for k in range(len(body)) if body.startswith(command.old_str, k)]
        if len(at) != 1:
            where = ", ".join(str(body.count("\n", 0, k) + 1) for k in at[:10])
            how = f"found {len(at)} times (lines {where}); add context to make it unique" if at else "absent"
            raise ToolError(f"{shown}: old_str {how}; nothing was changed")
        self._save(target, shown, body.replace(command.old_str, command.new_str, 1))
        return f"Edited {shown}: replaced the text at line {body.count(chr(10), 0, at[0]) + 1}."

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        """``insert_text`` after line ``insert_line`` (0: at the top)."""
        target = locate(self.root, command.path)
        shown = virtual(segments(command.path))
        lines = read_text(target, shown, self.max_file_bytes).splitlines()
        if not 0 <= command.insert_line <= len(lines):
            raise ToolError(f"{shown}: insert_line {command.insert_line} is not between 0 and {len(lines)}")
        added = command.insert_text.splitlines() or [""]
        lines[command.insert_line : command.insert_line] = added
        self._save(target, shown, "\n".join(lines) + "\n")
        return f"Inserted {_count(len(added), 'line')} into {shown} after line {command.insert_line}."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        """A file, or a folder with everything in it; never ``/memories`` itself."""
        target = locate(self.root, command.path)
        shown = virtual(segments(command.path))
        if target == self.root:
            raise ToolError(f"{ROOT} itself cannot be deleted; delete the files in it")
        if target.is_dir():
            count = sum(1 for p in target.rglob("*") if p.is_file() and not p.is_symlink())
            shutil.rmtree(target)  # removes links inside without following them
            return f"Deleted the folder {shown} and {_count(count, 'file')} in it."
        if not target.is_file():
            raise ToolError(f"{shown}: no such file or folder")
        target.unlink()
        return f"Deleted {shown}."

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        """A file or folder moved to ``new_path``, which must not exist yet."""
        source, dest = locate(self.root, command.old_path), locate(self.root, command.new_path)
        old, new = virtual(segments(command.old_path)), virtual(segments(command.new_path))
        if self.root in (source, dest):
            raise ToolError(f"{ROOT} itself cannot be renamed, nor replaced")
        if not source.exists():
            raise ToolError(f"{old}: no such file or folder")
        if dest.exists():
            raise ToolError(f"{new} already exists; delete it first or choose another name")
        if dest.is_relative_to(source):
            raise ToolError(f"{new} is inside {old}; a folder cannot move into itself")
        make_folders(self.root, dest.parent)
        source.rename(dest)
        return f"Renamed {old} to {new}."


def _view_range(view_range: list[int] | None, count: int, shown: str) -> tuple[int, int]:
    """(first, last) line numbers to show, from 1; the whole file without a range."""
    if view_range is None:
        return 1, count
    if len(view_range) != 2:
        raise ToolError(f"{shown}: view_range must be [first, last], not {view_range}")
    first, last = view_range
    last = count if last == -1 else last
    if first < 1 or last < first or first > max(count, 1):
        raise ToolError(f"{shown}: view_range {view_range} is outside its {count} lines (from 1; -1 ends it)")
    return first, min(last, count)


def _first_problem(error: pydantic.ValidationError, given: object) -> str:
    """The first thing pydantic found wrong, as ``field: message`` (the command's name taken out)."""
    if not isinstance(given, dict):
        return f"the input must be an object, not {type(given).__name__}"
    command = given.get("command")
    known = ("view", "create", "str_replace", "insert", "delete", "rename")
    if command not in known:
        return f"command {command!r} is not one of {', '.join(known)}"
    model = "".join(word.title() for word in command.split("_")) + "Command"  # StrReplaceCommand
    mine = [e for e in error.errors() if str(e["loc"][0]).endswith(model)] or error.errors()
    problem = mine[0]
    field = ".".join(str(p) for p in problem["loc"][1:]) or "input"
    return f"{command}: {field}: {problem['msg']}"
