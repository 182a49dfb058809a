"""Real sessions by other projects, replayed turn by turn through the whole pipeline."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from fake_summarizer import FakeClient
from test_properties_pipeline import transcribed

from compaction.core.messages import text_of, to_json, tool_result_blocks, validate
from compaction.core.store import OutputStore
from compaction.importers import sessions_in
from compaction.layers.budget import Budget
from compaction.layers.micro import Micro
from compaction.layers.reactive import Reactive
from compaction.layers.snip import Snip
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
pytestmark = pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")


SESSIONS = sessions_in(DATA)  # (file name, messages) for every session file in the shared data


def replay(session: list[dict], compactor: Compactor) -> tuple[list[dict], list[list[dict]]]:
    """Feed the session to ``prepare`` the way an agent grows its list; (last list, every list sent)."""
    sent, done = [], 0
    for i, message in enumerate(session):
        if message["role"] != "user":
            continue
        grown = sent[-1] + session[done : i + 1] if sent else session[: i + 1]
        before = copy.deepcopy(grown)
        out = compactor.prepare(grown)
        assert grown == before, f"prepare changed its input at message {i}"
        validate(out)
        sent.append(out)
        done = i + 1
    return sent[-1], sent


@pytest.mark.parametrize(("name", "session"), SESSIONS, ids=[n for n, _ in SESSIONS])
@pytest.mark.parametrize("window", [4_000, 16_000])
def test_every_request_stays_valid_and_every_result_that_left_is_on_disk(name, session, window, tmp_path):
    store = OutputStore(tmp_path / "store")
    compactor = Compactor(
        store=store,
        client=FakeClient(),
        transcript_dir=tmp_path / "transcripts",
        context_window=window,
        layers=[Budget(max_chars=2_000), Snip(max_messages=12), Micro(), Summary(), Reactive()],
    )
    last, sent = replay(session, compactor)
    on_disk = transcribed(tmp_path / "transcripts")
    kept = {to_json(b) for m in [*last, *on_disk] for b in tool_result_blocks(m)}
    for message in session:
        for block in tool_result_blocks(message):
            if to_json(block) in kept:
                continue
            assert store.path_for(block["tool_use_id"]).exists(), f"{block['tool_use_id']} is nowhere"
            assert store.load(block["tool_use_id"]) == text_of(block["content"])
    assert sent, "the session has at least one user message"
