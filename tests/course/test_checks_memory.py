"""Chapter 18's checks pass right answers, fail the stubs, and reject known-wrong answers.

``check_safe_path`` is proven against eight answers that each miss one kind of unsafe path: each is
rejected by the row of its kind (``test_each_kind_of_unsafe_path_has_a_row_that_rejects_its_miss``).
"""

from __future__ import annotations

import os
import re
import shutil
import unicodedata
from pathlib import Path

import pytest
from check_cases import check_tests

from compaction.course.checks import memory as checks

ROOT = "/memories"

# ---------------------------------------------------------------- right answers, written differently


def path_by_parts(root, path):
    """PurePosixPath parts instead of string slicing, links checked with lstat."""
    from pathlib import PurePosixPath

    if "\x00" in path or "\\" in path or any(unicodedata.category(c) == "Cc" for c in path):
        raise ValueError("forbidden character")
    parts = PurePosixPath(path).parts
    if parts[:2] != ("/", "memories") or len(path.rstrip("/")) < len(ROOT):
        raise ValueError("outside /memories")
    if not path.startswith(ROOT + "/") and path.rstrip("/") != ROOT:
        raise ValueError("outside /memories")
    rest = [p for p in path.split("/")[2:] if p != ""]
    if ".." in rest or "." in rest:
        raise ValueError("dot segment")
    target = Path(root)
    for part in rest:
        target = target / part
        if os.path.lexists(target) and os.lstat(target).st_mode & 0o170000 == 0o120000:
            raise ValueError("link")
    return target


class Handler:
    """A class with a method per command, its own wording, os-level calls."""

    limit = 100_000

    def __init__(self, root):
        self.root = Path(root)

    def at(self, path):
        return path_by_parts(self.root, path)

    def view(self, path, view_range=None):
        target = self.at(path)
        if target.is_dir():
            return "\n".join(sorted(f"{ROOT}/{p.relative_to(self.root)}" for p in target.rglob("*")))
        lines = target.read_text().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        a, b = view_range or (1, len(lines))
        b = len(lines) if b == -1 else b
        return "\n".join(f"line {n}: {lines[n - 1]}" for n in range(a, b + 1))

    def write(self, target, text):
        if len(text.encode()) > self.limit:
            raise OverflowError("too big")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)

    def create(self, path, file_text):
        target = self.at(path)
        if os.path.lexists(target):
            raise FileExistsError(path)
        self.write(target, file_text)
        return "ok"

    def str_replace(self, path, old_str, new_str):
        target = self.at(path)
        body = target.read_text()
        if len(re.findall(re.escape(old_str), body)) != 1:
            raise LookupError("not exactly once")
        self.write(target, body.replace(old_str, new_str))
        return "ok"

    def insert(self, path, insert_line, insert_text):
        target = self.at(path)
        lines = target.read_text().splitlines(keepends=True)
        if insert_line < 0 or insert_line > len(lines):
            raise IndexError(insert_line)
        lines.insert(insert_line, insert_text + "\n")
        self.write(target, "".join(lines))
        return "ok"

    def delete(self, path):
        target = self.at(path)
        if target == self.root:
            raise PermissionError("root")
        shutil.rmtree(target) if target.is_dir() else os.remove(target)
        return "ok"

    def rename(self, old_path, new_path):
        old, new = self.at(old_path), self.at(new_path)
        if os.path.lexists(new):
            raise FileExistsError(new_path)
        new.parent.mkdir(parents=True, exist_ok=True)
        os.rename(old, new)
        return "ok"


def handle_by_class(root, command):
    args = {k: v for k, v in command.items() if k != "command"}
    method = getattr(Handler(root), command["command"], None) if command["command"] in (
        "view", "create", "str_replace", "insert", "delete", "rename"
    ) else None  # fmt: skip
    if method is None:
        raise KeyError(command["command"])
    return method(**args)


def edit_refusing_links(root, path, old_str, new_str):
    """Refuses a note with more than one name (st_nlink > 1), edits the rest in place."""
    target = path_by_parts(root, path)
    if os.stat(target).st_nlink > 1:
        raise PermissionError(f"{path} has another name outside the folder")
    body = target.read_text()
    if body.count(old_str) != 1:
        raise ValueError("not exactly once")
    target.write_text(body.replace(old_str, new_str))
    return "ok"


def edit_with_mkstemp(root, path, old_str, new_str):
    """tempfile.mkstemp in the note's folder (a random name, O_EXCL, 0600), then os.replace."""
    import tempfile

    target = path_by_parts(root, path)
    body = target.read_text()
    if body.count(old_str) != 1:
        raise ValueError("not exactly once")
    fd, name = tempfile.mkstemp(dir=target.parent, prefix=".edit-")
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(body.replace(old_str, new_str))
        os.replace(name, target)
    except BaseException:
        os.unlink(name)
        raise
    return "ok"


def note_edit_by_characters(notes, section, line):
    """The heading's line and its newlines, widened a character at a time on both sides until unique."""
    found = [m.start() for m in re.finditer(rf"(?m)^## {re.escape(section)}$", notes)]
    if len(found) != 1:
        raise LookupError(section)
    start = found[0]
    end = start + len(f"## {section}")  # where the new line goes: after the heading's text
    a, b = max(start - 1, 0), min(end + 1, len(notes))
    while notes.count(notes[a:b]) != 1:
        a, b = max(a - 1, 0), min(b + 1, len(notes))
    return {"old_str": notes[a:b], "new_str": notes[a:end] + "\n" + line + notes[end:b]}


def path_refusing_encoded(root, path):
    """The documentation's advice followed: a URL-encoded traversal sequence is refused as well."""
    if "%2e" in path.lower():
        raise ValueError("URL-encoded traversal sequence")
    return path_by_parts(root, path)


# ---------------------------------------------------------------- answers missing one kind of unsafe path


def path_naive(root, path):
    return Path(root) / path.removeprefix(ROOT).lstrip("/")


def path_missing(rule):
    """A safe_path with every rule but ``rule``: each such answer misses one kind of unsafe path."""

    def safe_path(root, path):
        absolute = path.startswith("/")
        if rule != "relative" and not absolute:
            raise ValueError("relative")
        if rule == "absolute" and absolute and not path.startswith(ROOT):
            path = ROOT + path  # any absolute path taken as one under the root
        if rule == "relative" and not absolute:
            path = f"{ROOT}/{path}"
        if rule != "prefix" and path != ROOT and not path.startswith(ROOT + "/"):
            raise ValueError("outside /memories")
        if rule == "prefix" and not path.startswith(ROOT):
            raise ValueError("outside /memories")
        if rule != "nul" and "\x00" in path:
            raise ValueError("NUL")
        if rule != "control" and any(unicodedata.category(c) == "Cc" and c != "\x00" for c in path):
            raise ValueError("control character")
        if rule != "backslash" and "\\" in path:
            raise ValueError("backslash")
        parts = [p for p in path[len(ROOT) :].split("/") if p]
        if rule != "dots" and any(p in (".", "..") for p in parts):
            raise ValueError("dot segment")
        target = Path(root)
        for k, part in enumerate(parts):
            target = target / part
            last = k == len(parts) - 1
            if rule not in ("links", "nul") and (last or rule != "middle links") and os.path.islink(target):
                raise ValueError("link")
        return target

    safe_path.__name__ = f"path_missing_{rule.replace(' ', '_')}"
    return safe_path


def path_url_decoding(root, path):
    """Decodes %2e%2e to .. after the checks: the decoded path climbs out of the folder."""
    from urllib.parse import unquote

    return Path(root) / unquote(str(path_by_parts(root, path).relative_to(root)))


def path_resolve_and_compare(root, path):
    """The SDK's way: a /memories prefix, then resolve and compare (a link inside is followed)."""
    if not path.startswith(ROOT):
        raise ValueError("outside")
    target = (Path(root) / path[len(ROOT) :].lstrip("/")).resolve()
    if not target.is_relative_to(Path(root).resolve()):
        raise ValueError("escapes")
    return target


# (wrong answer, the rows of its kind that must reject it)
MISSES = [
    (path_missing("dots"), ["`..` climbs out of the folder", "`..` deeper in the path"]),
    (path_missing("absolute"), ["an absolute path elsewhere"]),
    (path_missing("relative"), ["a relative path"]),
    (path_missing("prefix"), ["a name that only starts like the root"]),
    (path_missing("nul"), ["a NUL in a name"]),  # no link walk either: no OS call refuses the NUL for it
    (path_missing("control"), ["a newline in a name"]),
    (path_missing("backslash"), ["a backslash"]),
    (
        path_missing("links"),
        ["a link to a file outside", "a link as a folder in the middle", "a link back inside"],
    ),
    (path_missing("middle links"), ["a link as a folder in the middle"]),
    (
        path_resolve_and_compare,
        ["a link back inside", "a name that only starts like the root", "a backslash"],
    ),
]


@pytest.mark.parametrize(("wrong", "rows"), MISSES, ids=lambda v: getattr(v, "__name__", ""))
def test_each_kind_of_unsafe_path_has_a_row_that_rejects_its_miss(wrong, rows):
    report = checks.check_safe_path(wrong)
    failed = {r.name: r.detail for r in report.failures}
    for row in rows:
        assert row in failed, f"{wrong.__name__} passed the row {row!r}"
        assert "should be refused" in failed[row]
    safe = [name for name, *_ in checks.SAFE]
    assert not [name for name in failed if name in safe]  # a safe path is still accepted


def test_at_least_six_kinds_of_unsafe_path_are_proven():
    kinds = {rule for name, rule, _ in checks.UNSAFE for _, rows in MISSES if name in rows}
    assert len(kinds) >= 6, kinds


# ---------------------------------------------------------------- known-wrong handlers


def _package(**changes):
    """The package's handler with one command replaced by a wrong one."""

    def handle(root, command):
        wrong = changes.get(command.get("command"))
        return wrong(Path(root), command) if wrong else checks.handle_reference(root, command)

    return handle


def _raw_create(root, command):
    target = checks.safe_path_reference(root, command["path"])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(command["file_text"])
    return "ok"


def _replace_all(root, command):
    target = checks.safe_path_reference(root, command["path"])
    body = target.read_text()
    if command["old_str"] not in body:
        raise ValueError("absent")
    target.write_text(body.replace(command["old_str"], command["new_str"]))
    return "ok"


def _insert_one_based(root, command):
    return checks.handle_reference(root, {**command, "insert_line": max(command["insert_line"] - 1, 0)})


def _view_unnumbered(root, command):
    target = checks.safe_path_reference(root, command["path"])
    return checks.handle_reference(root, command) if target.is_dir() else target.read_text()


def _delete_anything(root, command):
    target = checks.safe_path_reference(root, command["path"])
    shutil.rmtree(target) if target.is_dir() else target.unlink()
    if not Path(root).exists():
        Path(root).mkdir()
    return "ok"


def _view_range_off_by_one(root, command):
    if not command.get("view_range"):
        return checks.handle_reference(root, command)
    lines = checks.safe_path_reference(root, command["path"]).read_text().splitlines()
    a, b = command["view_range"]
    return "\n".join(f"{n}\t{line}" for n, line in enumerate(lines[a:b], a))


def handler_without_a_size_limit(root, command):
    kind = command["command"]
    if kind in ("create", "str_replace", "insert"):
        big = checks.handle_reference.__globals__["MemoryFolder"](root, max_file_bytes=10**9)
        return big.call(command)
    return checks.handle_reference(root, command)


def handler_naive_paths(root, command):
    if command.get("path", "").startswith("/memories/.."):
        target = Path(root) / command["path"].removeprefix(ROOT).lstrip("/")
        return target.read_text() if command["command"] == "view" else "done"
    return checks.handle_reference(root, command)


def handler_unknown_as_view(root, command):
    if command["command"] not in ("view", "create", "str_replace", "insert", "delete", "rename"):
        return checks.handle_reference(root, {"command": "view", "path": command.get("path", ROOT)})
    return checks.handle_reference(root, command)


# ---------------------------------------------------------------- known-wrong exercise answers


def edit_in_place(root, path, old_str, new_str):
    target = checks.safe_path_reference(root, path)
    body = target.read_text()
    if body.count(old_str) != 1:
        raise ValueError("not once")
    target.write_text(body.replace(old_str, new_str))  # writes through a hard link
    return "ok"


def edit_refusing_every_file(root, path, old_str, new_str):
    target = checks.safe_path_reference(root, path)
    if os.stat(target).st_nlink >= 1:
        raise PermissionError("linked")
    return "ok"


def edit_leaving_a_backup(root, path, old_str, new_str):
    target = checks.safe_path_reference(root, path)
    body = target.read_text()
    if body.count(old_str) != 1:
        raise ValueError("not once")
    backup = target.with_name(target.name + ".new")
    backup.write_text(body.replace(old_str, new_str))
    shutil.copy(backup, target.with_name(target.name + ".tmp"))
    os.replace(target.with_name(target.name + ".tmp"), target)
    return "ok"


def edit_predictable_temporary_name(root, path, old_str, new_str):
    """The solution before review: '.notes.md.new' written with write_text, which follows a planted link."""
    target = checks.safe_path_reference(root, path)
    body = target.read_text(encoding="utf-8")
    if body.count(old_str) != 1:
        raise ValueError("not once")
    fresh = target.with_name(f".{target.name}.new")
    fresh.write_text(body.replace(old_str, new_str), encoding="utf-8")
    os.replace(fresh, target)
    return "ok"


def edit_fixed_name_of_its_own(root, path, old_str, new_str):
    """A fixed temporary name no list would guess: the check plants the names the answer writes."""
    target = checks.safe_path_reference(root, path)
    body = target.read_text(encoding="utf-8")
    if body.count(old_str) != 1:
        raise ValueError("not once")
    fresh = target.parent / "zz-scratch"
    fresh.write_text(body.replace(old_str, new_str), encoding="utf-8")
    os.replace(fresh, target)
    return "ok"


def edit_replacing_all(root, path, old_str, new_str):
    target = checks.safe_path_reference(root, path)
    fresh = target.with_name(".tmp-" + target.name)
    fresh.write_text(target.read_text().replace(old_str, new_str))
    os.replace(fresh, target)
    return "ok"


def edit_without_path_check(root, path, old_str, new_str):
    target = Path(root) / path.removeprefix(ROOT).lstrip("/")
    fresh = target.with_name(".tmp-" + target.name)
    body = target.read_text()
    if body.count(old_str) != 1:
        raise ValueError("not once")
    fresh.write_text(body.replace(old_str, new_str))
    os.replace(fresh, target)
    return "ok"


def note_heading_without_newline(notes, section, line):
    heading = f"## {section}"
    if heading not in notes:
        raise ValueError("missing")
    return {"old_str": heading, "new_str": f"{heading}\n{line}"}


def note_after_last_entry(notes, section, line):
    lines = notes.split("\n")
    k = lines.index(f"## {section}")
    last = k
    while last + 1 < len(lines) and lines[last + 1].startswith("- "):
        last += 1
    return {"old_str": lines[last] + "\n", "new_str": f"{line}\n{lines[last]}\n"}


def note_appended_oldest_last(notes, section, line):
    lines = notes.split("\n")
    k = lines.index(f"## {section}")
    end = k
    while end + 1 < len(lines) and lines[end + 1].startswith("- "):
        end += 1
    old = "\n".join(lines[k : end + 1])
    return {"old_str": old, "new_str": f"{old}\n{line}"}


def note_newline_both_sides(notes, section, line):
    if f"\n## {section}\n" not in notes:
        raise ValueError("missing")
    return {"old_str": f"\n## {section}\n", "new_str": f"\n## {section}\n{line}\n"}


def note_anchored_on_newlines(notes, section, line):
    """The solution before review: the heading and its newlines, never widened ('## Findings\\n' twice)."""
    found = list(re.finditer(rf"(^|\n)## {re.escape(section)}(\n|$)", notes))
    if len(found) != 1:
        raise ValueError(f"section {section} not found once")
    old = found[0].group(0)
    heading = old.strip("\n")
    return {"old_str": old, "new_str": old.replace(heading, f"{heading}\n{line}", 1)}


def note_reference_before_review(notes, section, line):
    """The reference before review: the same newlines by line index, never widened."""
    heading = f"## {section}"
    lines = notes.split("\n")
    if heading not in lines:
        raise ValueError("missing")
    k = lines.index(heading)
    before, after = ("\n" if k else ""), ("\n" if k < len(lines) - 1 else "")
    return {"old_str": f"{before}{heading}{after}", "new_str": f"{before}{heading}\n{line}{after}"}


def note_whole_file(notes, section, line):
    edit = checks.note_edit_reference(notes, section, line)
    return {"old_str": notes, "new_str": notes.replace(edit["old_str"], edit["new_str"], 1)}


def note_inventing_sections(notes, section, line):
    if f"## {section}" not in notes.split("\n"):
        return {"old_str": notes, "new_str": notes + f"\n## {section}\n{line}\n"}
    return checks.note_edit_reference(notes, section, line)


def note_found_by_substring(notes, section, line):
    k = notes.find(f"## {section}")
    if k < 0:
        raise ValueError("missing")
    end = notes.find("\n", k)
    old = notes[k : end + 1] if end >= 0 else notes[k:]
    if notes.count(old) != 1:
        old = notes[max(0, k - 10) : end + 1]
    return {"old_str": old, "new_str": old.rstrip("\n") + f"\n{line}\n"}


CASES = [
    (
        checks.check_safe_path,
        checks.safe_path_reference,
        [path_naive, path_url_decoding, *[wrong for wrong, _ in MISSES]],
    ),
    (
        checks.check_memory_handler,
        checks.handle_reference,
        [
            _package(create=_raw_create),
            _package(str_replace=_replace_all),
            _package(insert=_insert_one_based),
            _package(view=_view_unnumbered),
            _package(delete=_delete_anything),
            _package(view=_view_range_off_by_one),
            handler_without_a_size_limit,
            handler_naive_paths,
            handler_unknown_as_view,
        ],
    ),
    (
        checks.check_edit_through_hard_link,
        checks.edit_note_reference,
        [
            edit_in_place,
            edit_refusing_every_file,
            edit_leaving_a_backup,
            edit_replacing_all,
            edit_without_path_check,
            edit_predictable_temporary_name,
            edit_fixed_name_of_its_own,
        ],
    ),
    (
        checks.check_note_edit,
        checks.note_edit_reference,
        [
            note_heading_without_newline,
            note_after_last_entry,
            note_appended_oldest_last,
            note_newline_both_sides,
            note_whole_file,
            note_inventing_sections,
            note_found_by_substring,
            note_anchored_on_newlines,
            note_reference_before_review,
        ],
    ),
]
test_passes_the_package_and_fails_a_stub, test_rejects_known_wrong_answers = check_tests(CASES)


def test_right_answers_written_differently_pass():
    for check, answer in [
        (checks.check_safe_path, path_by_parts),
        (checks.check_memory_handler, handle_by_class),
        (checks.check_safe_path, path_refusing_encoded),
        (checks.check_edit_through_hard_link, edit_refusing_links),
        (checks.check_edit_through_hard_link, edit_with_mkstemp),
        (checks.check_note_edit, note_edit_by_characters),
    ]:
        report = check(answer)
        assert report.passed, str(report)


def test_a_failing_row_names_the_path_and_the_rule_and_never_the_temporary_folder():
    report = checks.check_safe_path(path_naive)
    row = next(r for r in report.failures if r.name == "a NUL in a name")
    assert row.detail == (
        "/memories/notes\\x00.md should be refused (no NUL character); got <memory folder>/notes\\x00.md"
    )
    assert not [r for r in report.results if "memory-check-" in r.detail]


@pytest.mark.parametrize(
    ("wrong", "row"),
    [
        (edit_predictable_temporary_name, "symbolic links planted at the temporary names"),
        (edit_predictable_temporary_name, "hard links planted at the temporary names"),
        (edit_fixed_name_of_its_own, "symbolic links planted at the temporary names"),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_a_link_planted_at_a_temporary_name_is_caught_and_named(wrong, row):
    failed = {r.name: r.detail for r in checks.check_edit_through_hard_link(wrong).failures}
    assert row in failed and "the file outside was written through" in failed[row], failed
    own = ".notes.md.new" if wrong is edit_predictable_temporary_name else "zz-scratch"
    assert f"temporary name ({own}," in failed[row]  # the answer's own name first


@pytest.mark.parametrize(
    ("wrong", "row"),
    [
        (note_anchored_on_newlines, "the first line, quoted at the end of an entry"),
        (note_anchored_on_newlines, "the last line, starting another heading"),
        (note_reference_before_review, "the first line, quoted at the end of an entry"),
        (note_reference_before_review, "the last line, starting another heading"),
    ],
    ids=lambda v: getattr(v, "__name__", v),
)
def test_a_heading_on_the_first_or_last_line_needs_a_wider_old_str(wrong, row):
    failed = {r.name: r.detail for r in checks.check_note_edit(wrong).failures}
    assert "occurs 2 times" in failed[row], failed


def test_an_encoded_dot_dot_may_be_a_name_or_refused_but_never_decoded():
    name = checks.ENCODED[0]
    assert checks.check_safe_path(path_refusing_encoded).passed
    assert name not in {r.name for r in checks.check_safe_path(checks.safe_path_reference).failures}
    failed = {r.name: r.detail for r in checks.check_safe_path(path_url_decoding).failures}
    assert "refuse it or keep %2e%2e as a name" in failed[name]
