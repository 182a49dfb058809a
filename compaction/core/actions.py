"""What a tool call did to files, read from any agent's calls: a file tool's input or a shell command.

``shell_command(name, input)`` is the shell command a call ran, whatever the tool is called
(``bash``, ``Bash``, Codex's ``shell`` with an argument list, mini-swe-agent's one tool), or None.
``file_actions(name, input, output)`` is every ``(path, change)`` the call made, a change being
``read``, ``created (N lines), starting `...```, ``edited: + `line```, ``appended``,
``deleted`` or ``reverted``, read from:

- a file tool's input: any path key (``path``, ``file_path``, ``filename``, ...) with what the
  input holds: whole content (created), old and new text (the changed lines), or nothing (read);
- a shell command (``compaction.core.shell``): ``cat > f``, ``>>``, here-documents, ``sed -i``,
  ``apply_patch``, ``patch``, ``git checkout``, ``rm`` ... and the reads ``cat``, ``head``, ``sed -n``;
- SWE-agent's file commands (``create``, ``open``, ``edit N:M``, ``insert``) and edit tools that
  name no file: the file their output shows (``[File: path (N lines total)]``), unless the output
  says the edit was not applied.

``edit_refused(output)`` tells that last case; ``compaction.core.changes`` words each change.
Deliberately left out: a tool that names no file and shows none (its changes are not known).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

from compaction.core.changes import created, edited
from compaction.core.shell import patch_actions, shell_actions

PATH_KEYS = ("path", "file_path", "filename", "file", "notebook_path", "target_file")
# Anthropic's text editor tool (view, create, str_replace, insert): ``command`` is not a shell's
EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")
# Anthropic's memory tool (memory_20250818, chapter 18): its files are the agent's notes outside the
# workspace, read back through the tool; they are not files of the work (nor is its ``command`` a shell's)
MEMORY_TOOLS = ("memory",)
_SEARCHES = re.compile(r"grep|glob|search|find|^ls$|list", re.IGNORECASE)
_WRITE_NAMES = re.compile(r"write|create", re.IGNORECASE)
_SHOWN_FILE = re.compile(r"^\[File: (.+?) \(\d+ lines total\)\]", re.MULTILINE)
_REFUSALS = ("changes have NOT been applied", "edit has introduced new syntax error")  # in any case
_REFUSED = re.compile("|".join(map(re.escape, _REFUSALS)), re.IGNORECASE)
_SWE_EDIT = re.compile(
    r"^\s*(edit|insert)\s+(\d+)(?::(\d+))?\s*\n(.*?)(?:\nend_of_(?:edit|insert)\s*)?$", re.DOTALL
)  # SWE-agent's edit N:M (or insert N), the new lines, end_of_edit


def shell_command(name: str, args: Mapping[str, Any]) -> str | None:
    """The shell command a call ran (any tool name), or None when it ran none."""
    if name in MEMORY_TOOLS:
        return None
    command = args.get("command", args.get("cmd"))
    if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
        if len(command) >= 3 and command[1] in ("-c", "-lc") and command[0].endswith("sh"):
            return command[2]  # Codex: ["bash", "-lc", "the script"]
        return shlex.join(command)
    if not isinstance(command, str) or not command.strip():
        return None
    if command in EDITOR_COMMANDS and any(k in args for k in PATH_KEYS):
        return None  # the text editor tool's sub-command, not a shell's
    return command


def path_of(args: Mapping[str, Any]) -> str | None:
    """The file a tool's input names (its first path key), or None."""
    for key in PATH_KEYS:
        if isinstance(args.get(key), str) and args[key].strip():
            return args[key].strip()
    return None


def edit_refused(output: str) -> bool:
    """True when an edit's output says it was not applied (SWE-agent's syntax check refused it)."""
    if output.isascii():  # the same test without the regex: str.lower is IGNORECASE for ASCII
        low = output.lower()
        return any(phrase.lower() in low for phrase in _REFUSALS)
    return bool(_REFUSED.search(output))


def file_actions(name: str, args: Mapping[str, Any], output: str = "") -> list[tuple[str, str]]:
    """Every ``(path, change)`` one call made: from its shell command, its file input, or its output."""
    if name in MEMORY_TOOLS:
        return []
    command = shell_command(name, args)
    if command is not None:
        return _swe_command(command, output) or shell_actions(command, output)
    patch = next((v for v in args.values() if isinstance(v, str) and "*** Begin Patch" in v), None)
    if patch is not None:  # Codex's apply_patch tool: the patch is its whole input
        return patch_actions(patch)
    path = path_of(args)
    if path is None:
        if _SEARCHES.search(name) or not _edits(args) or edit_refused(output):
            return []
        shown = _SHOWN_FILE.findall(output)
        return [(shown[-1], c) for c in changes(name, args)] if shown else []
    if path.endswith("/") or _SEARCHES.search(name) and not _edits(args):
        return []  # a folder searched, not a file read
    return [(path, c) for c in changes(name, args)]


def _edits(args: Mapping[str, Any]) -> bool:
    keys = ("content", "file_text", "old_text", "old_str", "old_string", "new_text", "new_str", "new_string")
    return any(k in args for k in (*keys, "search", "replace", "text", "edits"))


def changes(name: str, args: Mapping[str, Any]) -> list[str]:
    """What a file tool's input did: ``read``, ``created (...)``, or each changed line of an edit."""
    content = args.get("content", args.get("file_text"))
    old = args.get("old_text", args.get("old_str", args.get("old_string", args.get("search"))))
    new = args.get("new_text", args.get("new_str", args.get("new_string", args.get("replace"))))
    if isinstance(args.get("edits"), list):  # Claude Code's MultiEdit: several replacements
        pairs = [e for e in args["edits"] if isinstance(e, Mapping)]
        old = "\n".join(str(e.get("old_string", "")) for e in pairs)
        new = "\n".join(str(e.get("new_string", "")) for e in pairs)
    if isinstance(content, str) and (old is None or _WRITE_NAMES.search(name)):
        return [created(content)]
    if old is not None or new is not None:
        return edited(str(old or ""), str(new or ""))
    if isinstance(args.get("text"), str):  # an insert: new lines only
        return edited("", args["text"])
    if _WRITE_NAMES.search(name) or args.get("command") == "create":
        return [created("")]
    return ["read"]


def _swe_command(command: str, output: str) -> list[tuple[str, str]]:
    """SWE-agent's file commands typed as a command: create, open, edit N:M ... end_of_edit, insert."""
    head = command.lstrip().split(None, 2)
    if not head or head[0] not in ("create", "open", "edit", "insert"):
        return []
    if head[0] in ("create", "open"):
        path = head[1].strip("\"'") if len(head) > 1 else ""
        return [(path, "created (empty)" if head[0] == "create" else "read")] if "." in path else []
    found = _SWE_EDIT.match(command)
    shown = _SHOWN_FILE.findall(output)
    if not found or not shown or edit_refused(output):
        return []
    return [(shown[-1], c) for c in edited("", found[4])]
