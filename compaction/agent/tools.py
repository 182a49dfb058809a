"""The agent's tools, confined to one workspace folder: bash, read_file, write_file, edit_file, glob.

A ``Workspace(root)`` runs a ``tool_use`` block and returns its ``tool_result`` block. Every path is
relative to the root; one that resolves outside it (``../``, an absolute path, a symlink pointing
out) is refused with an error result and never read or written. Errors of any kind become results
with ``is_error: true``, never exceptions. Outputs show the root as ``.``, never its absolute path.
``bash`` runs at the root through ``compaction.agent.shell``: a clean environment (no variable whose name
holds KEY, TOKEN or SECRET), a timeout that kills the whole process group, and an output cap.

Deliberately left out: ``bash`` is not a jail (a command can still ``cd /``; use a container for real
isolation), and the ``compact`` tool is only defined here: the agent loop handles it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from anthropic.lib.tools import ToolError as SDKToolError

from compaction.agent.shell import OUTPUT_CAP, run_shell
from compaction.core.messages import Block, tool_result
from compaction.core.paths import PathRefused, inside

BASH_TIMEOUT = 10.0  # seconds


def _tool(name: str, description: str, required: tuple[str, ...], **properties: dict) -> dict:
    fields = {key: dict(kind) for key, kind in properties.items()}  # no dict shared between tools
    schema = {"type": "object", "properties": fields, "required": list(required)}
    return {"name": name, "description": description, "input_schema": schema}


_STR = {"type": "string"}
_INT = {"type": "integer", "minimum": 1}

TOOL_DEFINITIONS = [
    _tool("bash", "Run a shell command in the workspace folder.", ("command",), command=_STR),
    _tool(
        "read_file",
        "Read a text file with numbered lines; offset is the first line (1-based), limit a line count.",
        ("path",),
        path=_STR,
        offset=_INT,
        limit=_INT,
    ),
    _tool("write_file", "Create or overwrite a file.", ("path", "content"), path=_STR, content=_STR),
    _tool(
        "edit_file",
        "Replace old_text, which must occur exactly once in the file, with new_text.",
        ("path", "old_text", "new_text"),
        path=_STR,
        old_text=_STR,
        new_text=_STR,
    ),
    _tool(
        "glob",
        "List the files matching a glob pattern, as sorted relative paths.",
        ("pattern",),
        pattern=_STR,
    ),
]

TOOL_NAMES = tuple(t["name"] for t in TOOL_DEFINITIONS)

COMPACT_TOOL = _tool(
    "compact",
    "Summarize the conversation so far to free context; focus says what the summary must keep.",
    (),
    focus=_STR,
)


class ToolError(Exception):
    """A tool call that cannot be carried out; its message becomes an is_error result."""


def tool_params(tools: list) -> tuple[list[dict], dict[str, Any]]:
    """(the tools as a request lists them, the runnable ones by name).

    A tool is a definition (a dict) or, as the SDK's tool runner takes them, an object with
    ``to_dict()`` and ``call(input)``: a ``BetaBuiltinFunctionTool`` such as a memory tool.
    """
    definitions, runnable = [], {}
    for tool in tools:
        if isinstance(tool, dict):
            definitions.append(tool)
        else:
            definitions.append(dict(tool.to_dict()))
            runnable[tool.name] = tool
    return definitions, runnable


def run_tool(tool: Any, block: Block) -> Block:
    """The tool_result of a runnable tool for one tool_use block; the SDK's ToolError as ``is_error``."""
    try:
        return tool_result(block.get("id", ""), tool.call(block.get("input")) or "(no output)")
    except SDKToolError as exc:
        return tool_result(block.get("id", ""), f"Error: {exc}", is_error=True)
    except Exception as exc:  # noqa: BLE001 - a tool never raises into the loop
        what = f"{type(exc).__name__}: {exc}"
        return tool_result(block.get("id", ""), f"Error: {block.get('name')} failed: {what}", is_error=True)


class Workspace:
    """A folder the tools may touch, and the runner of tool calls inside it."""

    def __init__(self, root: str | os.PathLike, *, timeout: float = BASH_TIMEOUT, cap: int = OUTPUT_CAP):
        self.root = Path(root).resolve()
        self._spellings = sorted({str(self.root), str(Path(root).absolute())}, key=len, reverse=True)
        if not self.root.is_dir():
            raise NotADirectoryError(f"workspace root {root!s} is not a folder")
        self.timeout = timeout
        self.cap = cap

    def path(self, name: Any) -> Path:
        """The absolute path for a relative name, refused when it resolves outside the root."""
        try:
            return inside(self.root, name)
        except PathRefused as exc:
            raise ToolError(str(exc)) from None

    def relative(self, path: Path) -> str:
        """A path as the model sees it: relative to the root, with forward slashes."""
        rel = path.relative_to(self.root).as_posix()
        return rel if rel != "." else "."

    def hide_root(self, text: str) -> str:
        """Replace the workspace's absolute path with ``.`` wherever it appears."""
        for spelling in self._spellings:
            text = text.replace(spelling, ".")
        return text

    def run(self, block: Block) -> Block:
        """Run one tool_use block and return its tool_result block (errors included)."""
        use_id, name, args = block.get("id", ""), block.get("name"), block.get("input")
        handler = getattr(self, name, None) if name in TOOL_NAMES else None
        try:
            if handler is None:
                raise ToolError(f"unknown tool {name!r}; the tools are {', '.join(TOOL_NAMES)}")
            if not isinstance(args, dict):
                raise ToolError(f"{name}: input must be an object, not {type(args).__name__}")
            output, failed = handler(**_arguments(name, args))
        except ToolError as exc:
            output, failed = f"Error: {exc}", True
        except OSError as exc:
            output, failed = f"Error: {exc.strerror or type(exc).__name__}", True
        except Exception as exc:  # noqa: BLE001 - a tool never raises into the loop
            output, failed = f"Error: {name} failed: {type(exc).__name__}: {exc}", True
        return tool_result(use_id, self.hide_root(output) or "(no output)", is_error=failed)

    # ------------------------------------------------------------ the tools

    def bash(self, command: str) -> tuple[str, bool]:
        """Run a shell command at the root; returns (output, failed)."""
        text, code = run_shell(command, cwd=self.root, timeout=self.timeout, cap=self.cap)
        if code is None:
            return f"{text}\n[killed: the command ran longer than {self.timeout:g} s]".lstrip(), True
        if code:
            return f"{text}\n[exit code {code}]".lstrip(), True
        return text, False

    def read_file(self, path: str, offset: int = 1, limit: int | None = None) -> tuple[str, bool]:
        """The file's lines numbered like ``cat -n``, from line ``offset``, at most ``limit`` lines."""
        target = self.path(path)
        if target.is_dir():
            raise ToolError(f"{path}: is a folder; use glob to list it")
        if not target.is_file():
            raise ToolError(f"{path}: no such file")
        lines = target.read_text(encoding="utf-8", errors="replace").splitlines()
        end = len(lines) if limit is None else offset - 1 + limit
        shown = lines[offset - 1 : end]
        if not shown:
            return f"({path} has {len(lines)} lines; nothing from line {offset})", False
        return "\n".join(f"{n:6}\t{line}" for n, line in enumerate(shown, offset)), False

    def write_file(self, path: str, content: str) -> tuple[str, bool]:
        """Create or overwrite a file, making its folders."""
        target = self.path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        return f"wrote {len(content.splitlines())} lines to {self.relative(target)}", False

    def edit_file(self, path: str, old_text: str, new_text: str) -> tuple[str, bool]:
        """Replace the one occurrence of ``old_text``; zero or several matches are an error."""
        target = self.path(path)
        if not target.is_file():
            raise ToolError(f"{path}: no such file")
        if not old_text:
            raise ToolError("edit_file: old_text must not be empty")
        body = target.read_text(encoding="utf-8")
        found = body.count(old_text)
        if found != 1:
            how = "not found" if found == 0 else f"found {found} times; add context to make it unique"
            raise ToolError(f"{path}: old_text {how}")
        target.write_text(body.replace(old_text, new_text, 1), encoding="utf-8")
        return f"edited {self.relative(target)}: replaced 1 occurrence", False

    def glob(self, pattern: str) -> tuple[str, bool]:
        """The files matching ``pattern`` under the root, as sorted relative paths."""
        if not pattern.strip() or pattern.strip() == ".":
            raise ToolError("glob: pattern must name files, e.g. '**/*.py'")
        if os.path.isabs(pattern) or ".." in Path(pattern).parts:
            raise ToolError(f"{pattern}: patterns must stay inside the workspace")
        found = sorted(
            self.relative(p)
            for p in self.root.glob(pattern)
            if p.is_file() and p.resolve().is_relative_to(self.root)
        )
        return ("\n".join(found) if found else f"no files match {pattern}"), False


def _arguments(name: str, args: dict) -> dict:
    """Check a tool's input against its definition; returns the keyword arguments."""
    schema = next(t for t in TOOL_DEFINITIONS if t["name"] == name)["input_schema"]
    for key in schema["required"]:
        if key not in args:
            raise ToolError(f"{name}: missing required parameter '{key}'")
    unknown = sorted(set(args) - set(schema["properties"]))
    if unknown:
        raise ToolError(f"{name}: unknown parameter(s) {', '.join(unknown)}")
    for key, value in args.items():
        kind = schema["properties"][key]["type"]
        ok = isinstance(value, str) if kind == "string" else type(value) is int and value >= 1
        if not ok:
            want = "a string" if kind == "string" else "a positive integer"
            raise ToolError(f"{name}: parameter '{key}' must be {want}")
    return args
