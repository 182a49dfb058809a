"""Level 1: condense one tool output (a grep, a test run, a long log, a listing) into a few lines.

``condense`` picks a condenser from the tool, the command and the text itself, then keeps every
reference a later step may act on: each file path with all its line numbers, each failing test and
its error message. What it drops (matching lines, passing tests, repeated log lines, file names of
a large listing) is named by a pointer to the full output, ``saved_path`` or the command to re-run.
Deliberately left out: understanding the code that was matched; file reads, which come back as they
are (their content is the information); and listings: a listing of hundreds of files keeps its
folders, counts and key files, not every name (the pointer has the rest).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from compaction.core.tokens import count_text
from compaction.levels.locations import _PATH, locations, missing_references

KINDS = ("grep", "test_run", "log", "listing", "generic")
FILE_READERS = ("read_file", "Read", "view")  # tools whose output condense leaves as it is

_GREP_LINE = re.compile(rf"^({_PATH})[:-](\d+)[:-]")
_LOG_LEVEL = re.compile(r"\b(CRITICAL|FATAL|ERROR|WARNING|WARN|INFO|DEBUG|TRACE)\b")
_KEY_FILES = re.compile(
    r"(^|/)(README[\w.]*|pyproject\.toml|setup\.py|package\.json|Makefile|run_tests\.py|conftest\.py|__main__\.py|main\.\w+)$"
)  # noqa: E501


# ---------------------------------------------------------------- the condensers


def condense_grep(output: str) -> str:
    """Matches per file with their line numbers, the files with most matches first."""
    per_file: dict[str, list[int]] = defaultdict(list)  # path -> matched line numbers
    for line in output.splitlines():
        m = _GREP_LINE.match(line)
        if m:
            per_file[m[1]].append(int(m[2]))
    total = sum(len(v) for v in per_file.values())
    top = sorted(per_file, key=lambda p: (-len(per_file[p]), p))[:5]
    head = f"Search results: {total} matches in {len(per_file)} files."
    key = "Key files: " + ", ".join(f"{p} ({len(per_file[p])})" for p in top) if top else ""
    return "\n".join([head, key, *locations(output)]).replace("\n\n", "\n")


_PYTEST_FAILED = re.compile(r"^(?:FAILED|ERROR) (\S+::\S+)(?: - (.*))?$", re.M)
_PYTEST_TOTAL = re.compile(r"^=+ (.*\d+ (?:passed|failed|error)[^=]*?)(?: in [\d.]+s)?(?: \(.*\))? =+$", re.M)
_UNITTEST_FAILED = re.compile(r"^(?:FAIL|ERROR): (\S+ \([\w.]+\))", re.M)
_UNITTEST_TOTAL = re.compile(r"^Ran (\d+) tests?.*\n+(OK.*|FAILED.*)$", re.M)
_PLAIN_FAILED = re.compile(
    r"^\s*(?:FAIL|FAILED|ERROR)[: ]\s*([\w./\[\]-]+(?:::[\w.\[\]-]+)*):?(?: (.*))?$", re.M
)
_PLAIN_TOTAL = re.compile(r"^.*\b\d+ (?:passed|failed|tests?)\b.*$", re.M | re.I)
_ERROR_MESSAGE = re.compile(r"^(?:E\s+)?([A-Z]\w*(?:Error|Exception|Failure)\b:?.*)$", re.M)


def failing_tests(output: str) -> list[str]:
    """The names of the failing tests in a pytest, unittest or run_tests.py output, in order."""
    names = _PYTEST_FAILED.findall(output) or _UNITTEST_FAILED.findall(output)
    names = [n[0] if isinstance(n, tuple) else n for n in names]
    if not names:
        names = [m[0] for m in _PLAIN_FAILED.findall(output)]
    return list(dict.fromkeys(names))


def failures(output: str) -> list[tuple[str, str]]:
    """Each failing test of a test run with its error message (``""`` when none is shown)."""
    rows = output.splitlines()
    return [(name, _error_after(rows, name)) for name in failing_tests(output)]


def _error_after(rows: list[str], name: str) -> str:
    """The first error message at or after the last line that names the failing test."""
    at = max((i for i, row in enumerate(rows) if name in row), default=len(rows))
    tail = rows[at].split(" - ", 1)[1:] if " - " in rows[at] else []
    for row in tail + rows[at + 1 : at + 40]:
        found = _ERROR_MESSAGE.match(row.strip())
        if found and found[1].endswith("..."):  # pytest cut it short: find it in full above
            whole = [e for e in _ERROR_MESSAGE.findall("\n".join(rows)) if e.startswith(found[1][:-3])]
            return (whole or [found[1]])[0].strip()[:160]
        if found:
            return found[1][:160]
    return ""


def condense_test_run(output: str) -> str:
    """The totals, each failing test with its error message, and every file and line cited."""
    totals = _PYTEST_TOTAL.findall(output) or [
        f"ran {n} tests, {r}" for n, r in _UNITTEST_TOTAL.findall(output)
    ]
    totals = totals or [t.strip() for t in _PLAIN_TOTAL.findall(output)[-1:]]
    failed = failures(output)
    lines = [f"Test run: {totals[-1] if totals else 'no totals found'}."]
    if failed:
        lines.append(f"{len(failed)} failing:")
        lines += [f"- {name}: {error}".rstrip(": ") for name, error in failed]
    else:
        errors = list(dict.fromkeys(e.strip()[:160] for e in _ERROR_MESSAGE.findall(output)))[:5]
        lines += [f"Errors: {'; '.join(errors)}"] if errors else []
    return "\n".join(lines + locations(output))


def condense_log(output: str) -> str:
    """Lines per level, each distinct warning and error with its count and first line number."""
    rows = output.splitlines()
    levels = Counter(m[1] for m in map(_LOG_LEVEL.search, rows) if m)
    firsts: dict[str, int] = {}  # normalised message -> first line number (1-based)
    counts: Counter[str] = Counter()
    for i, row in enumerate(rows, 1):
        level = _LOG_LEVEL.search(row)
        if (level and level[1] in ("CRITICAL", "FATAL", "ERROR", "WARNING", "WARN")) or (
            not level and _ERROR_MESSAGE.match(row.strip())
        ):
            key = re.sub(r"\d+", "N", row[level.start() if level else 0 :].strip())[:160]
            firsts.setdefault(key, i)
            counts[key] += 1
    summary = ", ".join(f"{n} {lvl}" for lvl, n in sorted(levels.items(), key=lambda kv: -kv[1]))
    lines = [f"Log: {len(rows)} lines ({summary or 'no levels'})."]
    lines += [f"- x{counts[k]} from output line {firsts[k]}: {k}" for k in list(firsts)[:12]]
    lines += [f"Last line: {rows[-1].strip()[:160]}"] if rows else []
    return "\n".join(lines + locations(output))


def listed_paths(output: str) -> list[str]:
    """The paths of a listing: one per line (find, glob) or ``ls -R`` sections and columns."""
    paths, prefix = [], ""
    for row in output.splitlines():
        row = row.rstrip()
        if row.endswith(":") and " " not in row:  # an ``ls -R`` section header
            prefix = row[:-1].removeprefix("./") + "/"
            prefix = "" if prefix in ("./", "/") else prefix
        elif row and not row.startswith("total "):
            names = [row.split()[-1]] if row[0] in "-dl" and len(row.split()) > 8 else row.split()
            paths += [prefix + name.removeprefix("./") for name in names]
    return paths


def _folder(path: str, depth: int = 99) -> str:
    parts = path.split("/")[:-1][:depth]
    return "/".join(parts) + "/" if parts else "./"


def condense_listing(output: str, *, keep_all_under: int = 60) -> str:
    """Files per folder and per extension and the key files; every name when the list is short."""
    paths = listed_paths(output)
    dirs = Counter(_folder(p) for p in paths)  # folder -> files in it
    exts = Counter(
        "." + p.rsplit(".", 1)[-1] if "." in p.rsplit("/", 1)[-1] else "no extension" for p in paths
    )
    lines = [f"Listing: {len(paths)} entries in {len(dirs)} folders."]
    lines.append("By type: " + ", ".join(f"{n} {e}" for e, n in exts.most_common(8)))
    if len(paths) <= keep_all_under:
        by_dir = defaultdict(list)
        for p in paths:
            by_dir[_folder(p)].append(p.rsplit("/", 1)[-1])
        return "\n".join(lines + [f"{d} {' '.join(sorted(v))}" for d, v in sorted(by_dir.items())])
    depth = max(d.count("/") for d in dirs)
    while len(dirs) > 40 and depth > 1:  # too many folders: count the files under shallower ones
        depth -= 1
        dirs = Counter(_folder(p, depth) for p in paths)
    lines += [f"{d} ({n} files)" for d, n in sorted(dirs.items())]
    key = [p for p in paths if _KEY_FILES.search(p)][:12]
    return "\n".join(lines + (["Key files: " + ", ".join(key)] if key else []))


def condense_generic(output: str, *, head: int = 8, tail: int = 8) -> str:
    """The first and last lines, the lines that mention an error, and every location cited."""
    rows = output.splitlines()
    notable = [r.strip()[:160] for r in rows[head:-tail] if re.search(r"(?i)error|fail|exception", r)]
    lines = rows[:head] + [f"... {max(len(rows) - head - tail, 0)} lines omitted"]
    lines += [f"! {r}" for r in list(dict.fromkeys(notable))[:10]] + rows[-tail:]
    return "\n".join(lines + locations(output))


CONDENSERS = {
    "grep": condense_grep,
    "test_run": condense_test_run,
    "log": condense_log,
    "listing": condense_listing,
    "generic": condense_generic,
}


def detect_kind(output: str, *, tool: str | None = None, command: str | None = None) -> str:
    """Which condenser fits: from the tool name, then the command, then the text itself."""
    cmd = (command or "").strip()
    if tool in ("glob", "ls", "list_files") or re.match(r"(ls|find|tree)\b", cmd):
        return "listing"
    if tool in ("grep", "search") or re.match(r"(\S+/)?(grep|rg|ag|ack|git grep)\b", cmd):
        return "grep"
    if re.search(r"pytest|unittest|run_tests|\btox\b|\bnpm test\b", cmd):
        return "test_run"
    rows = [r for r in output.splitlines() if r.strip()]
    if not rows:
        return "generic"
    share = lambda pattern: sum(bool(re.search(pattern, r)) for r in rows) / len(rows)  # noqa: E731
    if share(_GREP_LINE.pattern) > 0.5:
        return "grep"
    if failing_tests(output) or _PYTEST_TOTAL.search(output) or _UNITTEST_TOTAL.search(output):
        return "test_run"
    if share(_LOG_LEVEL.pattern) > 0.3:
        return "log"
    if share(rf"^\s*(\./)?{_PATH}/?\s*$|^\S+/$") > 0.8:
        return "listing"
    return "generic"


def condense(
    output: str, *, tool: str | None = None, command: str | None = None, saved_path: str | None = None
) -> str:
    """A few lines in place of ``output``, with a pointer to the full text; short outputs stay as is."""
    if not isinstance(output, str):
        raise TypeError(f"condense: output must be a string, not {type(output).__name__}")
    if tool in FILE_READERS:  # a file's content is the information itself; micro_compact clears old reads
        return output
    kind = detect_kind(output, tool=tool, command=command)
    body = CONDENSERS[kind](output)
    lost = [] if kind == "listing" else missing_references(output, body)
    if lost:  # the safety net: a condenser never drops a location (a listing's names are its data)
        body += "\nAlso cited: " + ", ".join(lost)
    n_lines = output.count("\n") + 1
    if saved_path:
        pointer = f"full output ({n_lines} lines) saved at {saved_path}"
    elif command:
        pointer = f"full output ({n_lines} lines) not saved; re-run `{command}` to see it"
    else:
        pointer = f"full output ({n_lines} lines) not saved"
    condensed = f"[condensed {kind} output; {pointer}]\n{body}"
    return condensed if count_text(condensed) < count_text(output) else output
