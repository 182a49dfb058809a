"""The scripted agent with the memory tool: it looks first, notes as it works, reads back what was taken.

Runs go through the real loop and the real handler (``MemoryFolder``), and once through the SDK's
own ``BetaLocalFilesystemMemoryTool``. Every memory command the agent sends is checked against the
SDK's ``BetaMemoryTool20250818Command``; without the tool offered the agent's turns are the same bytes.
"""

from __future__ import annotations

import json

import pydantic
import pytest
from anthropic.tools import BetaLocalFilesystemMemoryTool
from anthropic.types.beta import BetaMemoryTool20250818Command

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent, sample_session
from compaction.agent.memory import MEMORY_TOOL, MemoryFolder
from compaction.agent.tools import TOOL_DEFINITIONS
from compaction.core.messages import text_of, tool_result_blocks, tool_use_blocks, user
from compaction.layers.micro import micro_compact
from compaction.offline.scripted import memory, plan, scenario, state
from compaction.pipeline.hooks import Hooks

BIG = 1_000_000
COMMANDS = pydantic.TypeAdapter(BetaMemoryTool20250818Command)


def run(tmp_path, turns, *, handler=None, prepare=None, task=None, workspace=None, name="ws"):
    """A session of the offline agent with the memory tool; (result, handler)."""
    handler = handler or MemoryFolder(tmp_path / "memory")
    result = run_agent(
        connect("offline", context_window=BIG),
        workspace=workspace or new_workspace(tmp_path / name),
        task=task,
        max_turns=turns,
        hooks=Hooks(prepare=prepare),
        tools=[*TOOL_DEFINITIONS, handler],
    )
    assert result.error is None, result.error
    return result, handler


def memory_calls(messages):
    return [u for m in messages for u in tool_use_blocks(m) if u["name"] == "memory"]


def answers(messages):
    return {b["tool_use_id"]: b for m in messages for b in tool_result_blocks(m)}


def notes(handler):
    return (handler.root / "task.md").read_text(), (handler.root / "findings.md").read_text()


# ------------------------------------------------------------ without the tool, nothing changes


def test_without_the_memory_tool_each_turn_is_the_scenarios_own():
    session = sample_session(30)
    for k in range(1, len(session), 2):  # each request of the session, as the server would get it
        before = session[:k]
        assert scenario.respond("textstats", before, tools=TOOL_DEFINITIONS) == scenario.textstats(
            before, tools=TOOL_DEFINITIONS
        )
    assert not memory_calls(session)


def test_the_tool_is_recognised_by_its_type_not_by_its_name():
    assert memory.offered([*TOOL_DEFINITIONS, MEMORY_TOOL])
    assert not memory.offered([*TOOL_DEFINITIONS, {"name": "memory", "description": "x", "input_schema": {}}])


# ------------------------------------------------------------ it looks first, then keeps notes


def test_it_views_its_memory_directory_before_anything_else(tmp_path):
    result, _ = run(tmp_path, 2)
    first = result.messages[1]
    assert [u["input"] for u in tool_use_blocks(first)] == [{"command": "view", "path": "/memories"}]
    assert state.last_marker([first]) is None  # a look, not a step of the plan
    second = tool_use_blocks(result.messages[3])
    assert [u["input"]["command"] for u in second if u["name"] == "memory"] == ["create", "create"]
    assert state.last_marker(result.messages) == (1, False)  # then step 1, as without memory


def test_its_task_note_holds_the_users_request_word_for_word(tmp_path):
    _, handler = run(tmp_path, 3)
    task, _ = notes(handler)
    assert plan.TASK in task and plan.CONSTRAINT in task


def test_every_memory_command_is_valid_for_the_sdk_and_succeeds(tmp_path):
    result, _ = run(tmp_path, 60)
    calls = memory_calls(result.messages)
    assert {c["input"]["command"] for c in calls} == {"view", "create", "insert", "str_replace"}
    for call in calls:
        COMMANDS.validate_python(call["input"])  # raises on an input the SDK's types refuse
    results = answers(result.messages)
    assert not [c["input"] for c in calls if results[c["id"]].get("is_error")]


def test_it_notes_what_a_rerun_would_not_give_back_once_each_and_newest_first(tmp_path):
    _, handler = run(tmp_path, 30)
    _, found = notes(handler)
    lines = found.splitlines()
    assert lines[0] == "# Findings (newest first)"
    first_run = [ln for ln in lines if "54 passed, 7 failed" in ln]
    assert len(first_run) == 1 and "AssertionError: [('pear', 2), ('apple', 2), ('fig', 2)]" in first_run[0]
    assert lines.index(first_run[0]) > lines.index(next(ln for ln in lines if "61 passed, 0 failed" in ln))
    why = next(ln for ln in lines if ln.startswith("- changed textstats/counts.py"))
    assert "ties keep the order of first appearance" in why
    assert not [ln for ln in lines if "read_file" in ln or "glob" in ln]  # a read is not a finding


def test_a_finished_work_item_is_noted_once_under_progress(tmp_path):
    _, handler = run(tmp_path, 30)
    task, _ = notes(handler)
    progress = task.split(memory.PROGRESS)[1].splitlines()
    assert progress[-1] == "- done: Explore the project (through step 6)"
    assert len(progress) == len(set(progress))


# ------------------------------------------------------------ it reads back what was taken away


def forget_all_but_the_task_and_newest(messages, keep=6):
    """A crude compaction: the first message, a note, and the newest messages from an assistant turn."""
    if len(messages) <= keep + 3:
        return messages
    start = len(messages) - keep
    start += messages[start]["role"] == "user"
    summary = f"[Earlier messages were dropped.] Current work: {state.marker(*state.last_marker(messages))}"
    return [messages[0], {"role": "assistant", "content": [{"type": "text", "text": summary}]},
            user("Go on."), *messages[start:]]  # fmt: skip


def test_after_its_memory_calls_were_taken_away_it_reads_back_and_goes_on_where_it_was(tmp_path):
    result, _ = run(tmp_path, 40, prepare=forget_all_but_the_task_and_newest)
    read_back = memory._read_back()
    backs = [
        (k, m) for k, m in enumerate(result.messages) if [u["input"] for u in tool_use_blocks(m)] == read_back
    ]
    assert backs, "no read-back after the memory calls were dropped"
    k, turn = backs[0]
    kept = state.last_marker(result.messages[:k])
    assert state.last_marker([turn]) == kept  # the read-back keeps the marker: the plan is not moved
    nxt = state.last_marker(result.messages[: k + 3])
    assert nxt[0] in (kept[0], kept[0] + 1)


def test_clearing_tool_results_alone_never_makes_it_read_back(tmp_path):
    result, _ = run(tmp_path, 40, prepare=lambda m: micro_compact(m, keep_recent=2, min_chars=0))
    reads = [
        c
        for c in memory_calls(result.messages)
        if c["input"].get("path") != "/memories" and c["input"]["command"] == "view"
    ]
    assert reads == []


def test_with_its_notes_read_back_it_keeps_the_users_constraint_the_context_lost(tmp_path):
    def forget_the_oldest(messages):  # test_scenario_constraint's naive window, the task dropped too
        if len(messages) <= 9:
            return messages
        start = len(messages) - 8
        start += messages[start]["role"] == "user"
        return [user("[Earlier messages were dropped to save room.]"), *messages[start:]]

    result, _ = run(tmp_path, 16, prepare=forget_the_oldest)
    edits = [
        u["input"]["path"] for m in result.messages for u in tool_use_blocks(m) if u["name"] == "edit_file"
    ]
    assert edits and edits[0] == "textstats/counts.py"  # without memory it edits tests/test_counts.py
    assert memory.notes_say(result.messages, plan.CONSTRAINT)


# ------------------------------------------------------------ a new session: it picks up where it left off


def test_a_new_session_reads_the_notes_of_the_last_and_resumes_after_the_noted_step(tmp_path):
    workspace = new_workspace(tmp_path / "ws")
    first, handler = run(tmp_path, 30, workspace=workspace)
    task, _ = notes(handler)
    done = max(int(n) for n in memory.THROUGH_RE.findall(task))
    second, _ = run(tmp_path, 4, handler=handler, workspace=workspace)
    looks = [[u["input"] for u in tool_use_blocks(m)] for m in second.messages[1:4:2]]
    assert looks == [[memory._view("/memories")], memory._read_back()]
    assert state.last_marker(second.messages) == (done + 2, False)  # steps done + 1 and + 2, not 1 and 2


# ------------------------------------------------------------ the SDK's own handler


def test_the_sdks_local_filesystem_handler_gets_the_same_notes(tmp_path):
    _, ours = run(tmp_path, 30, name="a")
    sdk = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "sdk"))
    result, _ = run(tmp_path, 30, handler=sdk, name="b")
    theirs = tmp_path / "sdk" / "memories"
    assert (theirs / "task.md").read_text() == (ours.root / "task.md").read_text()
    assert (theirs / "findings.md").read_text() == (ours.root / "findings.md").read_text()
    results = answers(result.messages)
    assert not [c["input"] for c in memory_calls(result.messages) if results[c["id"]].get("is_error")]


@pytest.mark.parametrize("turns", [1, 2, 7])
def test_memory_turns_are_deterministic(tmp_path, turns):
    a, _ = run(tmp_path, turns, name="a", handler=MemoryFolder(tmp_path / "m1"))
    b, _ = run(tmp_path, turns, name="b", handler=MemoryFolder(tmp_path / "m2"))
    assert json.dumps(a.messages) == json.dumps(b.messages)


def test_a_final_answer_waits_for_the_last_notes(tmp_path):
    result, handler = run(tmp_path, 200, task=None)
    last, before = result.messages[-1], result.messages[-3]
    assert last["role"] == "assistant" and not tool_use_blocks(last)
    assert all(u["name"] == "memory" for u in tool_use_blocks(before))  # the notes, then the answer
    task, _ = notes(handler)
    assert f"- done: {plan.FINISH} (through step {len(plan.PLAN)})" in task
    assert plan.DONE in text_of(last["content"])
