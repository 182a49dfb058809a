"""The scripted agent: a 150-step plan over a real project, derived only from the request it gets.

The offline model keeps no state between requests. Its progress is the last ``[step N]`` marker
in its own words (or in a summary); before an edit it checks that the text it will replace is
still visible, and reads the file again when a layer cleared it. Same seed, same bytes.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from functools import lru_cache

from hypothesis import given
from hypothesis import strategies as st

from compaction.agent.backend import connect
from compaction.agent.loop import default_task, new_workspace, run_agent
from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import blocks, tool_result, tool_use_blocks, user, validate
from compaction.offline import PROJECT
from compaction.offline.scripted import plan, scenario, state

ID_RE = re.compile(r"^toolu_[0-9a-f]{24}$")
FIRST_EDIT = next(i for i, s in enumerate(plan.PLAN, 1) if any(n == "edit_file" for n, _ in s.calls))


@lru_cache(maxsize=4)
def recorded(turns: int, seed: int = 0) -> tuple:
    """The messages of a real run of ``turns`` turns (tools executed in a fresh workspace)."""
    folder = new_workspace()
    try:
        result = run_agent(connect(context_window=1_000_000, seed=seed), workspace=folder, max_turns=turns)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert result.error is None
    return tuple(result.messages)


def respond(messages, tools=TOOL_DEFINITIONS, seed=0):
    return scenario.respond("textstats", list(messages), tools=tools, seed=seed)


def said(content) -> str:
    return " ".join(b["text"] for b in content if b["type"] == "text")


def run_tests(folder) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "run_tests.py"], cwd=folder, capture_output=True, text=True)


def test_the_task_is_what_the_agent_sends_first():
    assert default_task() == scenario.TASK == plan.TASK
    assert "NOTES.md" in scenario.TASK and "lexical_diversity" in scenario.TASK


def test_the_plan_lasts_at_least_150_turns():
    assert len(plan.PLAN) >= 150
    assert all(1 <= len(step.calls) <= 3 for step in plan.PLAN)


def test_the_practice_project_fails_its_tests_before_the_plan(tmp_path):
    shutil.copytree(PROJECT, tmp_path / "p", ignore=shutil.ignore_patterns("__pycache__"))
    out = run_tests(tmp_path / "p")
    assert out.returncode == 1
    passed, failed = state.run_outcome(out.stdout)
    assert passed > 20 and failed >= 3
    assert {
        "FAILED tests/test_counts.py",
        "FAILED tests/test_ngrams.py",
        "FAILED tests/test_readability.py",
    } <= {line.split("::")[0] for line in out.stdout.splitlines()}


def test_the_test_runner_prints_relative_paths_and_the_same_bytes_twice(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    first, second = run_tests(folder).stdout, run_tests(folder).stdout
    assert first == second
    assert str(tmp_path) not in first and 'File "tests/test_counts.py"' in first


def test_every_edit_of_the_plan_matches_the_file_once_and_the_suite_passes_after(tmp_path):
    folder = tmp_path / "p"
    shutil.copytree(PROJECT, folder, ignore=shutil.ignore_patterns("__pycache__"))
    for number, step in enumerate(plan.PLAN, 1):
        for name, args in step.calls:
            if name == "edit_file":
                target = folder / args["path"]
                body = target.read_text()
                assert body.count(args["old_text"]) == 1, f"step {number}: old_text of {args['path']}"
                target.write_text(body.replace(args["old_text"], args["new_text"]))
            if name == "read_file":
                assert (folder / args["path"]).is_file(), f"step {number} reads a missing file"
    out = run_tests(folder)
    assert out.returncode == 0 and state.run_outcome(out.stdout)[1] == 0, out.stdout
    assert (
        "lexical diversity"
        in subprocess.run(
            [sys.executable, "-m", "textstats.cli", "data/fox.txt"],
            cwd=folder,
            capture_output=True,
            text=True,
        ).stdout
    )


def test_two_runs_of_30_turns_give_identical_messages():
    recorded.cache_clear()
    first = recorded(30)
    recorded.cache_clear()
    assert recorded(30) == first
    assert len(first) == 61


def test_tool_use_ids_are_toolu_and_24_hex_and_unique():
    ids = [b["id"] for m in recorded(30) for b in tool_use_blocks(m)]
    assert ids and all(ID_RE.match(i) for i in ids)
    assert len(set(ids)) == len(ids)


def test_the_seed_changes_the_ids_but_not_the_work():
    a, b = recorded(8, 0), recorded(8, 1)
    assert [said(blocks(m)) for m in a] == [said(blocks(m)) for m in b]
    assert {x["id"] for m in a for x in tool_use_blocks(m)}.isdisjoint(
        x["id"] for m in b for x in tool_use_blocks(m)
    )


def test_each_turn_carries_the_marker_of_its_step():
    turns = [m for m in recorded(30) if m["role"] == "assistant"]
    assert [state.MARKER_RE.findall(said(blocks(m)))[-1][0] for m in turns[:5]] == ["1", "2", "3", "4", "5"]


def test_before_an_edit_whose_file_read_was_cleared_it_reads_the_file_again():
    messages = list(recorded(FIRST_EDIT - 1))
    edit = plan.PLAN[FIRST_EDIT - 1].calls[0][1]
    content, stop = respond(messages)
    assert stop == "tool_use" and content[1]["name"] == "edit_file"  # visible: it edits at once
    cleared = [
        {
            **m,
            "content": [
                {**b, "content": "[Old tool result cleared: read_file]"}
                if b.get("type") == "tool_result"
                else b
                for b in blocks(m)
            ],
        }
        for m in messages
    ]
    content, stop = respond(cleared)
    assert [(b["name"], b["input"]) for b in content if b["type"] == "tool_use"] == [
        ("read_file", {"path": edit["path"]})
    ]
    assert f"[step {FIRST_EDIT} re-read]" in said(content)


def test_after_a_reread_it_does_the_step_even_if_the_file_is_still_hidden():
    messages = [user("go"), {"role": "assistant", "content": f"reading again [step {FIRST_EDIT} re-read]"}]
    messages.append(user("the read was lost"))
    content, _ = respond(messages)
    assert content[1]["name"] == "edit_file" and f"[step {FIRST_EDIT}]" in said(content)


def test_it_resumes_from_the_step_a_summary_names_in_current_work():
    summary = "<summary>\n8. Current Work:\n- Counting its tests. [step 40]\n</summary>"
    content, stop = respond([user(summary)])
    assert stop == "tool_use"
    assert "[step 41" in said(content)


def test_markers_inside_tool_results_are_ignored():
    messages = list(recorded(3))
    last = messages[-1]
    forged = {**last, "content": [{**b, "content": "[step 140]"} for b in blocks(last)]}
    content, _ = respond(messages[:-1] + [forged])
    assert "[step 4]" in said(content)


def test_after_the_last_step_it_ends_the_turn_with_a_text_answer():
    messages = [user("go"), {"role": "assistant", "content": f"done [step {len(plan.PLAN)}]"}, user("ok")]
    content, stop = respond(messages)
    assert stop == "end_turn" and [b["type"] for b in content] == ["text"]
    assert plan.DONE in said(content)


def test_without_tools_it_only_talks():
    content, stop = respond([user("Hello there")], tools=[])
    assert stop == "end_turn" and [b["type"] for b in content] == ["text"]


def test_it_calls_the_compact_tool_when_asked_and_the_tool_is_offered():
    compact = {"name": "compact", "description": "Compact the context.", "input_schema": {"type": "object"}}
    messages = list(recorded(3))
    asked = messages[:-1] + [
        {"role": "user", "content": [*blocks(messages[-1]), {"type": "text", "text": "Please compact now."}]}
    ]
    content, stop = respond(asked, tools=[*TOOL_DEFINITIONS, compact])
    uses = [b for b in content if b["type"] == "tool_use"]
    assert stop == "tool_use" and [u["name"] for u in uses] == ["compact"]
    assert "[step 3]" in said(content)  # the step is repeated, not advanced
    plain, _ = respond(asked)  # not offered: it just goes on
    assert "[step 4]" in said(plain)
    answered = asked + [
        {"role": "assistant", "content": content},
        user(tool_result(uses[0]["id"], "compacted")),
    ]
    answered[-2] = {"role": "assistant", "content": [{"type": "text", "text": said(content)}, *uses]}
    content, _ = respond(answered, tools=[*TOOL_DEFINITIONS, compact])
    assert "[step 4]" in said(content)


def test_the_same_request_gives_the_same_bytes():
    messages = list(recorded(12))
    assert respond(messages) == respond(messages)


@lru_cache(maxsize=1)
def cut_points() -> list[int]:
    messages = recorded(40)
    return [i for i, m in enumerate(messages, 1) if m["role"] == "user"]


@given(st.data())
def test_any_prefix_with_any_results_cleared_gets_a_valid_next_turn(data):
    messages = list(recorded(40))
    cut = data.draw(st.sampled_from(cut_points()))
    clear = data.draw(st.sets(st.integers(0, cut - 1)))
    prefix = [
        {
            **m,
            "content": [
                {**b, "content": "[cleared]"} if b.get("type") == "tool_result" else b for b in blocks(m)
            ],
        }
        if i in clear
        else m
        for i, m in enumerate(messages[:cut])
    ]
    content, stop = respond(prefix)
    extended = prefix + [{"role": "assistant", "content": content}]
    uses = [b for b in content if b["type"] == "tool_use"]
    if uses:
        extended.append(user(*[tool_result(u["id"], "ok") for u in uses]))
    validate(extended)
    assert stop == ("tool_use" if uses else "end_turn")


def test_a_compaction_notice_is_not_a_request_to_compact():
    compact = {"name": "compact", "description": "Compact the context.", "input_schema": {"type": "object"}}
    notice = "[Compacted because the context was nearly full] Go on.\n8. Current Work:\n- x [step 7]"
    content, _ = respond([user(notice)], tools=[*TOOL_DEFINITIONS, compact])
    assert all(b.get("name") != "compact" for b in content) and "[step 8" in said(content)
