"""What a shell command did to files: written, appended, edited in place, patched, reverted, removed, read.

``shell_actions(command, output)`` reads a command the way a reviewer does: here-documents and
redirections (``cat > f << EOF``, ``echo x >> f``, ``tee``), ``sed -i``, ``apply_patch`` (a patch in a
here-document or an argument; ``patch_actions`` reads one), ``patch`` (the files its output names),
``git checkout -- f`` and ``git restore``, ``rm``, ``touch``, ``cp``, ``mv``, and the reads ``cat``,
``head``, ``tail``, ``sed -n``, ``nl``. The command is split with ``shlex`` (a new line ends a command);
one it cannot split (an open quote) is read with a plain pattern.
Deliberately left out: files a script changes (``python fix.py``), variables and globs in paths
(``> $OUT``, ``rm *.pyc``), and a shell's expansions.
"""

from __future__ import annotations

import re
import shlex

from compaction.core.changes import created, cut, edited

_READERS = ("cat", "head", "tail", "less", "more", "nl", "bat", "open")
_HEREDOC = re.compile(r"(?<!<)<<-?(?!<)\s*(['\"]?)([A-Za-z_][\w.-]*)\1")
_PATCHING = re.compile(r"^patching file [`']?([^\s`']+)", re.MULTILINE)
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$", re.MULTILINE)
_SEPARATORS = {"&&", "||", ";", "|", "&", ";;", "|&"}


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
