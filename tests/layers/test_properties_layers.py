"""Properties every cheap layer keeps on any valid session: valid output, input untouched, no byte lost."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path

from conversations import Call, Turn, build_session, hostile_ids, long_sessions, sessions
from hypothesis import given
from hypothesis import strategies as st

from compaction.core.messages import (
    assistant,
    blocks,
    result_chars,
    text_of,
    tool_result,
    tool_result_blocks,
    tool_use,
    user,
    validate,
)
from compaction.core.placeholders import MARKER_OPEN, is_persisted_marker
from compaction.core.store import OutputStore
from compaction.layers.budget import tool_result_budget
from compaction.layers.micro import is_cleared, micro_compact
from compaction.layers.snip import current_request, is_snip_placeholder, snip_compact


def test_the_strategy_only_draws_sessions_that_validate():
    @given(sessions())
    def check(session):
        validate(session)

    check()


# ---------------------------------------------------------------- L3 budget


@given(sessions(), st.integers(0, 60_000))
def test_budget_output_is_valid_input_untouched_and_every_persisted_byte_exact(session, max_chars):
    before = copy.deepcopy(session)
    events = []
    with tempfile.TemporaryDirectory() as root:
        store = OutputStore(root)
        out = tool_result_budget(session, max_chars=max_chars, store=store, on_event=events.append)
        assert session == before
        validate(out)
        originals = {b["tool_use_id"]: b for m in session for b in tool_result_blocks(m)}
        for event in events:
            assert event.kind == "budget"
            original = text_of(originals[event.tool_use_id]["content"])
            assert store.load(event.saved_to) == original
            assert store.load(event.tool_use_id) == original


@given(sessions(), st.integers(0, 60_000))
def test_budget_touches_only_the_newest_user_message_and_stops_once_it_fits(session, max_chars):
    with tempfile.TemporaryDirectory() as root:
        out = tool_result_budget(session, max_chars=max_chars, store=OutputStore(root))
    assert len(out) == len(session)
    newest = max(i for i, m in enumerate(session) if m["role"] == "user")
    assert all(a is b for i, (a, b) in enumerate(zip(session, out, strict=True)) if i != newest)
    results = tool_result_blocks(out[newest])
    total = sum(result_chars(b) for b in results)
    unpersisted = [b for b in results if not str(b["content"]).startswith(MARKER_OPEN)]
    # either it fits, or only results too small to shrink are left
    assert total <= max_chars or all(result_chars(b) <= 2_400 for b in unpersisted)


# ---------------------------------------------------------------- L1 snip


@given(long_sessions(), st.integers(1, 30), st.data())
def test_snip_output_is_valid_short_enough_and_names_how_many_went(session, max_messages, data):
    keep_head = data.draw(st.integers(0, max_messages - 1))
    before = copy.deepcopy(session)
    out = snip_compact(session, max_messages=max_messages, keep_head=keep_head)
    assert session == before
    validate(out)
    placeholders = [b for m in out for b in blocks(m) if is_snip_placeholder(b)]
    if len(session) <= max_messages:
        assert out == session and not placeholders
        return
    assert len(out) <= max_messages
    assert len(placeholders) == 1
    assert placeholders[0]["text"].startswith(f"[snip] {len(session) - len(out)} earlier")
    assert blocks(out[0])[: len(blocks(session[0]))] == blocks(session[0])


@given(
    long_sessions(min_turns=15, max_turns=40), st.integers(4, 14), st.lists(st.integers(1, 12), max_size=4)
)
def test_repeated_snips_keep_the_first_task_and_the_current_request_visible(session, max_messages, growth):
    _, request = current_request(session)
    out, k = snip_compact(session, max_messages=max_messages), 0
    for extra in growth:  # the agent keeps calling tools (no new user words), then snip runs again
        for _ in range(extra):
            use_id, k = f"grow_{k}", k + 1
            out = out + [
                assistant(tool_use(use_id, "bash", {"command": "ls"})),
                user(tool_result(use_id, "a.py")),
            ]
        out = snip_compact(out, max_messages=max_messages)
        validate(out)
        assert sum(is_snip_placeholder(b) for m in out for b in blocks(m)) <= 1
    shown = "\n".join(b["text"] for m in out for b in blocks(m) if b.get("type") == "text")
    assert session[0]["content"] in shown
    assert request in shown


# ---------------------------------------------------------------- L2 micro


@given(
    sessions(),
    st.integers(0, 6),
    st.integers(0, 400),
    st.sets(st.sampled_from(["bash", "read_file", "glob"])),
)
def test_micro_keeps_the_newest_results_ids_and_error_flags(session, keep_recent, min_chars, excluded):
    before = copy.deepcopy(session)
    out = micro_compact(session, keep_recent=keep_recent, min_chars=min_chars, exclude_tools=excluded)
    assert session == before
    validate(out)
    old = [b for m in session for b in tool_result_blocks(m)]
    new = [b for m in out for b in tool_result_blocks(m)]
    assert [b["tool_use_id"] for b in old] == [b["tool_use_id"] for b in new]
    assert [b.get("is_error") for b in old] == [b.get("is_error") for b in new]
    if keep_recent:
        assert new[-keep_recent:] == old[-keep_recent:]
    for a, b in zip(old, new, strict=True):
        if a != b:
            assert is_cleared(b["content"])
            assert result_chars(a) >= min_chars and result_chars(b) < result_chars(a)
            assert not is_persisted_marker(a["content"])


@given(sessions(), st.integers(0, 6))
def test_micro_twice_is_the_same_as_micro_once(session, keep_recent):
    once = micro_compact(session, keep_recent=keep_recent)
    assert micro_compact(once, keep_recent=keep_recent) == once


@given(hostile_ids, st.lists(st.integers(3_000, 30_000), min_size=1, max_size=4))
def test_budget_never_writes_outside_its_store_whatever_the_ids(prefix, sizes):
    session = build_session([Turn([Call("bash", "z" * n) for n in sizes])], id_prefix=prefix)
    with tempfile.TemporaryDirectory() as parent:
        root = Path(parent) / "store"
        out = tool_result_budget(session, max_chars=1_000, store=OutputStore(root))
        validate(out)
        written = [p for p in Path(parent).rglob("*") if p.is_file()]
        assert written and all(p.parent == root / "tool-results" for p in written)
