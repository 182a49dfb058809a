"""Properties of ``Compactor.prepare`` on any valid session: valid output, input untouched, nothing lost."""

from __future__ import annotations

import copy
import tempfile
from pathlib import Path
from unittest import mock

from conversations import long_sessions, sessions
from fake_summarizer import FakeClient
from hypothesis import event, given
from hypothesis import strategies as st

from compaction.core.messages import text_of, to_json, tool_result_blocks, validate
from compaction.core.store import OutputStore
from compaction.core.tokens import estimate_tokens
from compaction.core.transcript import read_transcript
from compaction.layers.budget import Budget
from compaction.layers.micro import Micro
from compaction.layers.snip import Snip
from compaction.layers.summarize import Summary
from compaction.pipeline.compactor import Compactor

settings_space = st.fixed_dictionaries(
    {
        "context_window": st.sampled_from([4_000, 8_000, 50_000, 200_000]),
        "max_chars": st.integers(0, 60_000),
        "max_messages": st.integers(8, 60),
        "keep_head": st.integers(1, 6),
        "keep_recent": st.integers(0, 4),
        "micro_trigger": st.sampled_from([0.0, 0.5, 1.0]),
        "clear_at_least": st.sampled_from([0, 200, None]),
    }
)


def transcribed(folder: Path) -> list[dict]:
    """Every message in every transcript under ``folder``."""
    if not folder.exists():
        return []
    return [m for path in sorted(folder.iterdir()) for m in read_transcript(path)]


def assert_nothing_lost(session: list[dict], out: list[dict], store: OutputStore, transcripts: Path) -> None:
    """Every message that left is in a transcript; every tool result that left is in one or in the store."""
    saved = transcribed(transcripts)
    kept = {to_json(m) for m in out} | {to_json(m) for m in saved}
    # tool results still in the context or in a transcript, as JSON
    results = {to_json(b) for m in [*out, *saved] for b in tool_result_blocks(m)}
    for index, message in enumerate(session):
        if to_json(message) in kept:
            continue
        for block in tool_result_blocks(message):
            if to_json(block) in results:
                continue
            assert store.path_for(block["tool_use_id"]).exists(), (
                f"messages[{index}]: the result {block['tool_use_id']} left the context and is not on disk"
            )
            assert store.load(block["tool_use_id"]) == text_of(block["content"])


def cheap_layers(options: dict) -> list:
    """Budget, snip and micro with the drawn settings."""
    return [
        Budget(max_chars=options["max_chars"]),
        Snip(max_messages=options["max_messages"], keep_head=options["keep_head"]),
        Micro(
            keep_recent=options["keep_recent"],
            trigger=options["micro_trigger"],
            clear_at_least=options["clear_at_least"],
        ),
    ]


def run(session: list[dict], layers: list, window: int, client=None, threshold=None) -> dict[str, int]:
    before = copy.deepcopy(session)
    # fsync only matters for a crash, which these properties do not model; skipping it keeps them fast
    with tempfile.TemporaryDirectory() as root, mock.patch("os.fsync", new=lambda fd: None):
        store = OutputStore(Path(root) / "store")
        transcripts = Path(root) / "transcripts"
        compactor = Compactor(
            layers,
            store=store,
            client=client,
            transcript_dir=transcripts,
            context_window=window,
            threshold=threshold,
        )
        out = compactor.prepare(session)
        assert session == before, "prepare changed its input"
        validate(out)
        assert_nothing_lost(session, out, store, transcripts)
        for event in compactor.events:
            assert event.kind in compactor.counts()
        return compactor.counts()


@given(sessions(), settings_space)
def test_prepare_keeps_the_strict_form_leaves_the_input_alone_and_loses_no_byte(session, options):
    run(session, cheap_layers(options), options["context_window"])


@given(long_sessions(), settings_space)
def test_the_same_holds_for_long_sessions_that_snip_and_micro_cut(session, options):
    run(session, cheap_layers(options), options["context_window"])


@given(long_sessions(min_turns=20, max_turns=40))
def test_the_same_holds_when_the_summary_fires(session):
    """A threshold one token under the session (the Compactor's own count): the summary must fire."""
    size = estimate_tokens(session, "tiktoken")
    counts = run(session, [Summary()], 200_000, client=FakeClient(), threshold=size - 1)
    assert counts["summary"] == 1, f"the summary did not fire: {counts}"
    event(f"a session over 2,000 tokens: {size > 2_000}")
