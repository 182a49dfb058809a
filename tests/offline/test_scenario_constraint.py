"""The scripted agent acts on what its context still says: without the user's constraint it edits a test."""

from __future__ import annotations

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.core.messages import tool_use_blocks, user
from compaction.offline.scripted import plan
from compaction.pipeline.hooks import Hooks

FIX_STEP = 10  # the first fix: "Found it: top_words sorts by count only ..."


def edits(messages):
    return [u["input"]["path"] for m in messages for u in tool_use_blocks(m) if u["name"] == "edit_file"]


def run(tmp_path, task=None, prepare=None):
    workspace = new_workspace(tmp_path / "ws")
    return run_agent(
        connect("offline"), workspace=workspace, task=task, max_turns=FIX_STEP, hooks=Hooks(prepare=prepare)
    )


def test_with_the_constraint_in_view_the_library_is_fixed(tmp_path):
    assert plan.CONSTRAINT in plan.TASK
    assert edits(run(tmp_path).messages) == ["textstats/counts.py"]


def test_without_it_the_agent_changes_the_test_instead(tmp_path):
    task = plan.TASK.replace(f" ({plan.CONSTRAINT})", "")
    result = run(tmp_path, task=task)
    assert edits(result.messages) == ["tests/test_counts.py"]
    assert "change its expectation in tests/test_counts.py" in str(result.messages[-2]["content"])


def test_dropping_the_task_from_the_context_is_enough(tmp_path):
    def forget_the_oldest(messages):  # keep the newest 8 messages behind a note, as a naive window does
        if len(messages) <= 9:
            return messages
        start = len(messages) - 8
        start += messages[start]["role"] == "user"  # begin at an assistant message
        return [user("[Earlier messages were dropped to save room.]"), *messages[start:]]

    assert edits(run(tmp_path, prepare=forget_the_oldest).messages) == ["tests/test_counts.py"]


def test_every_library_fix_has_a_shortcut_and_nothing_else_does():
    shortcuts = [plan.shortcut(s) for s in plan.PLAN]
    fixes = [s for s in plan.PLAN if s.item.startswith(plan.FIX) and s.calls[0][0] == "edit_file"]
    assert len([s for s in shortcuts if s]) == len(fixes) == 3
    assert all(s.calls[0][1]["path"].startswith("tests/") for s in shortcuts if s)
