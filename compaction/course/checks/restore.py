"""Checks for chapter 08 (restoration and the breaker): files put back after a summary, and the budget.

``check_restore`` runs a learner's ``fn(messages, workspace, max_files=5)`` on a session of the
offline agent in its own workspace: every block must name one file in its first line and hold the
file as ``read_file`` shows it, newest read first, only files whose text on disk is still what the
agent last read (a file changed or deleted on disk, or a read that micro cleared, is never restored), and only
files the package restores too. ``check_choose_restores`` compares a learner's choice of files
under a budget with the package's ``choose_restores``, boundaries included. Deliberately left out:
the per-file token cut, which the chapter shows rather than asks for.
"""

from __future__ import annotations

import copy
import json
import shutil
import tempfile
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.agent.tools import Workspace
from compaction.core.messages import tool_use_blocks
from compaction.course.checks import CheckReport, run_cases
from compaction.layers.micro import micro_compact
from compaction.layers.restore import choose_restores, restore_files
from compaction.presentation.language import say


@lru_cache(maxsize=1)
def _session_json() -> tuple[str, str]:
    """A 30-call session of the offline agent and the workspace it left behind (kept for the process)."""
    folder = new_workspace(Path(tempfile.mkdtemp(prefix="check-restore-")) / "workspace")
    result = run_agent(connect("offline", context_window=1_000_000), workspace=folder, max_turns=30)
    return json.dumps(result.messages), str(folder)


def restore_session() -> tuple[list[dict], Path]:
    """A fresh copy of the check's session and a fresh copy of its workspace."""
    messages, folder = _session_json()
    copy_of = Path(tempfile.mkdtemp(prefix="check-restore-ws-")) / "workspace"
    shutil.copytree(folder, copy_of)
    return json.loads(messages), copy_of


def _restored_paths(blocks: list, known: set[str], where: str) -> list[str]:
    """The path each block names in its first line, in order; AssertionError naming a bad block."""
    assert isinstance(blocks, list), say(
        "{where}: returned {kind}, expected a list of blocks", where=where, kind=f"{type(blocks).__name__}"
    )
    paths = []
    for i, block in enumerate(blocks):
        assert isinstance(block, dict) and block.get("type") == "text", say(
            "{where}: block {i} is not a text block", where=where, i=i
        )
        first = block.get("text", "").split("\n", 1)[0]
        named = [p for p in known if p in first]
        assert named, say(
            "{where}: block {i}'s first line names no file the agent read: {first}",
            where=where,
            i=i,
            first=f"{first[:60]!r}",
        )
        paths.append(max(named, key=len))  # "a/b.py" over "b.py"
    return paths


def check_restore(fn: Callable[..., list]) -> CheckReport:
    """``fn(messages, workspace, max_files=5)``: blocks with the newest-read files unchanged on disk."""

    def run(messages, folder, **options):
        before = copy.deepcopy(messages)
        got = fn(messages, folder, **options)
        assert messages == before, say("the input list was changed; restoration only reads it")
        return got

    def reads_of(messages):  # every path the agent read, for naming blocks
        return {
            use["input"]["path"]
            for m in messages
            for use in tool_use_blocks(m)
            if use["name"] == "read_file" and isinstance(use.get("input", {}).get("path"), str)
        }

    def whole_files():
        messages, folder = restore_session()
        got = run(messages, folder)
        ws = Workspace(folder)
        for i, path in enumerate(_restored_paths(got, reads_of(messages), "the 30-call session")):
            lines = ws.path(path).read_text(encoding="utf-8").splitlines()
            numbered = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(lines, 1))
            assert numbered in got[i]["text"], say(
                "block {i} ({path}): the file is not there as read_file shows it (numbered lines)",
                i=i,
                path=path,
            )

    def only_what_the_package_restores():
        messages, folder = restore_session()
        got = _restored_paths(run(messages, folder), reads_of(messages), "the 30-call session")
        package = _restored_paths(
            restore_files(
                messages, folder, max_files=10**6, max_tokens_per_file=10**6, max_total_tokens=10**6
            ),
            reads_of(messages),
            "package",
        )
        extra = [p for p in got if p not in package]
        assert not extra, say(
            "restored {extra}, which the agent did not see as it is on disk now", extra=extra
        )
        assert got == [p for p in package if p in got], say(
            "order {got}: newest read first is {package}", got=got, package=f"{package[:8]}"
        )
        assert got, say("nothing restored, though the newest file the agent read is unchanged on disk")

    def not_a_changed_file():
        messages, folder = restore_session()
        newest = _restored_paths(restore_files(messages, folder), reads_of(messages), "package")[0]
        changed = Workspace(folder).path(newest)
        changed.write_text(
            changed.read_text(encoding="utf-8") + "\n# changed by someone else\n", encoding="utf-8"
        )
        got = _restored_paths(run(messages, folder), reads_of(messages), "after a change on disk")
        assert newest not in got, say(
            "{newest} changed on disk after the agent read it, and was restored anyway", newest=newest
        )

    def not_a_deleted_file():
        messages, folder = restore_session()
        newest = _restored_paths(restore_files(messages, folder), reads_of(messages), "package")[0]
        Workspace(folder).path(newest).unlink()
        try:
            got = _restored_paths(run(messages, folder), reads_of(messages), "after a deletion")
        except FileNotFoundError as exc:
            raise AssertionError(
                say(
                    "{newest} was deleted after the agent read it, and restoring raised {exc}; skip it",
                    newest=newest,
                    exc=f"{exc!r}",
                )
            ) from None
        assert newest not in got, say(
            "{newest} was deleted after the agent read it, and was restored anyway", newest=newest
        )
        assert got, say("nothing restored: only the deleted file should be left out")

    def not_a_cleared_read():
        messages, folder = restore_session()
        cleared = micro_compact(messages, keep_recent=0, min_chars=0)  # every read is a placeholder now
        got = run(cleared, folder)
        assert got == [], say(
            "restored {n} files from a list where micro had cleared every read: the agent's"
            " last view of them is a placeholder, not the file",
            n=f"{len(got)}",
        )

    def at_most_max_files():
        messages, folder = restore_session()
        for limit in (1, 2):
            got = run(messages, folder, max_files=limit)
            assert len(got) <= limit, say(
                "max_files={limit}: {n} files restored", limit=limit, n=f"{len(got)}"
            )
            want = _restored_paths(
                restore_files(
                    messages, folder, max_files=limit, max_total_tokens=10**6, max_tokens_per_file=10**6
                ),
                reads_of(messages),
                "package",
            )
            assert len(got) == len(want), say(
                "max_files={limit}: {n} files restored, the package restores {n1}",
                limit=limit,
                n=f"{len(got)}",
                n1=f"{len(want)}",
            )

    return run_cases(
        "restore",
        [
            ("each block holds one whole file as read_file shows it", whole_files),
            ("only files the package restores too, newest read first", only_what_the_package_restores),
            ("never a file changed on disk since the agent read it", not_a_changed_file),
            ("never a file deleted since the agent read it (and no error)", not_a_deleted_file),
            ("never a read that micro cleared", not_a_cleared_read),
            ("at most max_files files", at_most_max_files),
        ],
    )


# ---------------------------------------------------------------- choosing under a budget

SIZES = [("a.py", 300), ("b.py", 900), ("c.py", 200), ("d.py", 400), ("e.py", 100), ("f.py", 50)]
BUDGETS = {
    "everything fits": (SIZES, 10, 10_000),
    "max_files stops the list": (SIZES, 2, 10_000),
    "a big file is skipped, older small ones still come": (SIZES, 5, 1_000),
    "a file that reaches the total exactly fits": ([("a.py", 600), ("b.py", 400), ("c.py", 1)], 5, 1_000),
    "one token over the total is skipped": ([("a.py", 600), ("b.py", 401), ("c.py", 1)], 5, 1_000),
    "max_files counts the files chosen, not the files looked at": (
        [("a.py", 900), ("b.py", 200), ("c.py", 50)],
        2,
        1_000,
    ),
    "no file fits": (SIZES, 5, 10),
    "no candidates": ([], 5, 1_000),
    "max_files 0": (SIZES, 0, 10_000),
}
RULE = "newest first; skip a file that would pass the total and try the next"
SPECIAL = {  # the rule a case is about, named in its failing row (RULE for the others)
    "a file that reaches the total exactly fits": "a file that reaches the total exactly still fits (<=)",
    "one token over the total is skipped": "a file one token over the total does not fit; skip it",
    "max_files counts the files chosen, not the files looked at": (
        "max_files counts the files chosen; a file skipped for the total does not use up a place"
    ),
    "max_files stops the list": "at most max_files files, the newest first",
}


RULES = {name: SPECIAL.get(name, RULE) for name in BUDGETS}  # case -> its rule, every case


def check_choose_restores(fn: Callable[..., list[str]]) -> CheckReport:
    """``fn(sizes, max_files=..., max_total_tokens=...)`` chooses the files the package's rule chooses."""

    def case_for(sizes, max_files, total, name):
        def case():
            got = fn(list(sizes), max_files=max_files, max_total_tokens=total)
            want = choose_restores(sizes, max_files=max_files, max_total_tokens=total)
            if got == want:
                return
            given = say(
                "with sizes={value}, max_files={max_files}, max_total_tokens={total}: ",
                value=f"{list(sizes)}",
                max_files=max_files,
                total=f"{total:,}",
            )
            used = sum(dict(sizes)[p] for p in got if p in dict(sizes))
            assert set(got) <= set(dict(sizes)), say(
                "{given}chose {got}: some of these are not candidates", given=given, got=got
            )
            assert len(got) <= max_files, say(
                "{given}chose {n} files, over max_files", given=given, n=f"{len(got)}"
            )
            assert used <= total, say(
                "{given}chose {got}: {used} tokens, over the total", given=given, got=got, used=f"{used:,}"
            )
            raise AssertionError(
                say(
                    "{given}chose {got}, the rule chooses {want} ({rule})",
                    given=given,
                    got=got,
                    want=want,
                    rule=say(RULES[name]),
                )
            )

        return case

    cases = [(name, case_for(*args, name)) for name, args in BUDGETS.items()]
    return run_cases("choose_restores", cases)
