"""The SDK's tool runner with the SDK's ``BetaLocalFilesystemMemoryTool`` against ``compaction.connect()``.

Nothing of the course's handler here: the runner (``client.beta.messages.tool_runner``) runs the
SDK's own memory tool on a temporary folder, and the offline model writes notes and later reads
them: after the runner compacted its history, and in a second session on the same folder.
"""

from __future__ import annotations

import warnings

from anthropic import beta_tool
from anthropic.tools import BetaLocalFilesystemMemoryTool

from compaction.agent.backend import connect
from compaction.agent.compact_on_demand import workspace_tools
from compaction.agent.loop import SYSTEM_PROMPT, default_task, new_workspace
from compaction.agent.tools import Workspace
from compaction.offline.scripted import memory
from compaction.offline.scripted.one_tool import CALLS
from compaction.offline.server.on_demand import BETA_ON_DEMAND


@beta_tool
def shout(word: str) -> str:
    """Return the word in capitals."""
    return word.upper()


def memory_inputs(messages):
    """The input of every memory call in the runner's messages, in order."""
    return [b.input for m in messages for b in m.content if b.type == "tool_use" and b.name == "memory"]


def run(tools, task, *, scenario=None, compact_after=None, iterations=40, system=None):
    """Every message the runner yields, and its final message."""
    client = connect(scenario=scenario) if scenario else connect()
    options = {"system": system} if system else {}
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        tools=tools,
        messages=[{"role": "user", "content": task}],
        betas=[BETA_ON_DEMAND],
        max_iterations=iterations,
        **options,
    )
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a tool the runner does not know would warn
        for k, message in enumerate(runner):
            seen.append(message)
            if k == compact_after:
                runner.compact_before_next_turn()
    return seen


def test_the_runner_writes_notes_and_reads_them_back_after_compacting(tmp_path):
    store = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path))
    seen = run([store, shout], "Shout three words, one call at a time.", scenario="one_tool", compact_after=2)
    reasons = [m.stop_reason for m in seen]
    assert reasons[-1] == "end_turn" and "compaction" in reasons
    calls = memory_inputs(seen)
    assert calls[0] == {"command": "view", "path": "/memories"}  # it looks first
    assert [c["command"] for c in calls[1:3]] == ["create", "create"]  # then it writes its notes
    after = memory_inputs(seen[reasons.index("compaction") + 1 :])
    assert after[:2] == memory._read_back()  # and reads them back once the history is compacted
    notes = (tmp_path / "memories" / "findings.md").read_text()
    assert '- `shout {"word": "item 1"}` -> ITEM 1' in notes
    assert "Shout three words" in (tmp_path / "memories" / "task.md").read_text()
    shouts = [b.input for m in seen for b in m.content if b.type == "tool_use" and b.name == "shout"]
    assert shouts == [{"word": f"item {k}"} for k in range(1, CALLS + 1)]  # the task itself went on


def test_a_second_session_on_the_same_folder_reads_the_first_ones_notes(tmp_path):
    store = BetaLocalFilesystemMemoryTool(base_path=str(tmp_path / "mem"))
    workspace = Workspace(new_workspace(tmp_path / "workspace"))
    tools = [store, *workspace_tools(workspace)]
    first = run(tools, default_task(), iterations=12, system=SYSTEM_PROMPT)
    assert any(c["command"] == "insert" for c in memory_inputs(first))  # it noted what it found
    found = (tmp_path / "mem" / "memories" / "findings.md").read_text()
    assert "54 passed, 7 failed" in found
    second = run(tools, default_task(), iterations=3, system=SYSTEM_PROMPT)
    assert memory_inputs(second) == [{"command": "view", "path": "/memories"}, *memory._read_back()]
