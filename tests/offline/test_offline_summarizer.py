"""The offline summarizer: nine extractive sections, filled from what the conversation really holds.

A summary request is the conversation plus the course's summary prompt as the last text block.
The answer never calls a tool; its files come from the tool calls made, its errors from the
results that failed, and only its Current Work quotes the ``[step N]`` marker to resume from.
"""

from __future__ import annotations

import itertools
import re
import shutil
from functools import lru_cache

from hypothesis import given
from hypothesis import strategies as st

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import (
    assistant,
    blocks,
    text,
    tool_result,
    tool_use,
    tool_use_blocks,
    user,
    validate,
)
from compaction.core.summary_prompt import NO_TOOLS_HEAD, SECTIONS, SUMMARY_PROMPT, is_summary_request
from compaction.core.tokens import count_text
from compaction.layers.summarize import compact_history
from compaction.offline.scripted import plan, scenario, state
from compaction.offline.scripted.summarizer import previous_sections, rarity, summarize


@lru_cache(maxsize=2)
def session(turns: int = 40) -> tuple:
    folder = new_workspace()
    try:
        result = run_agent(connect(context_window=1_000_000), workspace=folder, max_turns=turns)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return tuple(result.messages)


def request(messages) -> list:
    return (
        [*messages, user(SUMMARY_PROMPT)]
        if messages[-1]["role"] == "assistant"
        else [
            *messages[:-1],
            {"role": "user", "content": [*blocks(messages[-1]), text(SUMMARY_PROMPT)]},
        ]
    )


def section(answer: str, name: str) -> str:
    return previous_sections(answer)[name] and "\n".join(previous_sections(answer)[name])


def test_a_summary_request_is_recognised_by_the_no_tools_head_in_the_last_block():
    messages = list(session())
    assert is_summary_request(request(messages))
    assert not is_summary_request(messages)
    prompt_first = {"role": "user", "content": [text(SUMMARY_PROMPT), *blocks(messages[-1])]}
    assert not is_summary_request([*messages[:-1], prompt_first])
    assert not is_summary_request([user("hi"), assistant(NO_TOOLS_HEAD)])


def test_through_the_sdk_the_answer_is_text_only_and_ends_the_turn():
    response = connect().messages.create(
        model="m", max_tokens=4000, messages=request(list(session())), tools=TOOL_DEFINITIONS
    )
    assert response.stop_reason == "end_turn"
    assert [b.type for b in response.content] == ["text"]


def test_the_answer_is_an_analysis_then_the_nine_sections_in_order():
    answer = summarize(request(list(session())))
    assert answer.startswith("<analysis>") and answer.index("</analysis>") < answer.index("<summary>")
    assert answer.rstrip().endswith("</summary>")
    headers = re.findall(r"^(\d)\. (.+):$", answer, re.MULTILINE)
    headers = [h for h in headers if h[1] in SECTIONS]
    assert headers == [(str(i), name) for i, name in enumerate(SECTIONS, 1)]


def test_the_primary_request_is_the_first_user_message():
    answer = summarize(request(list(session())))
    assert section(answer, "Primary Request and Intent") == scenario.TASK


def test_files_are_exactly_the_paths_of_the_file_tool_calls_made():
    messages = list(session())
    used = {
        b["input"]["path"]
        for m in messages
        for b in tool_use_blocks(m)
        if b["name"] in ("read_file", "edit_file", "write_file")
    }
    listed = set(
        re.findall(r"^- (\S+):$", section(summarize(request(messages)), "Files and Code Sections"), re.M)
    )
    assert listed == used
    assert "textstats/counts.py" in used


def test_edits_are_shown_with_what_they_changed():
    files = section(summarize(request(list(session()))), "Files and Code Sections")
    assert "edited: + `key=lambda pair: (-pair[1], pair[0]))`" in files


def test_errors_name_the_failing_tests_and_the_edits_that_followed():
    errors = section(summarize(request(list(session()))), "Errors and Fixes")
    assert "tests/test_counts.py::test_top_words_breaks_ties_alphabetically" in errors
    assert "AssertionError: [('pear', 2), ('apple', 2), ('fig', 2)]" in errors
    assert "; edited textstats/counts.py; edited textstats/ngrams.py" in errors
    assert "then `python run_tests.py` passed (61 passed, 0 failed)" in errors


def test_a_failed_tool_call_is_an_error_with_its_message():
    messages = [user("look"), assistant(tool_use("toolu_x", "read_file", {"path": "nope.py"}))]
    messages.append(user(tool_result("toolu_x", "Error: nope.py: no such file", is_error=True)))
    errors = section(summarize(request(messages)), "Errors and Fixes")
    assert "read_file nope.py failed: Error: nope.py: no such file" in errors


def test_every_user_message_is_quoted_and_harness_notes_are_not():
    messages = [
        user("First, do this."),
        assistant("ok [step 1]"),
        user("[snip] 10 messages removed"),
        assistant("ok"),
    ]
    messages += [user("Second: and that too.")]
    quoted = section(summarize(request(messages)), "All User Messages")
    assert quoted.splitlines() == ["- (the request in section 1, word for word)", "- Second: and that too."]
    assert section(summarize(request(messages)), "Primary Request and Intent") == "First, do this."


def test_current_work_alone_quotes_the_last_marker():
    messages = list(session())
    answer = summarize(request(messages))
    last = state.marker(*state.last_marker(messages))
    assert last in section(answer, "Current Work")
    assert [m.group(0) for m in state.MARKER_RE.finditer(answer)] == [last]


def test_pending_tasks_are_the_work_items_not_yet_done():
    pending = section(summarize(request(list(session()))), "Pending Tasks")
    assert "- Review textstats/cli.py" in pending and "- Final check" in pending
    assert "Explore the project" not in pending and "Fix the failing tests: top_words" not in pending


def test_the_next_step_follows_the_current_work():
    messages = list(session())
    step = state.last_marker(messages)[0] + 1
    nxt = section(summarize(request(messages)), "Optional Next Step")
    assert nxt == f"- step {step}: {plan.PLAN[step - 1].say}"


def test_the_same_conversation_gives_the_same_summary():
    messages = request(list(session()))
    assert summarize(messages) == summarize(list(messages))


def test_how_rare_a_sentence_is_does_not_depend_on_the_order_of_its_words():
    # set order follows string hashes, which differ between processes: a plain float sum over the
    # set gave three values for these words, so a tie between equally rare sentences fell either way
    # and a notebook's summary changed between runs
    frequency = {"writing": 3, "the": 7, "review": 11, "line": 13, "for": 6, "notes.md": 1}
    orders = list(itertools.permutations(frequency))
    assert len({sum(1 / frequency[w] for w in order) for order in orders}) > 1  # what went wrong
    assert len({rarity(order, frequency) for order in orders}) == 1
    assert rarity(["the", "review"], frequency) == (1 / 7 + 1 / 11) / 2


def test_a_previous_summary_is_carried_into_the_next_one():
    first = summarize(request(list(session())))
    content, _ = scenario.respond("textstats", [user(first)], tools=TOOL_DEFINITIONS)
    later = [user(first), {"role": "assistant", "content": content}]
    later.append(user(*[tool_result(b["id"], "ok") for b in content if b["type"] == "tool_use"]))
    second = summarize(request(later))
    assert section(second, "Primary Request and Intent") == scenario.TASK
    assert "textstats/counts.py" in section(second, "Files and Code Sections")
    assert "test_top_words_breaks_ties_alphabetically" in section(second, "Errors and Fixes")
    assert section(second, "All User Messages") == section(first, "All User Messages")
    assert state.marker(*state.last_marker(later)) in section(second, "Current Work")


def test_compact_history_with_the_offline_model_lets_the_agent_carry_on(tmp_path):
    messages = list(session())
    step = state.last_marker(messages)[0]
    compacted = compact_history(messages, client=connect(), transcript_dir=tmp_path)
    validate(compacted)
    assert len(compacted) == 1 and f"[step {step}]" in blocks(compacted[0])[0]["text"]
    content, stop = scenario.respond("textstats", compacted, tools=TOOL_DEFINITIONS)
    assert stop == "tool_use" and re.search(rf"\[step {step + 1}( re-read)?\]", content[0]["text"])


@lru_cache(maxsize=1)
def cut_points() -> list[int]:
    return [i for i, m in enumerate(session(), 1) if m["role"] == "user"]


@given(st.data())
def test_any_prefix_summarizes_to_nine_sections_and_resumes_where_it_stopped(data):
    prefix = list(session()[: data.draw(st.sampled_from(cut_points()))])
    answer = summarize(request(prefix))
    assert list(previous_sections(answer)) == list(SECTIONS)
    last = state.last_marker(prefix)
    markers = [m.group(0) for m in state.MARKER_RE.finditer(answer)]
    assert markers == ([state.marker(*last)] if last else [])
    assert state.last_marker([user(answer)]) == last


FAILING_RUN = """FAILED tests/test_calc.py::test_add
  File "tests/test_calc.py", line 4, in test_add
    assert add(2, 2) == 4
AssertionError: 5

1 passed, 1 failed

[exit code 1]"""


CALC = "def add(a, b):\n    return a + b + 1\n"


def created_failed_fixed() -> list:
    """The user asks; the agent creates calc.py, a test run fails, it fixes calc.py, the run passes."""
    turns = [
        ("Creating calc.py.", "write_file", {"path": "calc.py", "content": CALC}),
        ("Running the tests.", "bash", {"command": "python run_tests.py"}),
        ("The test fails because add returns one too many. Fixing calc.py.", "edit_file",
         {"path": "calc.py", "old_text": "a + b + 1", "new_text": "a + b"}),
        ("Running the tests again.", "bash", {"command": "python run_tests.py"}),
    ]  # fmt: skip
    outputs = ["wrote calc.py", FAILING_RUN, "edited calc.py", "2 passed, 0 failed"]
    messages = [user("Write calc.py with add(a, b), and never edit the tests.")]
    for k, ((said, name, args), output) in enumerate(zip(turns, outputs, strict=True)):
        messages.append(assistant(said, tool_use(f"toolu_{k}", name, args)))
        messages.append(user(tool_result(f"toolu_{k}", output, is_error=output is FAILING_RUN)))
    messages.append(assistant("Both tests pass now."))
    return messages


def test_every_section_is_filled_from_a_history_with_a_created_file_a_failure_and_its_fix():
    answer = summarize(request(created_failed_fixed()))
    got = previous_sections(answer)
    assert got["Primary Request and Intent"] == ["Write calc.py with add(a, b), and never edit the tests."]
    assert got["Key Technical Concepts"] == [
        "- `python run_tests.py` -> 2 passed, 0 failed",
        "- `python run_tests.py` -> exit 1; 1 passed, 1 failed; "
        "tests/test_calc.py::test_add: AssertionError: 5",
    ]
    assert got["Files and Code Sections"] == [
        "- calc.py:",
        "  - created (2 lines), starting `def add(a, b):`",
        "  - edited: + `a + b`",
    ]
    assert got["Errors and Fixes"] == [
        "- `python run_tests.py` failed (1 passed, 1 failed): "
        "tests/test_calc.py::test_add: AssertionError: 5; edited calc.py; "
        "then `python run_tests.py` passed (2 passed, 0 failed)"
    ]
    solving = got["Problem Solving"]
    assert "- The test fails because add returns one too many." in solving  # a cause, whole
    assert "- Both tests pass now." in solving
    assert got["All User Messages"] == ["- (the request in section 1, word for word)"]
    assert got["Current Work"] == ["- Both tests pass now."]
    assert got["Pending Tasks"] and got["Optional Next Step"]


def test_under_a_small_budget_causes_stay_and_narration_goes():
    messages = created_failed_fixed()
    answer = summarize(request(messages), max_tokens=240)  # of 298 whole; no analysis when shortened
    solving = previous_sections(answer)["Problem Solving"]
    assert "- The test fails because add returns one too many." in solving
    assert "- Creating calc.py." not in solving
    assert previous_sections(answer)["Current Work"] == ["- Both tests pass now."]  # carrying on comes first


def test_sentences_are_never_cut():
    answer = summarize(request(list(session())), max_tokens=600)
    for line in previous_sections(answer)["Problem Solving"]:
        assert not line.endswith("...")


def test_a_summary_that_would_not_fit_the_window_is_shortened_to_fit_keeping_its_sections():
    full = summarize(request(list(session())))
    tokens = count_text(full, "tiktoken")
    short_answer = summarize(request(list(session())), limit=tokens // 2)
    assert count_text(short_answer, "tiktoken") <= tokens // 2 < tokens
    assert "<analysis>" not in short_answer and short_answer.rstrip().endswith("</summary>")
    assert section(short_answer, "Current Work") == section(full, "Current Work")  # the marker stays
    assert list(previous_sections(short_answer)) == list(SECTIONS)
    assert summarize(request(list(session())), limit=tokens) == full  # a summary that fits is left whole


def test_the_smaller_of_max_tokens_and_the_room_left_bounds_the_answer():
    full = count_text(summarize(request(list(session()))), "tiktoken")
    for max_tokens, room in ((full // 2, full), (full, full // 3), (full // 4, full // 2)):
        answer = summarize(request(list(session())), max_tokens=max_tokens, limit=room)
        assert count_text(answer, "tiktoken") <= min(max_tokens, room) < full
        assert list(previous_sections(answer)) == list(SECTIONS)


def test_in_a_room_too_small_for_any_note_every_heading_and_current_work_stay():
    full = summarize(request(list(session())))
    current = section(full, "Current Work")
    room = count_text(current, "tiktoken") + 9 * 8 + 20  # Current Work, the nine headings and the tags
    answer = summarize(request(list(session())), limit=room)
    assert count_text(answer, "tiktoken") <= room and answer.rstrip().endswith("</summary>")
    assert list(previous_sections(answer)) == list(SECTIONS)
    assert section(answer, "Current Work") == current


MINI = "<returncode>{code}</returncode>\n<output>\n{text}\n</output>"
TRACE = 'Traceback (most recent call last):\n  File "calc.py", line 2\nTypeError: add() got 3 arguments'
SMALLEST = 256  # the smallest answer the pipeline asks for (compaction.layers.summarize.summary_tokens)


def bash_only(request: str = "Fix add in calc.py.", scripts: int = 0) -> list:
    """A mini-swe-agent-style session: every step one bash call, its output wrapped in tags."""
    calls = [
        ("cat > repro.py << 'EOF'\nfrom calc import add\nprint(add(2, 2))\nEOF", MINI.format(code=0, text=""))
    ]
    calls += [(f"echo 'print({k})' > probe_{k}.py", MINI.format(code=0, text="")) for k in range(scripts)]
    calls += [
        ("python repro.py", MINI.format(code=1, text=TRACE)),
        ("sed -i 's/def add(a, b, c)/def add(a, b)/' calc.py", MINI.format(code=0, text="")),
        ("python repro.py", MINI.format(code=0, text="4")),
    ]
    messages = [user(request)]
    for k, (command, output) in enumerate(calls):
        messages += [
            assistant(f"Step {k}.", tool_use(f"t{k}", "bash", {"command": command})),
            user(tool_result(f"t{k}", output)),
        ]
    validate(messages)
    return messages


def test_a_bash_only_session_fills_the_files_and_errors_sections():
    sections = previous_sections(summarize(request(bash_only())))
    files = sections["Files and Code Sections"]
    assert files[:2] == ["- repro.py:", "  - created (2 lines), starting `from calc import add`"]
    assert "  - edited: sed `s/def add(a, b, c)/def add(a, b)/`" in files
    assert sections["Errors and Fixes"] == [
        "- `python repro.py` failed: TypeError: add() got 3 arguments; edited calc.py; "
        "then `python repro.py` passed"
    ]


def test_a_created_file_is_listed_at_the_smallest_budget():
    answer = summarize(request(bash_only()), max_tokens=SMALLEST)
    files = previous_sections(answer)["Files and Code Sections"]
    assert "- repro.py:" in files and "- calc.py:" in files
    assert count_text(answer, "tiktoken") <= SMALLEST


def test_many_created_files_are_listed_on_one_line_per_kind_and_carried_to_the_next_summary():
    first = summarize(request(bash_only(scripts=40)), max_tokens=600)
    files = previous_sections(first)["Files and Code Sections"]
    assert files[0].startswith("- created: repro.py, probe_0.py, probe_1.py") and "probe_39.py" in files[0]
    assert files[1] == "- edited: calc.py"
    later = [user(first.split("<summary>")[1]), *bash_only()[1:3]]  # the summary, then one more call
    files = previous_sections(summarize(request(later), max_tokens=600))["Files and Code Sections"]
    assert "probe_39.py" in "\n".join(files) and "calc.py" in "\n".join(files)


def test_a_long_first_message_is_cut_to_its_share_and_the_findings_stay():
    request_text = "Fix add in calc.py.\n" + "\n".join(
        f"Background line {k} about the project." for k in range(150)
    )
    answer = summarize(request(bash_only(request_text)), max_tokens=800)
    sections = previous_sections(answer)
    asked = sections["Primary Request and Intent"]
    assert asked[0] == "Fix add in calc.py." and asked[-1].startswith("- (more left out")
    assert count_text("\n".join(asked), "tiktoken") <= 800 // 4 + 40
    assert sections["Errors and Fixes"][0].startswith("- `python repro.py` failed: TypeError")


def test_the_files_listed_at_any_budget_never_push_the_answer_over_its_limit():
    messages = bash_only(scripts=60)
    for limit in (150, 200, SMALLEST):
        answer = summarize(request(messages), max_tokens=SMALLEST, limit=limit)
        assert count_text(answer, "tiktoken") <= limit
    files = previous_sections(summarize(request(messages), max_tokens=SMALLEST))["Files and Code Sections"]
    assert files[0].startswith("- created: repro.py, probe_0.py") and files[0].endswith(" more)")


def agent_said(*texts: str) -> list:
    """A session where the agent says each text in turn, each with one quiet bash call."""
    messages = [user("Find out why the parser drops the header.")]
    for k, said in enumerate(texts):
        messages += [
            assistant(said, tool_use(f"t{k}", "bash", {"command": f"true {k}"})),
            user(tool_result(f"t{k}", "")),
        ]
    messages.append(assistant("Done."))
    return messages


def test_a_sentence_that_states_a_result_stays_when_rarer_narration_goes():
    narration = [
        "Reading lexer internals.",
        "Scanning quoting rules.",
        "Browsing escapes table.",
        "Tracing tokens flow.",
    ]
    messages = agent_said(*narration[:2], "The parser works without the header.", *narration[2:])
    messages[-1] = assistant("The parser and the header come next.")  # its words make the result's common
    whole = previous_sections(summarize(request(messages)))["Problem Solving"]
    assert all(f"- {line}" in whole for line in narration)  # unbounded, every sentence is there
    solving = previous_sections(summarize(request(messages), max_tokens=170))["Problem Solving"]
    assert "- The parser works without the header." in solving  # a result: what worked, though less rare
    assert "- Tracing tokens flow." not in solving  # narration goes first


def test_a_fenced_command_in_the_agents_text_is_not_a_finding():
    said = (
        "The server echoes the input back.\n```\ncurl -d 'name=test' http://host:8000/cgi-bin/forms.pl\n```"
    )
    solving = previous_sections(summarize(request(agent_said(said))))["Problem Solving"]
    assert "- The server echoes the input back." in solving
    assert not any("curl" in line or "```" in line for line in solving)


def test_sentences_glued_without_a_space_are_two_findings_and_a_dotted_name_is_not_split():
    said = "The upload printed the file.Now, we read another.I will stop. Set ds.Rows = 5 before the call."
    solving = previous_sections(summarize(request(agent_said(said))))["Problem Solving"]
    assert "- The upload printed the file." in solving and "- Now, we read another." in solving
    assert "- I will stop." in solving
    assert "- Set ds.Rows = 5 before the call." in solving
