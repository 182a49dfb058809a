"""The SDK's own tool runner (``client.beta.messages.tool_runner``) against ``compaction.connect()``.

Driven through the installed SDK, not a copy of it: the runner runs one ``@beta_tool``, asks for a
thread (the offline server answers ``thread_unsupported_request`` and the SDK carries on without
one), and, after ``compact_before_next_turn()``, sends the compaction request on its fork, yields
the compaction message, replaces its history with it and finishes the task.
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
