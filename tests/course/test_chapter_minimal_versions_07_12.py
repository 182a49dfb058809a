"""Each minimal version chapters 07-12 build agrees with the package's function where the chapter says so.

The functions are taken from the chapter notebooks themselves (the cell that defines each, after the
chapter's imports and constants), so a change in a chapter is tested here, not a copy of it.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import nbformat

from compaction.agent.backend import connect
from compaction.core.api_errors import is_prompt_too_long
from compaction.core.messages import text_of
from compaction.core.models import DEFAULT_MODEL
from compaction.core.placeholders import restored_path
from compaction.core.tokens import count_text
from compaction.core.transcript import read_transcript
from compaction.course.checks.levels import level_sessions, sample_grep
from compaction.course.checks.messages import course_sessions
from compaction.course.checks.reactive import ERRORS
from compaction.course.checks.restore import restore_session
from compaction.layers.reactive import tail_start
from compaction.layers.restore import restore_files
from compaction.layers.summarize import summarize_messages
from compaction.layers.summary_request import with_summary_prompt
from compaction.layers.triggers import summary_threshold
from compaction.levels.checkpoint import files_modified as package_files_modified
from compaction.levels.condense import condense_grep
from compaction.levels.locations import missing_references

ROOT = Path(__file__).resolve().parents[2]


def chapter(name: str, *functions: str, final: bool = False) -> dict:
    """The namespace after the chapter's imports, constants and the cells that define ``functions``
    (the first cell that defines each; with ``final``, the last: the version the chapter ends with)."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [cell.source for cell in nb.cells if cell.cell_type == "code"]
    setup = []
    for source in code:
        for node in ast.parse(source).body:
            constant = (
                isinstance(node, ast.Assign)
                and all(isinstance(t, ast.Name) and t.id.isupper() for t in node.targets)
                and isinstance(node.value, ast.Constant)
            )
            if isinstance(node, ast.Import | ast.ImportFrom) or constant:
                setup.append(ast.get_source_segment(source, node))
    namespace: dict = {}
    exec("\n".join(setup), namespace)  # noqa: S102 - the course's own notebooks
    for function in functions:
        cells = [s for s in code if re.search(rf"^def {function}\(", s, re.MULTILINE)]
        assert cells, f"{name} defines no function {function}"
        cell = cells[-1] if final else cells[0]
        tree = ast.parse(cell)
        defs = [  # the cell's functions, classes and UPPER_CASE constants (a compiled pattern, say)
            n
            for n in tree.body
            if isinstance(n, ast.FunctionDef | ast.ClassDef)
            or (
                isinstance(n, ast.Assign)
                and all(isinstance(t, ast.Name) and t.id.isupper() for t in n.targets)
            )
        ]
        exec("\n\n".join(ast.get_source_segment(cell, n) for n in defs), namespace)  # noqa: S102
    return namespace


def course_lists() -> list[list[dict]]:
    return [s for s in course_sessions() if len(s) >= 2]


# ------------------------------------------------------------ chapter 07: the summary layer


def test_07_compact_summary_keeps_the_summary_the_package_keeps(tmp_path):
    ns = chapter("07_summarize.ipynb", "save_transcript", "with_prompt", "compact_summary")
    client = connect("offline", context_window=1_000_000)
    for messages in course_lists():
        ours = ns["compact_summary"](messages, client=client, transcript_dir=tmp_path / "ours")
        summary, parts = summarize_messages(messages, client=client, model=DEFAULT_MODEL, max_tokens=400)
        assert parts == 1  # the whole list fits one request in this window
        assert summary in text_of(ours[0]["content"])


def test_07_save_transcript_writes_what_the_package_reads_back(tmp_path):
    ns = chapter("07_summarize.ipynb", "save_transcript")
    for messages in course_lists():
        assert read_transcript(ns["save_transcript"](messages, tmp_path)) == messages


def test_07_with_prompt_is_the_package_request_at_every_cut():
    ns = chapter("07_summarize.ipynb", "with_prompt")
    for messages in course_lists():
        for cut in range(1, len(messages) + 1):
            assert ns["with_prompt"](messages[:cut]) == with_summary_prompt(messages[:cut])


# ------------------------------------------------------------ chapter 08: restoration


def test_08_restore_recent_restores_what_the_package_restores_minus_files_the_agent_edited():
    """Chapter 08 says the package restores more (it follows the agent's own edits), never less."""
    ns = chapter("08_restore_and_breaker.ipynb", "last_reads", "as_read", "restore_recent")
    messages, workspace = restore_session()
    ours = [restored_path(b["text"]) for b in ns["restore_recent"](messages, workspace, max_files=100)]
    package = restore_files(
        messages, workspace, max_files=100, max_total_tokens=10**6, max_tokens_per_file=10**6
    )
    paths = [restored_path(b["text"]) for b in package]
    assert ours and set(ours) <= set(paths)
    assert ours == [p for p in paths if p in ours]
    blocks_ours = ns["restore_recent"](messages, workspace, max_files=100)
    assert all(b in package for b in blocks_ours)  # the same block, byte for byte, where both restore


def test_08_restore_within_keeps_the_newest_files_up_to_the_first_that_does_not_fit():
    """Chapter 08's budget stops at the first file past it; a file that reaches it exactly fits."""
    ns = chapter("08_restore_and_breaker.ipynb", "last_reads", "as_read", "restore_recent", "restore_within")
    messages, workspace = restore_session()
    everything = ns["restore_recent"](messages, workspace, max_files=100)
    sizes = [count_text(block["text"], "tiktoken") for block in everything]
    assert len(sizes) >= 2
    for budget in (0, sizes[0] - 1, sizes[0], sizes[0] + sizes[1] - 1, sum(sizes)):
        fits = sum(1 for k in range(1, len(sizes) + 1) if sum(sizes[:k]) <= budget)
        got = ns["restore_within"](messages, workspace, max_files=100, max_tokens=budget)
        assert got == everything[:fits], budget


# ------------------------------------------------------------ chapter 09: the reactive layer


def test_09_tail_start_is_the_package_cut_on_every_course_session_and_keep():
    ns = chapter("09_reactive.ipynb", "tail_start")
    for messages in course_lists():
        for keep in range(1, len(messages) + 2):
            assert ns["tail_start"](messages, keep) == tail_start(messages, keep), keep


def test_09_is_context_overflow_agrees_with_the_package_on_the_checks_errors():
    ns = chapter("09_reactive.ipynb", "is_context_overflow")
    for make in ERRORS.values():
        error = make()
        assert ns["is_context_overflow"](error) == is_prompt_too_long(error), error


# ------------------------------------------------------------ chapter 11: condensing a grep


def test_11_condense_grep_has_the_package_totals_and_keeps_every_location():
    ns = chapter("11_condense.ipynb", "condense_grep")
    for seed in range(3):
        grep = sample_grep(seed=seed)
        ours = ns["condense_grep"](grep)
        assert ours.splitlines()[0] == condense_grep(grep).splitlines()[0]
        assert missing_references(grep, ours) == []


# ------------------------------------------------------------ chapter 10: the threshold


def test_10_summary_threshold_is_the_package_threshold():
    ns = chapter("10_the_whole_loop.ipynb", "summary_threshold")
    for window in (4_000, 8_000, 32_000, 200_000, 1_000_000):
        assert ns["summary_threshold"](window) == summary_threshold(window)
        assert ns["summary_threshold"](window, reserve_output=window // 3) == summary_threshold(
            window, window // 3
        )


# ------------------------------------------------------------ chapter 12: files modified


def test_12_files_modified_is_the_package_list_on_every_course_session():
    ns = chapter("12_phases_and_checkpoints.ipynb", "old_text_of", "change_of", "files_modified", final=True)
    for messages in level_sessions() + course_lists():
        assert ns["files_modified"](messages) == package_files_modified(messages)
