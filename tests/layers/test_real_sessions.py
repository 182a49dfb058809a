"""Real sessions by other projects keep the strict form through every cheap layer, at every turn."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from compaction.core.messages import result_chars, text_of, tool_result_blocks, validate
from compaction.core.placeholders import is_persisted_marker
from compaction.core.store import OutputStore
from compaction.importers import sessions_in
from compaction.layers.budget import tool_result_budget
from compaction.layers.micro import cleared_count, micro_compact
from compaction.layers.snip import snip_compact

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")


SESSIONS = sessions_in(DATA)  # (file name, messages) for every session file in the shared data
IDS = [name for name, _ in SESSIONS]


def prefixes(messages):
    """Every prefix that ends on a user message: what a harness holds before a model call."""
    return [messages[: i + 1] for i, m in enumerate(messages) if m["role"] == "user"]


@pytest.mark.parametrize(("name", "session"), SESSIONS, ids=IDS)
def test_budget_keeps_every_turn_valid_and_every_persisted_byte(name, session, tmp_path):
    store = OutputStore(tmp_path)
    for prefix in prefixes(session):
        before = copy.deepcopy(prefix)
        events = []
        out = tool_result_budget(
            prefix, max_chars=500, store=store, preview_chars=200, on_event=events.append
        )
        validate(out)
        assert prefix == before
        originals = {b["tool_use_id"]: b["content"] for b in tool_result_blocks(prefix[-1])}
        for event in events:
            assert store.load(event.saved_to) == text_of(originals[event.tool_use_id])


@pytest.mark.parametrize(("name", "session"), SESSIONS, ids=IDS)
@pytest.mark.parametrize(("max_messages", "keep_head"), [(4, 1), (6, 3), (10, 2), (50, 3)])
def test_snip_keeps_every_turn_valid(name, session, max_messages, keep_head):
    for prefix in prefixes(session):
        out = snip_compact(prefix, max_messages=max_messages, keep_head=keep_head)
        validate(out)
        assert out == prefix if len(prefix) <= max_messages else len(out) <= max_messages


@pytest.mark.parametrize(("name", "session"), SESSIONS, ids=IDS)
@pytest.mark.parametrize("keep_recent", [0, 1, 3])
def test_micro_keeps_every_turn_valid(name, session, keep_recent):
    for prefix in prefixes(session):
        validate(micro_compact(prefix, keep_recent=keep_recent))


@pytest.mark.parametrize(("name", "session"), SESSIONS, ids=IDS)
def test_the_three_layers_in_order_keep_a_growing_session_valid(name, session, tmp_path):
    store, cleared, clearable = OutputStore(tmp_path), 0, 0
    for prefix in prefixes(session):
        out = tool_result_budget(prefix, max_chars=2_000, store=store)
        out = snip_compact(out, max_messages=8, keep_head=3)
        older = [b for m in out for b in tool_result_blocks(m)][:-2]  # all but the newest two results
        # longer than any placeholder (at most about 300 characters) and not a marker: micro must clear it
        clearable += sum(result_chars(b) > 300 and not is_persisted_marker(b["content"]) for b in older)
        out = micro_compact(out, keep_recent=2)
        validate(out)
        cleared = max(cleared, cleared_count(out))
    if clearable:
        assert cleared > 0, "an old result longer than its placeholder was left in place"
