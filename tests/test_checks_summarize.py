"""The chapter 06 checks pass the package's functions, fail stubs, and reject known-wrong answers."""

from __future__ import annotations

import re

from check_cases import check_tests

from compaction.course.checks import summarize as checks
from compaction.failures import SummaryFailed
from compaction.messages import blocks, text
from compaction.summarize import extract_summary, strip_analysis, summary_from_blocks
from compaction.summary_prompt import summary_prompt
from compaction.summary_request import with_summary_prompt

# ------------------------------------------------------------ known-wrong answers


def prompt_always_new_message(messages, focus=None):
    """Wrong: a second user message in a row after tool results."""
    return [*messages, {"role": "user", "content": [text(summary_prompt(focus))]}]


def prompt_first_in_last_message(messages, focus=None):
    """Wrong: the prompt in front of the tool results."""
    if messages[-1]["role"] != "user":
        return with_summary_prompt(messages, focus)
    last = {**messages[-1], "content": [text(summary_prompt(focus)), *blocks(messages[-1])]}
    return [*messages[:-1], last]


def prompt_ignores_focus(messages, focus=None):
    """Wrong: the focus line is dropped."""
    return with_summary_prompt(messages)


def prompt_mutates(messages, focus=None):
    """Wrong: appends to the caller's last message."""
    out = with_summary_prompt(messages, focus)
    if messages[-1]["role"] == "user" and isinstance(messages[-1]["content"], list):
        messages[-1]["content"].append(text("x"))
    return out


def strip_greedy(answer):
    """Wrong: one greedy match swallows the text between two analyses."""
    return re.sub(r"<analysis>.*</analysis>", "", answer, flags=re.DOTALL).strip()


def strip_only_first(answer):
    """Wrong: removes only the first analysis."""
    return re.sub(r"<analysis>.*?</analysis>", "", answer, count=1, flags=re.DOTALL).strip()


def strip_without_strip(answer):
    """Wrong: leaves the surrounding whitespace."""
    return re.sub(r"<analysis>.*?(</analysis>|$)", "", answer, flags=re.DOTALL)


def summary_keeping_tool_calls(content):
    """Wrong: a summary whose answer also calls a tool is accepted."""
    answer = "".join(b.get("text", "") for b in content if b.get("type") == "text")
    if not answer.strip():
        raise SummaryFailed("empty")
    return extract_summary(answer)


def summary_without_tags_accepted(content):
    """Wrong: any text counts as a summary."""
    if any(b.get("type") == "tool_use" for b in content):
        raise SummaryFailed("tool")
    answer = strip_analysis("".join(b.get("text", "") for b in content))
    if not answer:
        raise SummaryFailed("empty")
    found = re.search(r"<summary>(.*?)</summary>", answer, re.DOTALL)
    return found.group(1).strip() if found else answer


def summary_of_first_block_only(content):
    """Wrong: reads only the first text block."""
    return summary_from_blocks(content[:1])


CASES = [
    (
        checks.check_with_summary_prompt,
        with_summary_prompt,
        [prompt_always_new_message, prompt_first_in_last_message, prompt_ignores_focus, prompt_mutates],
    ),
    (checks.check_strip_analysis, strip_analysis, [strip_greedy, strip_only_first, strip_without_strip]),
    (
        checks.check_summary_from_blocks,
        summary_from_blocks,
        [summary_keeping_tool_calls, summary_without_tags_accepted, summary_of_first_block_only],
    ),
]


test_each_check_passes_the_package_and_fails_a_stub, test_each_check_rejects_known_wrong_answers = (
    check_tests(CASES)
)


def test_a_report_shows_as_a_table_in_a_notebook():
    html = checks.check_strip_analysis(strip_analysis)._repr_html_()
    assert "<table>" in html and "strip_analysis" in html
