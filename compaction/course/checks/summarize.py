"""Checks for chapter 06 (summarize): the summary request, stripping the analysis, reading the answer.

Each check compares the learner's function with the package's on the course sessions and on
targeted cases: a list that ends with tool results, one that ends with an assistant reply, an
unclosed analysis, an answer that calls a tool. Deliberately left out: the model call itself and
file restoration, which the chapter shows rather than asks for.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from compaction.course.checks import CheckReport, run_cases
from compaction.course.checks.messages import course_sessions
from compaction.messages import is_valid, validate
from compaction.summarize import NO_TOOLS_HEAD, SummaryFailed, strip_analysis, summary_from_blocks
from compaction.summary_request import with_summary_prompt

ANSWERS = [
    "<analysis>first I read calc.py</analysis>\n<summary>1. Primary Request and Intent: fix add</summary>",
    "<summary>no analysis here</summary>",
    "  <analysis>\nmany\nlines\n</analysis>  \n\n<summary>\nkept\n</summary>\n  ",
    "<analysis>one</analysis> middle <analysis>two</analysis> end",
    "<summary>s</summary>\n<analysis>an analysis after the summary</analysis>",
    "<analysis>never closed, so it runs to the end <summary>lost</summary>",
    "plain text with no tags at all",
]


def _lists() -> list[list[dict]]:
    """Valid course sessions cut at several places: ending with results, a text reply, the task."""
    out = []
    for session in course_sessions():
        out += [session[:cut] for cut in (len(session), len(session) - 1, 3, 1)]
    return [s for s in out if is_valid(s)]


def check_with_summary_prompt(fn: Callable[..., list[dict]]) -> CheckReport:
    """``fn(messages, focus=None)`` builds the summary request exactly as the package does."""

    def same_as_package(focus):
        def case():
            for messages in _lists():
                before = copy.deepcopy(messages)
                got, want = fn(messages, focus=focus), with_summary_prompt(messages, focus=focus)
                assert messages == before, "the input list was changed; build a new one"
                assert got == want, f"differs from the package on a {len(messages)}-message list"

        return case

    def stays_valid():
        for messages in _lists():
            got = fn(messages)
            validate(got)
            last = got[-1]["content"][-1]
            assert last.get("type") == "text" and last["text"].startswith(NO_TOOLS_HEAD), (
                "the last block must be the summary prompt, starting with NO_TOOLS_HEAD"
            )

    return run_cases(
        "with_summary_prompt",
        [
            ("identical to the package on every course session", same_as_package(None)),
            ("identical with a focus", same_as_package("the failing test")),
            ("the request passes validate and ends with the prompt", stays_valid),
        ],
    )


def check_strip_analysis(fn: Callable[[str], str]) -> CheckReport:
    """``fn(answer)`` removes every ``<analysis>`` part (an unclosed one runs to the end) and strips."""

    def case_for(answer):
        def case():
            got, want = fn(answer), strip_analysis(answer)
            assert got == want, f"for {answer[:40]!r}... got {got[:60]!r}, expected {want[:60]!r}"

        return case

    return run_cases("strip_analysis", [(f"answer {i + 1}", case_for(a)) for i, a in enumerate(ANSWERS)])


def _outcome(fn: Callable, content: list[dict]) -> str:
    try:
        return "summary: " + fn(copy.deepcopy(content))
    except SummaryFailed:
        return "SummaryFailed"


BLOCKS = {
    "a text answer with analysis and summary": [{"type": "text", "text": ANSWERS[0]}],
    "a summary spread over two text blocks": [
        {"type": "text", "text": "<analysis>x</analysis><summary>part one, "},
        {"type": "text", "text": "part two</summary>"},
    ],
    "a summary that also calls a tool": [
        {"type": "text", "text": "<summary>s</summary>"},
        {"type": "tool_use", "id": "toolu_9", "name": "bash", "input": {"command": "ls"}},
    ],
    "only a tool call": [{"type": "tool_use", "id": "toolu_8", "name": "read_file", "input": {"path": "a"}}],
    "an empty answer": [],
    "blank text": [{"type": "text", "text": "  \n "}],
    "text without summary tags": [{"type": "text", "text": "Sure, here is what we did."}],
    "an empty summary": [{"type": "text", "text": "<summary>   </summary>"}],
    "only an analysis": [{"type": "text", "text": "<analysis><summary>x</summary></analysis>"}],
}


def check_summary_from_blocks(fn: Callable[[list[dict]], str]) -> CheckReport:
    """``fn(content)`` returns the summary, or raises SummaryFailed exactly when the package does."""

    def case_for(content):
        def case():
            got, want = _outcome(fn, content), _outcome(summary_from_blocks, content)
            assert got == want, f"got {got[:70]!r}, expected {want[:70]!r}"

        return case

    return run_cases("summary_from_blocks", [(name, case_for(content)) for name, content in BLOCKS.items()])
