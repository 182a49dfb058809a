"""The chapter 07 checks pass the package's functions, fail stubs, and reject known-wrong answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

from check_cases import check_tests

from compaction.core.failures import SummaryFailed
from compaction.core.messages import blocks, text
from compaction.core.models import DEFAULT_MODEL
from compaction.core.summary_prompt import SUMMARY_PROMPT, summary_prompt
from compaction.course.checks import summarize as checks
from compaction.layers.summarize import compact_history, extract_summary, strip_analysis, summary_from_blocks
from compaction.layers.summary_request import with_summary_prompt

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


# ------------------------------------------------------------ the chapter's summary layer

MODEL = DEFAULT_MODEL


def summary_joined_by_newlines(content):
    """Joins the text blocks with "\n": a summary split over two blocks reads back with a line break added."""
    if any(b.get("type") == "tool_use" for b in content):
        raise SummaryFailed("tool")
    joined = "\n".join(b["text"] for b in content if b.get("type") == "text")
    if not joined.strip():
        raise SummaryFailed("empty")
    return extract_summary(joined)


def package_layer(messages, *, client, transcript_dir, **options):
    """The package's layer, without restoration (chapter 08)."""
    return compact_history(messages, client=client, transcript_dir=transcript_dir, **options)


def _save(messages, directory):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"t{len(list(directory.iterdir())) + 1}.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def _ask(client, messages):
    answer = client.messages.create(
        model=MODEL, max_tokens=500, messages=with_summary_prompt(messages), tools=_tools(messages)
    )
    return "".join(b.text for b in answer.content if b.type == "text")


def _tools(messages):
    from compaction.agent.tools import TOOL_DEFINITIONS

    return TOOL_DEFINITIONS


def layer_written_differently(messages, *, client, transcript_dir, **options):
    """Right, another way: analysis stripped first, content as blocks, the path at the end."""
    path = _save(messages, transcript_dir)
    summary = extract_summary(_ask(client, messages))
    return [{"role": "user", "content": [text(summary), text(f"(transcript: {path.name})")]}]


def layer_transcript_after_the_call(messages, *, client, transcript_dir, **options):
    """Wrong: asks for the summary first, writes the transcript after."""
    said = _ask(client, messages)
    path = _save(messages, transcript_dir)
    return [{"role": "user", "content": f"{path}\n{extract_summary(said)}"}]


def layer_keeps_the_analysis(messages, *, client, transcript_dir, **options):
    """Wrong: the whole answer, analysis included, joins the list."""
    path = _save(messages, transcript_dir)
    return [{"role": "user", "content": f"{path}\n{_ask(client, messages)}"}]


def layer_without_the_path(messages, *, client, transcript_dir, **options):
    """Wrong: the transcript is written but the message does not say where."""
    _save(messages, transcript_dir)
    return [{"role": "user", "content": extract_summary(_ask(client, messages))}]


def layer_prompt_as_second_user_message(messages, *, client, transcript_dir, **options):
    """Wrong: the prompt as a new user message after tool results (two user messages in a row)."""
    path = _save(messages, transcript_dir)
    request = [*messages, {"role": "user", "content": SUMMARY_PROMPT}]
    said = "".join(
        b.text
        for b in client.messages.create(
            model=MODEL, max_tokens=500, messages=request, tools=_tools(messages)
        ).content
        if b.type == "text"
    )
    return [{"role": "user", "content": f"{path}\n{extract_summary(said)}"}]


def layer_keeps_the_tail(messages, *, client, transcript_dir, **options):
    """Wrong: returns the summary followed by the last message."""
    return [*layer_written_differently(messages, client=client, transcript_dir=transcript_dir), messages[-1]]


# ------------------------------------------------------------ right answers written differently


def strip_by_partition(answer):
    """Right, another way: a loop of str.partition instead of a regular expression."""
    kept, rest = [], answer
    while "<analysis>" in rest:
        before, _, after = rest.partition("<analysis>")
        kept.append(before)
        _, closed, rest = after.partition("</analysis>")
        rest = rest if closed else ""
    return ("".join(kept) + rest).strip()


def summary_by_kinds(content):
    """Right, another way: the set of block types first."""
    if "tool_use" in {b.get("type") for b in content}:
        raise SummaryFailed("tool")
    joined = "".join(b["text"] for b in content if b.get("type") == "text")
    if joined.strip() == "":
        raise SummaryFailed("no text")
    return extract_summary(joined)


def test_right_answers_written_differently_pass():
    assert checks.check_strip_analysis(strip_by_partition).passed
    assert checks.check_summary_from_blocks(summary_by_kinds).passed
    assert checks.check_summary_layer(layer_written_differently).passed


def test_a_late_transcript_is_named_as_the_fault():
    report = checks.check_summary_layer(layer_transcript_after_the_call)
    assert [r.name for r in report.failures] == [
        "writes the whole list to a transcript, before the summary call"
    ]
    assert "before the transcript was on disk" in report.failures[0].detail


CASES = [
    (
        checks.check_summary_layer,
        package_layer,
        [
            layer_transcript_after_the_call,
            layer_keeps_the_analysis,
            layer_without_the_path,
            layer_prompt_as_second_user_message,
            layer_keeps_the_tail,
        ],
    ),
    (
        checks.check_with_summary_prompt,
        with_summary_prompt,
        [prompt_always_new_message, prompt_first_in_last_message, prompt_ignores_focus, prompt_mutates],
    ),
    (checks.check_strip_analysis, strip_analysis, [strip_greedy, strip_only_first, strip_without_strip]),
    (
        checks.check_summary_from_blocks,
        summary_from_blocks,
        [
            summary_keeping_tool_calls,
            summary_without_tags_accepted,
            summary_of_first_block_only,
            summary_joined_by_newlines,
        ],
    ),
]


test_each_check_passes_the_package_and_fails_a_stub, test_each_check_rejects_known_wrong_answers = (
    check_tests(CASES)
)


def test_a_report_shows_as_a_table_in_a_notebook():
    html = checks.check_strip_analysis(strip_analysis)._repr_html_()
    assert "<table>" in html and "strip_analysis" in html


def test_a_failing_strip_shows_the_answer_it_was_given():
    report = checks.check_strip_analysis(lambda answer: "")
    row = next(r for r in report.failures if r.name == "no analysis at all")
    assert "'<summary>no analysis here</summary>'" in row.detail


def test_a_failing_summary_from_blocks_shows_the_content_it_was_given():
    report = checks.check_summary_from_blocks(lambda content: "")
    row = next(r for r in report.failures if r.name == "text without summary tags")
    assert "Sure, here is what we did." in row.detail


def test_a_newline_join_is_told_how_blocks_join():
    rows = checks.check_summary_from_blocks(summary_joined_by_newlines).failures
    assert [r.name for r in rows] == ["a summary spread over two text blocks"]
    assert "join them with nothing between them" in rows[0].detail


def test_a_failing_row_shows_what_the_answer_returned_and_no_prefix_of_the_check():
    rows = {r.name: r.detail for r in checks.check_summary_from_blocks(summary_keeping_tool_calls).failures}
    detail = rows["a summary that also calls a tool"]
    assert "must raise SummaryFailed, but returned 's'" in detail
    assert "summary: " not in detail
    wrong = {r.name: r.detail for r in checks.check_summary_from_blocks(lambda content: "x").failures}
    assert "got 'x', expected 'part one, part two'" in wrong["a summary spread over two text blocks"]


def test_an_answer_that_returns_no_string_is_told_so():
    rows = checks.check_summary_from_blocks(lambda content: None).failures
    assert rows and all("returned NoneType, expected a string" in r.detail for r in rows)
