"""The SDK's own tool runner (``client.beta.messages.tool_runner``) against ``compaction.connect()``.

Driven through the installed SDK, not a copy of it: the runner runs one ``@beta_tool``, asks for a
thread (the offline server answers ``thread_unsupported_request`` and the SDK carries on without
one), and, after ``compact_before_next_turn()``, sends the compaction request on its fork, yields
the compaction message, replaces its history with it and finishes the task. A user's own ``read_file``
and task get the generic plan: only that tool is called, and the run ends within 12 messages.
"""

from __future__ import annotations

import warnings

from anthropic import beta_tool

from compaction.agent.backend import connect
from compaction.offline.scripted.one_tool import CALLS
from compaction.offline.server.on_demand import BETA_ON_DEMAND, sign

calls: list[str] = []


@beta_tool
def shout(word: str) -> str:
    """Return the word in capitals."""
    calls.append(word)
    return word.upper()


def run(compact_after: int | None) -> tuple[list, object]:
    """Every message the runner yields, and the runner; compaction scheduled after turn ``compact_after``."""
    calls.clear()
    client = connect(scenario="one_tool")
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-4-5",
        max_tokens=512,
        tools=[shout],
        messages=[{"role": "user", "content": "Shout three words, one call at a time."}],
        betas=[BETA_ON_DEMAND],
        max_iterations=12,
    )
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a tool the runner does not know would warn
        for k, message in enumerate(runner):
            seen.append(message)
            if k == compact_after:
                runner.compact_before_next_turn()
    return seen, runner


def test_the_runner_finishes_its_task_without_compaction():
    seen, runner = run(None)
    assert [m.stop_reason for m in seen] == ["tool_use"] * CALLS + ["end_turn"]
    assert calls == [f"item {k}" for k in range(1, CALLS + 1)]
    assert runner.until_done().stop_reason == "end_turn"


def test_compact_before_next_turn_yields_one_signed_block_and_finishes():
    seen, runner = run(0)
    reasons = [m.stop_reason for m in seen]
    assert reasons == ["tool_use", "compaction"] + ["tool_use"] * (CALLS - 1) + ["end_turn"]
    compaction = seen[1]
    (block,) = compaction.content
    assert block.type == "compaction" and block.content
    assert block.signature == sign(block.content)
    assert calls == [f"item {k}" for k in range(1, CALLS + 1)]  # the work resumed from the summary
    final = runner.until_done()
    assert final.stop_reason == "end_turn" and "Done" in final.content[0].text


# ---------------------------------------------------------------- a user's own tool and task

FILES = {
    "src/a.py": "def add(a, b):\n    return a + b\n",
    "src/b.py": "from a import add\nprint(add(2, 3))\n",
}
read: list[str] = []


@beta_tool
def read_file(path: str) -> str:
    """Read a file of the user's project and return its text."""
    read.append(path)
    return FILES.get(path, f"no such file: {path}")


def run_user_task(compact_after: int | None) -> list:
    """Every message the runner yields for the user's task on a default connect(), offered read_file alone."""
    read.clear()
    runner = connect().beta.messages.tool_runner(
        model="claude-sonnet-5-5",
        max_tokens=1024,
        tools=[read_file],
        messages=[{"role": "user", "content": "Read src/a.py and src/b.py, then say what they do."}],
        betas=[BETA_ON_DEMAND],
        max_iterations=12,
    )
    seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a call of a tool the runner was not given would warn
        for k, message in enumerate(runner):
            seen.append(message)
            if k == compact_after:
                runner.compact_before_next_turn()
    return seen


def test_the_runner_with_a_users_read_file_calls_only_it_and_ends_within_12_messages():
    seen = run_user_task(None)
    uses = [b for m in seen for b in m.content if b.type == "tool_use"]
    assert {b.name for b in uses} == {"read_file"} and read == ["src/a.py", "src/b.py"]
    assert seen[-1].stop_reason == "end_turn" and len(seen) <= 12
    assert "src/a.py (read_file): 2 lines, defines add" in seen[-1].content[0].text


def test_compact_before_next_turn_on_the_users_task_yields_one_compaction_on_the_way():
    seen = run_user_task(0)
    assert [m.stop_reason for m in seen].count("compaction") == 1
    assert seen[1].stop_reason == "compaction" and seen[1].content[0].signature
    assert {b.name for m in seen for b in m.content if b.type == "tool_use"} == {"read_file"}
    assert seen[-1].stop_reason == "end_turn" and len(seen) <= 12
    assert read == ["src/a.py", "src/b.py", "src/a.py"]  # the compacted file is read again before the answer
