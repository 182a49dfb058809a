"""What a tool call did to files, read from any agent's calls: a file tool's input or a shell command.

``shell_command(name, input)`` is the shell command a call ran, whatever the tool is called
(``bash``, ``Bash``, Codex's ``shell`` with an argument list, mini-swe-agent's one tool), or None.
``file_actions(name, input, output)`` is every ``(path, change)`` the call made, a change being
``read``, ``created (N lines), starting `...```, ``edited: + `line```, ``appended``,
``deleted`` or ``reverted``, read from:

- a file tool's input: any path key (``path``, ``file_path``, ``filename``, ...) with what the
  input holds: whole content (created), old and new text (the changed lines), or nothing (read);
- a shell command: ``cat > f``, ``>>``, ``tee``, here-documents, ``sed -i``, ``apply_patch``,
  ``patch`` (the files its output names), ``git checkout -- f`` and ``git restore``, ``rm``,
  ``touch``, ``cp`` and ``mv``, and the reads ``cat``, ``head``, ``tail``, ``sed -n``, ``nl``;
- SWE-agent's file commands (``create``, ``open``, ``edit N:M``, ``insert``) and edit tools that
  name no file: the file their output shows (``[File: path (N lines total)]``), unless the output
  says the edit was not applied.

``edit_refused(output)`` tells that last case. Deliberately left out: files a script changes
(``python fix.py``), variables and globs in paths (``> $OUT``, ``rm *.pyc``), and a shell's
quoting beyond what ``shlex`` reads (a command it cannot split is read with a plain pattern).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from typing import Any

LINE_CHARS = 160  # a line of code shown in a change, at most
SHOWN_LINES = 3  # changed lines shown per edit
PATH_KEYS = ("path", "file_path", "filename", "file", "notebook_path", "target_file")
# Anthropic's text editor tool (view, create, str_replace, insert): ``command`` is not a shell's
EDITOR_COMMANDS = ("view", "create", "str_replace", "insert", "undo_edit")
_READERS = ("cat", "head", "tail", "less", "more", "nl", "bat", "open")
_SEARCHES = re.compile(r"grep|glob|search|find|^ls$|list", re.IGNORECASE)
_WRITE_NAMES = re.compile(r"write|create", re.IGNORECASE)
_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)\s*(['\"]?)([A-Za-z_][\w.-]*)\1")
_SHOWN_FILE = re.compile(r"^\[File: (.+?) \(\d+ lines total\)\]", re.MULTILINE)
_REFUSED = re.compile(r"changes have NOT been applied|edit has introduced new syntax error", re.IGNORECASE)
_PATCHING = re.compile(r"^patching file [`']?([^\s`']+)", re.MULTILINE)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
_SEPARATORS = {"&&", "||", ";", "|", "&", ";;", "|&"}
_SWE_EDIT = re.compile(
    r"^\s*(edit|insert)\s+(\d+)(?::(\d+))?\s*\n(.*?)(?:\nend_of_(?:edit|insert)\s*)?$", re.DOTALL
)  # SWE-agent's edit N:M (or insert N), the new lines, end_of_edit


def cut(value: str, limit: int = LINE_CHARS) -> str:
    """``value`` on one line, cut to ``limit`` characters with '...' when longer."""
    value = " ".join(str(value).split())
    return value if len(value) <= limit else value[: limit - 3] + "..."


def shell_command(name: str, args: Mapping[str, Any]) -> str | None:
    """The shell command a call ran (any tool name), or None when it ran none."""
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
    return bool(_REFUSED.search(output))


def file_actions(name: str, args: Mapping[str, Any], output: str = "") -> list[tuple[str, str]]:
    """Every ``(path, change)`` one call made: from its shell command, its file input, or its output."""
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


def created(content: str) -> str:
    """A file written whole: its length in lines and its first line."""
    first = next((ln.strip() for ln in content.splitlines() if ln.strip()), "")
    if not first:
        return "created (empty)"
    return f"created ({len(content.splitlines())} lines), starting `{cut(first)}`"


def edited(old: str, new: str) -> list[str]:
    """An edit's changed lines, whole: the lines it added, or the lines it removed when it added none."""
    gone = set(old.splitlines())
    added = [ln.strip() for ln in new.splitlines() if ln not in gone and ln.strip()]
    if not added:
        kept = set(new.splitlines())
        removed = [ln.strip() for ln in old.splitlines() if ln not in kept and ln.strip()]
        return [f"edited: - `{cut(ln)}`" for ln in removed[:SHOWN_LINES]] or ["edited"]
    shown = [f"edited: + `{cut(ln)}`" for ln in added[:SHOWN_LINES]]
    return shown + ([f"edited, {len(added) - SHOWN_LINES} more lines"] if len(added) > SHOWN_LINES else [])


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


def _heredocs(command: str) -> tuple[str, list[str]]:
    """The command without its here-documents' bodies, and the bodies in order."""
    bodies: list[str] = []
    lines = command.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        out.append(line)
        for found in _HEREDOC.finditer(line):
            end = next((j for j in range(k + 1, len(lines)) if lines[j].strip() == found[2]), len(lines))
            bodies.append("\n".join(lines[k + 1 : end]))
            k = end
        k += 1
    return "\n".join(out), bodies


def _simple_commands(command: str) -> list[list[str]]:
    """The command split into simple commands (lists of words, redirections kept as their own words)."""
    command = command.replace("\\\n", " ").replace("\n", " ; ")  # a new line ends a command
    try:
        lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>")
        lexer.whitespace_split = True
        words = list(lexer)
    except ValueError:  # unbalanced quotes: split on white space and separators alone
        words = re.findall(r"[;&|<>]+|[^\s;&|<>]+", command)
    out: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS:
            out.append([])
        else:
            out[-1].append(word)
    return [c for c in out if c]


def shell_actions(command: str, output: str = "") -> list[tuple[str, str]]:
    """The files a shell command wrote, changed, removed or read, with what it did to each."""
    script, bodies = _heredocs(command)
    found: list[tuple[str, str]] = []
    body = iter(bodies)
    for words in _simple_commands(script):
        here = next(body, "") if any(w in ("<<", "<<-") for w in words) else None
        found += _one_command(words, here, output)
    found += [(p, "edited (patch)") for p in _PATCHING.findall(output)]
    return list(dict.fromkeys((p, c) for p, c in found if _is_path(p)))


def _is_path(word: str) -> bool:
    return bool(word) and not word.startswith(("-", "$", "&", "/dev/")) and not {"*", "="} & set(word)


def _one_command(words: list[str], here: str | None, output: str) -> list[tuple[str, str]]:
    """One simple command's file actions: its redirections, then what the program itself does."""
    args: list[str] = []
    found: list[tuple[str, str]] = []
    k = 0
    while k < len(words):
        word = words[k]
        if word in (">", ">>", ">|", "&>") and k + 1 < len(words):
            target = words[k + 1]
            if args and args[-1].isdigit() and word != "&>":  # 2> file: an error stream, not the output
                args.pop()
            elif word == ">>":
                found.append((target, "appended" + (f": + `{cut(_first(here))}`" if here else "")))
            else:
                found.append((target, _written(args, here)))
            k += 2
            continue
        if word.startswith("<") or word in (">&", ">>&"):  # input, here-document, a stream's copy
            k += 2
            continue
        args.append(word)
        k += 1
    return found + _program(args, here)


def _first(text: str | None) -> str:
    return next((ln.strip() for ln in (text or "").splitlines() if ln.strip()), "")


def _written(args: list[str], here: str | None) -> str:
    """What ``args > file`` wrote: a here-document or echo's words whole, else a program's output."""
    if here is not None:
        return created(here)
    if args and args[0] in ("echo", "printf"):
        return created(" ".join(a for a in args[1:] if not a.startswith("-")))
    return f"written by `{cut(' '.join(args), 60)}`"


def _program(args: list[str], here: str | None) -> list[tuple[str, str]]:
    """What a program does to the files its arguments name (sed -i, tee, rm, git checkout, ...)."""
    if not args:
        return []
    program, rest = args[0].rsplit("/", 1)[-1], args[1:]
    files = [a for a in rest if not a.startswith("-")]
    if program == "sed":
        in_place = any(a.startswith("-i") or a == "--in-place" for a in rest)
        expression = next((rest[k + 1] for k, a in enumerate(rest[:-1]) if a in ("-e", "--expression")), None)
        if expression is None and files:
            expression, files = files[0], files[1:]
        if in_place:
            return [(f, f"edited: sed `{cut(expression or '', 100)}`") for f in files]
        return [(f, "read") for f in files]
    if program == "apply_patch":
        return patch_actions(here if here is not None else " ".join(rest))
    if program == "tee":
        change = "appended" if any(a in ("-a", "--append") for a in rest) else created(here or "")
        return [(f, change) for f in files]
    if program in _READERS and here is None:
        return [(f, "read") for f in files if not f.isdigit()]
    if program == "rm":
        return [(f, "deleted") for f in files]
    if program == "touch":
        return [(f, "created (empty)") for f in files]
    if program in ("cp", "mv") and len(files) == 2:
        verb = "copied" if program == "cp" else "moved"
        moved = [(files[0], f"moved to {files[1]}")] if program == "mv" else []
        return moved + [(files[1], f"created ({verb} from {files[0]})")]
    if program == "git" and rest[:1] in (["checkout"], ["restore"]):
        named = [f for f in files[1:] if "." in f or "/" in f]  # a file, not a branch
        paths = rest[rest.index("--") + 1 :] if "--" in rest else named
        return [(f, "reverted") for f in paths]
    return []


def patch_actions(patch: str) -> list[tuple[str, str]]:
    """The files an ``apply_patch`` text adds, updates, deletes or moves to, with their added lines."""
    out: list[tuple[str, str]] = []
    sections = list(_PATCH_FILE.finditer(patch))
    for found, after in zip(sections, [*sections[1:], None], strict=True):
        body = patch[found.end() : after.start() if after else len(patch)]
        added = "\n".join(ln[1:] for ln in body.splitlines() if ln.startswith("+"))
        if found[3]:
            out.append((found[3].strip(), "created (moved)"))
        elif found[1] == "Add":
            out.append((found[2].strip(), created(added)))
        elif found[1] == "Delete":
            out.append((found[2].strip(), "deleted"))
        else:
            out += [(found[2].strip(), c) for c in edited("", added)]
    return out
