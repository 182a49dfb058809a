"""The pipeline: a list of layers (budget, snip, micro, summary), each on its own trigger, in order."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest

from compaction.core.events import CompactionEvent
from compaction.core.messages import assistant, text, tool_result, tool_use, user, validate
from compaction.core.store import OutputStore
from compaction.core.transcript import read_transcript
from compaction.course import built
from compaction.layers.budget import Budget
from compaction.layers.layer import Layer
from compaction.layers.micro import Micro
from compaction.layers.reactive import Reactive
from compaction.layers.snip import Snip, snip_compact
from compaction.layers.summarize import Summary
from compaction.layers.triggers import default_buffer, summary_threshold
from compaction.pipeline.compactor import Compactor, default_layers


def read_turn(i: int, body: str) -> list[dict]:
    """One assistant read_file call and its result."""
    use_id = f"toolu_{i:03d}"
    return [
        assistant(text(f"Reading file {i}."), tool_use(use_id, "read_file", {"path": f"src/f{i}.py"})),
        user(tool_result(use_id, body)),
    ]


def session(turns: int, chars: int = 400) -> list[dict]:
    """A valid session: a task, then ``turns`` reads of ``chars`` characters each."""
    messages = [user("Fix the failing test in src/.")]
    for i in range(turns):
        messages += read_turn(i, f"# file {i}\n" + "x = 1  # line\n" * (chars // 14))
    return messages


def chatty(pairs: int, chars: int = 1_500) -> list[dict]:
    """A long talk with no tool results: only a summary can make it smaller."""
    messages = []
    for i in range(pairs):
        messages += [
            user(f"Question {i}: " + "why? " * (chars // 5)),
            assistant(f"Answer {i}: " + "because. " * (chars // 9)),
        ]
    return messages


def parallel_reads(prefix: list[dict], sizes: list[int]) -> list[dict]:
    """``prefix`` followed by one assistant message with parallel reads of the given sizes."""
    uses = [tool_use(f"toolu_p{j}", "read_file", {"path": f"big{j}.txt"}) for j in range(len(sizes))]
    results = [tool_result(f"toolu_p{j}", f"<{j}>" + "y" * size) for j, size in enumerate(sizes)]
    return [*prefix, assistant(text("Reading them all."), *uses), user(*results)]


class NoModel:
    """A client that fails the test if the pipeline ever calls the model."""

    @property
    def messages(self):
        raise AssertionError("the model was called")


def bytes_on_disk(root: Path) -> str:
    """Everything written under a folder, as one string."""
    return "".join(p.read_text(errors="replace") for p in sorted(root.rglob("*")) if p.is_file())


@pytest.fixture
def store(tmp_path):
    return OutputStore(tmp_path / "store")


# ---------------------------------------------------------------- the threshold


def test_the_threshold_is_the_window_minus_reserved_output_minus_the_buffer():
    assert summary_threshold(200_000) == 200_000 - 20_000 - 13_000
    assert summary_threshold(10_000, reserve_output=1_000, buffer=500) == 8_500


def test_the_buffer_scales_down_for_small_windows_and_never_grows_past_claude_codes():
    assert default_buffer(200_000) == 13_000
    assert default_buffer(1_000_000) == 13_000
    assert default_buffer(8_000) == 520


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda: Micro(keep_recent=-1), "keep_recent must be a non-negative integer, got -1"),
        (lambda: Micro(keep_recent=2.0), "keep_recent must be a non-negative integer, got 2.0"),
        (lambda: Micro(min_chars="120"), "min_chars must be a non-negative integer, got '120'"),
        (lambda: Micro(clear_at_least=-1), "clear_at_least must be a non-negative integer"),
        (lambda: Micro(exclude_tools="bash"), "exclude_tools must be a collection of tool names"),
        (lambda: Budget(max_chars=1.5), "max_chars must be a non-negative integer, got 1.5"),
    ],
)
def test_a_layer_refuses_a_bad_setting_when_built_not_when_it_first_fires(make, said):
    with pytest.raises(ValueError, match=re.escape(said)):
        make()


def test_a_list_of_tool_names_is_kept_as_names():
    assert Micro(exclude_tools=["bash"]).exclude_tools == ("bash",)  # not ("b", "a", "s", "h")


def test_a_window_with_no_room_left_is_rejected_naming_the_parameters():
    with pytest.raises(ValueError, match="reserve_output"):
        summary_threshold(1_000, reserve_output=900, buffer=200)


def test_a_function_in_the_list_is_rejected_naming_its_place_and_where_a_function_goes(store):
    with pytest.raises(TypeError, match=r"layers\[1\] must be a layer .* run="):
        Compactor([Budget(), snip_compact], store=store)


def test_a_layer_names_both_of_its_numbers_and_checks_them():
    assert Snip(max_messages=40).keep_to == 24  # three fifths of the trigger by default
    with pytest.raises(ValueError, match="keep_to"):
        Snip(max_messages=40, keep_to=41)
    with pytest.raises(ValueError, match="trigger"):
        Micro(trigger=1.5)
    assert repr(Snip(max_messages=40, keep_to=24)) == (
        "Snip(max_messages=40, keep_to=24, keep_head=3, run=snip_compact)"
    )


def test_the_default_pipeline_is_one_visible_list():
    assert [type(layer) for layer in default_layers()] == [Budget, Micro, Summary, Reactive]
    assert Compactor().layers == default_layers()


def test_a_learners_snip_runs_with_its_own_settings_cut_to_keep_to(store, tmp_path):
    heard = []

    def my_snip(messages, *, max_messages, keep_head):
        heard.append((len(messages), max_messages, keep_head))
        return snip_compact(messages, max_messages=max_messages, keep_head=keep_head)

    compactor = Compactor([Snip(max_messages=40, keep_to=24, run=my_snip)], store=store)
    out = compactor.prepare(session(25))  # 51 messages
    assert heard == [(51, 24, 3)] and len(out) <= 24


def test_a_new_layer_is_one_more_class_in_the_list(store):
    class Shout(Layer):
        name = "shout"

        def apply(self, messages, pipeline):
            return [*messages[:-1], user(messages[-1]["content"].upper())]

    compactor = Compactor([Shout()], store=store)
    assert compactor.prepare([user("hello")]) == [user("HELLO")]
    assert [e.kind for e in compactor.events] == ["shout"]


# ---------------------------------------------------------------- triggers


def test_a_session_inside_its_budget_comes_back_unchanged_with_no_event(store):
    messages = session(5)
    compactor = Compactor(store=store, client=NoModel(), transcript_dir=store.root / "t")
    out = compactor.prepare(messages)
    assert out == messages and out is not messages
    assert compactor.events == []
    assert not store.root.exists()


def test_an_oversized_newest_result_is_persisted_without_any_summary_being_asked_for(store, tmp_path):
    messages = parallel_reads(session(2), [30_000])
    compactor = Compactor(
        [Budget(max_chars=10_000), Micro(), Summary()],
        store=store,
        client=NoModel(),
        transcript_dir=tmp_path / "t",
    )
    out = compactor.prepare(messages)
    validate(out)
    assert [e.kind for e in compactor.events] == ["budget"]
    assert "<persisted-output>" in str(out[-1]["content"][0]["content"])
    assert "<0>" + "y" * 30_000 in bytes_on_disk(store.root)
    assert not (tmp_path / "t").exists()  # no summary, no transcript


def test_snip_fires_only_when_the_list_is_longer_than_max_messages(store, tmp_path):
    compactor = Compactor([Snip(max_messages=21)], store=store, transcript_dir=tmp_path / "t")
    assert compactor.prepare(session(10)) == session(10)  # 21 messages
    out = compactor.prepare(session(15))  # 31 messages
    validate(out)
    assert len(out) <= 21
    assert [e.kind for e in compactor.events] == ["snip"]


def test_micro_waits_until_the_estimate_passes_its_fraction_of_the_threshold(store, tmp_path):
    messages = session(12, chars=1_400)
    compactor = Compactor(
        [Micro(trigger=0.5)], store=store, transcript_dir=tmp_path / "t", context_window=100_000
    )
    assert compactor.prepare(messages) == messages  # far below half the threshold
    small_window = Compactor(
        [Micro(trigger=0.5)], store=store, transcript_dir=tmp_path / "t", context_window=8_000
    )
    validate(small_window.prepare(messages))
    assert [e.kind for e in small_window.events] == ["micro"]
    assert small_window.events[0].tokens_after < small_window.events[0].tokens_before


def test_micro_clears_in_batches_so_most_turns_keep_the_cache(store, tmp_path):
    def run(micro):
        compactor = Compactor([micro], store=store, transcript_dir=tmp_path / "t", context_window=8_000)
        messages = session(1, chars=1_400)
        for i in range(1, 30):
            messages = compactor.prepare(messages + read_turn(100 + i, "z = 2  # line\n" * 100))
        return compactor.counts()["micro"]

    every_turn = run(Micro(trigger=0.0, clear_at_least=0))
    batched = run(Micro(trigger=0.5, clear_at_least=1_000))
    assert 0 < batched < every_turn / 2


def test_the_summary_fires_only_over_the_threshold(store, tmp_path):
    calls = []

    def fake_compact_history(messages, *, client, transcript_dir, **kwargs):
        calls.append(len(messages))
        return [user("[summary] the session so far")]

    compactor = Compactor(
        [Summary(run=fake_compact_history)],
        store=store,
        client=object(),
        transcript_dir=tmp_path / "t",
        context_window=8_000,
    )
    compactor.prepare(session(2))
    assert calls == []
    out = compactor.prepare(chatty(20))
    assert calls and out == [user("[summary] the session so far")]
    assert compactor.counts()["summary"] == 1


# ---------------------------------------------------------------- order


def test_the_right_order_keeps_a_large_result_on_disk(store):
    messages = parallel_reads(session(1), [40_000, 300, 300, 300, 300])
    compactor = Compactor([Budget(max_chars=10_000), Micro(trigger=0.0, clear_at_least=0)], store=store)
    out = compactor.prepare(messages)
    validate(out)
    assert "<0>" + "y" * 40_000 in bytes_on_disk(store.root)
    assert compactor.counts()["budget"] == 1


def test_the_wrong_order_loses_a_large_result_for_good(store):
    messages = parallel_reads(session(1), [40_000, 300, 300, 300, 300])
    compactor = Compactor([Micro(trigger=0.0, clear_at_least=0), Budget(max_chars=10_000)], store=store)
    out = compactor.prepare(messages)
    validate(out)
    large = "<0>" + "y" * 40_000
    assert large not in str(out)
    assert not store.root.exists() or large not in bytes_on_disk(store.root)


# ---------------------------------------------------------------- nothing lost, nothing mutated


def test_prepare_never_mutates_its_input(store, tmp_path):
    messages = parallel_reads(session(30, chars=700), [40_000, 300, 300, 300, 300])
    before = copy.deepcopy(messages)
    layers = [Budget(max_chars=10_000), Snip(max_messages=20), *default_layers()[1:]]
    Compactor(layers, store=store, transcript_dir=tmp_path / "t").prepare(messages)
    assert messages == before


def test_a_transcript_is_written_before_snip_or_micro_drop_anything(store, tmp_path):
    messages = session(30, chars=700)
    layers = [Budget(), Snip(max_messages=20), Micro(), Summary()]
    compactor = Compactor(layers, store=store, transcript_dir=tmp_path / "t", context_window=8_000)
    compactor.passes(messages)  # a summary layer but no client: only the cheap layers
    (written,) = sorted((tmp_path / "t").iterdir())
    assert read_transcript(written) == messages
    assert "transcript" in compactor.events[0].detail


def test_what_leaves_a_recorded_session_is_not_written_again_but_anything_else_is(store, tmp_path):
    """A replayed session is on disk already: its messages leave with no transcript, the file named."""
    recorded = session(30, chars=700)
    compactor = Compactor(
        [Budget(), Snip(max_messages=20), Micro(), Summary()],
        store=store,
        transcript_dir=tmp_path / "t",
        context_window=8_000,
        recorded=(tmp_path / "source.jsonl", recorded),
    )
    out = compactor.prepare(recorded)
    assert out != recorded and not (tmp_path / "t").exists()  # layers fired, nothing written
    assert {e.saved_to for e in compactor.events} == {str(tmp_path / "source.jsonl")}
    # a list with a message the file does not hold (an equal copy is not the recorded dict)
    fresh = [*recorded[:10], copy.deepcopy(recorded[10]), *recorded[11:]]
    compactor.prepare(fresh)
    (written,) = sorted((tmp_path / "t").iterdir())
    assert read_transcript(written) == fresh


def test_an_unwritable_transcript_folder_means_nothing_is_dropped_and_an_event_says_why(store, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    messages = session(30, chars=700)
    layers = [Snip(max_messages=20), Micro(trigger=0.0, clear_at_least=0)]  # both fire on this list
    compactor = Compactor(layers, store=store, transcript_dir=blocker / "t")
    out = compactor.prepare(messages)
    assert out == messages
    assert [e.kind for e in compactor.events] == ["snip_skipped", "micro_skipped"]
    assert "transcript not written" in compactor.events[0].detail


# ---------------------------------------------------------------- the circuit breaker


def test_the_breaker_opens_after_three_consecutive_failures_and_says_so(store, tmp_path):
    calls = []

    def failing(messages, **kwargs):
        calls.append(1)
        raise RuntimeError("summary came back empty")

    messages = chatty(20)
    compactor = Compactor(
        [Summary(run=failing)],
        store=store,
        client=object(),
        transcript_dir=tmp_path / "t",
        context_window=8_000,
    )
    for _ in range(5):
        out = compactor.prepare(messages)
    assert len(calls) == 3
    assert compactor.breaker_open
    breaker = [e for e in compactor.events if e.kind == "breaker"]
    assert len(breaker) == 1 and "stopped after 3 consecutive failures" in breaker[0].detail
    validate(out)


def test_a_success_resets_the_failure_count(store, tmp_path):
    outcomes = iter([False, False, True, False, False, True])

    def flaky(messages, **kwargs):
        if not next(outcomes):
            raise RuntimeError("timed out")
        return [user("[summary]")]

    compactor = Compactor(
        [Summary(run=flaky)],
        store=store,
        client=object(),
        transcript_dir=tmp_path / "t",
        context_window=8_000,
    )
    for _ in range(6):
        compactor.prepare(chatty(20))
    assert not compactor.breaker_open
    assert compactor.counts()["summary"] == 2


def test_a_summary_that_changes_nothing_counts_as_a_failure(store, tmp_path):
    unchanged = Summary(run=lambda messages, **kwargs: list(messages))
    compactor = Compactor(
        [unchanged], store=store, client=object(), transcript_dir=tmp_path / "t", context_window=8_000
    )
    for _ in range(3):
        compactor.prepare(chatty(20))
    assert compactor.breaker_open


# ---------------------------------------------------------------- events, counts, steps


def test_events_name_turn_layer_and_tokens_and_reach_the_callback(store, tmp_path):
    heard = []
    compactor = Compactor([Budget(max_chars=10_000)], store=store, on_event=heard.append)
    compactor.prepare(session(1))
    compactor.prepare(parallel_reads(session(1), [30_000]))
    assert heard == compactor.events
    assert heard[0] == CompactionEvent(1, "budget", heard[0].tokens_before, heard[0].tokens_after, "")
    assert heard[0].tokens_after < heard[0].tokens_before


def test_counts_name_every_layer_of_the_list_even_those_that_never_fired(store):
    assert Compactor(store=store).counts() == {
        "budget": 0,
        "micro": 0,
        "summary": 0,
        "reactive": 0,
        "compact": 0,  # the summary answers the model's compact tool
    }
    assert Compactor([Snip(max_messages=40), Micro()], store=store).counts() == {"snip": 0, "micro": 0}


def test_passes_show_every_pass_in_order_ending_with_what_prepare_returns(store, tmp_path):
    messages = parallel_reads(session(30, chars=700), [30_000])
    layers = [Budget(max_chars=10_000), Snip(max_messages=20), Micro(), Summary(), Reactive()]
    compactor = Compactor(layers, store=store, transcript_dir=tmp_path / "t")
    passes = compactor.passes(messages)
    assert [name for name, _ in passes] == [
        "input",
        "budget",
        "snip",
        "micro",
        "summary",
    ]  # reactive: no pass
    assert passes[0][1] == messages
    for _, after in passes:
        validate(after)
    again = Compactor(layers, store=store, transcript_dir=tmp_path / "t2")
    assert again.prepare(messages) == passes[-1][1]


def test_observe_anchors_the_estimate_on_the_apis_usage(store):
    messages = session(3)
    compactor = Compactor(store=store)
    estimate = compactor.estimate(messages)
    compactor.observe(messages, {"input_tokens": estimate + 900})
    assert compactor.estimate(messages) == estimate + 900
    grown = messages + read_turn(50, "short")
    assert compactor.estimate(grown) > estimate + 900
    # a list that no longer starts with the anchored request still carries the system/tools overhead
    assert compactor.estimate(messages[:1]) >= 900


def test_snip_cuts_to_keep_to_so_it_fires_once_every_few_turns_not_every_turn(store, tmp_path):
    compactor = Compactor([Snip(max_messages=30)], store=store, transcript_dir=tmp_path / "t")
    messages = session(1)
    for i in range(60):
        messages = compactor.prepare(messages + read_turn(200 + i, "short output"))
        assert len(messages) <= 32
    assert 3 <= compactor.counts()["snip"] <= 60 // 5


def test_a_failed_write_keeps_the_output_in_place_and_an_event_says_why(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    compactor = Compactor([Budget(max_chars=10_000)], store=OutputStore(blocker / "store"))
    messages = parallel_reads(session(1), [30_000])
    out = compactor.prepare(messages)
    assert out == messages
    assert [e.kind for e in compactor.events] == ["budget_failed"]
    assert "toolu_p0" in compactor.events[0].detail


def test_a_manual_compact_without_a_model_names_what_is_missing(store):
    with pytest.raises(ValueError, match="client and transcript_dir"):
        Compactor(store=store).compact(session(2))


def test_the_chapters_own_layers_plug_into_the_list_each_with_its_settings(store, tmp_path):
    """Chapter 06 runs chapter 03's budget, 04's snip and 05's micro in the package's pipeline."""
    mine = [
        Budget(max_chars=10_000, run=built.budget),
        Snip(max_messages=20, keep_to=12, run=built.snip),
        Micro(trigger=0.0, clear_at_least=0, run=built.micro),
    ]
    messages = parallel_reads(session(30, chars=700), [30_000])
    compactor = Compactor(mine, store=store, transcript_dir=tmp_path / "t")
    out = compactor.prepare(messages)
    validate(out)
    assert len(out) <= 12 and [e.kind for e in compactor.events] == ["budget", "snip", "micro"]
    assert "<0>" + "y" * 30_000 in bytes_on_disk(store.root)
