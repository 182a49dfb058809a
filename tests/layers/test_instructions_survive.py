"""Instructions survive compaction: a constraint stated at the start is still there after ten of each kind.

Each path (the automatic summary, the reactive summary after "prompt is too long", the manual
compact) runs ten times in a row, with new turns in between. Two summarizers: the offline model,
and one that forgets everything but a one-line summary, so the test shows that the harness (not a
lucky summary) keeps the user's words.
"""

from __future__ import annotations

import pytest
from fake_summarizer import FakeClient

from compaction.agent.backend import connect
from compaction.core.messages import assistant, blocks, text, tool_result, tool_use, user, validate
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens
from compaction.layers.instructions import PINNED_HEAD, pin_instructions, user_instructions
from compaction.layers.reactive import Reactive
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor

RULE = "Never edit anything under tests/, fix the library code only."
FORGETFUL = "<summary>\n1. Primary Request and Intent:\n   Fix the bug.\n</summary>"


def turns(start: int, n: int, chars: int = 900) -> list[dict]:
    out = []
    for i in range(start, start + n):
        out.append(
            assistant(text(f"Step {i}."), tool_use(f"toolu_{i:04d}", "bash", {"command": f"cat f{i}.log"}))
        )
        out.append(user(tool_result(f"toolu_{i:04d}", f"log line {i} " * (chars // 12))))
    return out


def kept(messages: list[dict]) -> bool:
    shown = " ".join(str(b.get("text", "")) for m in messages for b in blocks(m) if b.get("type") == "text")
    return " ".join(RULE.split()) in " ".join(shown.split())


def compactor(tmp_path, client, window=6_000):
    return Compactor(
        store=OutputStore(tmp_path / "store"),
        client=client,
        transcript_dir=tmp_path / "transcripts",
        context_window=window,
        layers=[Summary(), Reactive()],
    )


CLIENTS = {"offline model": lambda: connect("offline"), "forgetful summary": lambda: FakeClient(FORGETFUL)}


@pytest.mark.parametrize("summarizer", CLIENTS)
@pytest.mark.parametrize("path", ["summary", "reactive", "manual"])
def test_the_users_constraint_survives_ten_consecutive_compactions(tmp_path, summarizer, path):
    keeper = compactor(tmp_path, CLIENTS[summarizer]())
    messages = [user(f"Please make the parser accept ISO dates. {RULE}"), *turns(0, 12)]
    for round_ in range(10):
        messages = messages + turns(100 * (round_ + 1), 12, chars=1_500)
        if path == "summary":
            messages = keeper.prepare(messages)
        elif path == "reactive":
            messages = keeper.reactive(
                messages, RuntimeError("prompt is too long: 9000 tokens > 6000 maximum")
            )
        else:
            messages = keeper.compact(messages)
        validate(messages)
        assert kept(messages), f"{path}, compaction {round_ + 1}: the user's constraint is gone"
    layer = {"summary": "summary", "reactive": "reactive", "manual": "compact"}[path]
    assert keeper.counts()[layer] == 10


def test_a_forgetful_summary_alone_loses_the_constraint():
    """Without the pin the constraint is gone: what the test above guards against."""
    summary = [
        user("[Compacted] The session continues from a summary.\n\n1. Primary Request:\n   Fix the bug.")
    ]
    before = [user(f"Please make the parser accept ISO dates. {RULE}"), *turns(0, 2)]
    assert not kept(summary)
    assert kept(pin_instructions(before, summary))


def test_user_instructions_reads_the_users_words_and_earlier_pins_only():
    messages = [
        user("Make it faster. Do not use numpy. The output must stay the same."),
        assistant(text("I must not use numpy, noted.")),  # the agent's words are not instructions
        user(
            text("[snip] 4 earlier messages were removed; never mind them"), text("Also avoid global state.")
        ),
        user(text(f"{PINNED_HEAD}\n- Only touch parser.py.")),
    ]
    assert user_instructions(messages) == [
        "Do not use numpy.",
        "The output must stay the same.",
        "Also avoid global state.",
        "Only touch parser.py.",
    ]


def test_pinning_adds_only_what_the_compacted_list_no_longer_shows_and_nothing_when_all_is_there():
    before = [user(f"Fix it. {RULE} Do not add dependencies.")]
    after = [user(f"Summary: the user said: {RULE}")]
    pinned = pin_instructions(before, after)
    assert pinned[0]["content"][-1]["text"] == f"{PINNED_HEAD}\n- Do not add dependencies."
    assert pin_instructions(before, before) == before


def test_the_pinned_block_is_capped_keeping_the_newest(monkeypatch):
    import compaction.layers.instructions as instructions

    monkeypatch.setattr(instructions, "MAX_PINNED_CHARS", 60)
    before = [user(" ".join(f"Never do {x} at all, ever again." for x in "ABC"))]
    pinned = pin_instructions(before, [user("Summary.")])
    assert pinned[0]["content"][-1]["text"].splitlines()[1:] == [
        "- Never do B at all, ever again.",
        "- Never do C at all, ever again.",
    ]
    assert estimate_tokens(pinned, "tiktoken") < 60
