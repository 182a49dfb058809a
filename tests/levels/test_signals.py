"""When to compact: each signal, its action, its notice, and a watcher that tells before it acts."""

from __future__ import annotations

import copy

import pytest
from conversations import Call, Turn, build_session

from compaction.core.messages import validate
from compaction.core.store import OutputStore
from compaction.course.checks.levels import fix_session, sample_grep
from compaction.levels.signals import ACTIONS, SignalWatcher, condense_outputs, detect_signals
from compaction.pipeline.hooks import Hooks


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return fix_session(tmp_path_factory.mktemp("ws"))


def kinds(messages, **kw):
    return [s.kind for s in detect_signals(messages, **kw)]


def test_every_signal_maps_to_one_of_the_actions_of_the_guide():
    assert ACTIONS == {
        "long_session": "consider",
        "repetition": "compact_now",
        "already_discussed": "compact_now",
        "phase_transition": "summarize_phase",
        "large_output": "condense_output",
    }


def test_twenty_turns_suggest_compacting_once_at_the_twentieth():
    short = build_session([Turn([Call("read_file")]) for _ in range(19)])
    long = build_session([Turn([Call("read_file")]) for _ in range(25)])
    assert "long_session" not in kinds(short)
    found = [s for s in detect_signals(long) if s.kind == "long_session"]
    assert len(found) == 1 and found[0].turn == 19 and found[0].action == "consider"


def test_a_compacted_list_still_counts_the_turns_that_really_ran():
    short = build_session([Turn([Call("read_file")]) for _ in range(3)])
    assert "long_session" not in kinds(short, turns_run=19)
    (signal,) = [s for s in detect_signals(short, turns_run=20) if s.kind == "long_session"]
    assert signal.index == len(short) - 1


def test_the_same_tool_call_twice_with_no_edit_between_is_a_repetition():
    same = {"command": "grep -rn token src"}
    messages = build_session([Turn([Call("bash", "x", input=same)]), Turn([Call("bash", "x", input=same)])])
    (signal,) = [s for s in detect_signals(messages) if s.kind == "repetition"]
    assert signal.index == 3 and "bash call it made at message 1" in signal.notice


def test_reading_a_file_again_after_editing_it_is_no_repetition():
    read = {"path": "src/a.py"}
    plan = [
        Turn([Call("read_file", input=read)]),
        Turn([Call("edit_file", input={"path": "src/a.py", "old_text": "a", "new_text": "b"})]),
        Turn([Call("read_file", input=read)]),
    ]
    assert "repetition" not in kinds(build_session(plan))


def test_proposing_the_same_fix_again_is_a_repetition_but_a_fix_of_another_file_is_not():
    say = "The range in ngrams() stops one short; I will change textstats/ngrams.py line 14."
    other = "The range in counts() stops one short; I will change textstats/counts.py line 14."
    assert "repetition" in kinds(build_session([Turn(say=say), Turn(say=say)]))
    assert "repetition" not in kinds(build_session([Turn(say=say), Turn(say=other)]))


def test_the_user_saying_it_was_already_discussed_means_compact_now():
    messages = build_session([Turn([Call("read_file")], note="We already discussed this, move on.")])
    (signal,) = [s for s in detect_signals(messages) if s.kind == "already_discussed"]
    assert signal.action == "compact_now" and "already discussed" in signal.notice


def test_a_finished_phase_is_a_transition_with_the_guides_notice(session):
    found = [s for s in detect_signals(session) if s.kind == "phase_transition"]
    assert found[0].notice == "Summarizing the finished research phase to keep the context focused."
    assert all(s.action == "summarize_phase" for s in found)


def test_an_output_of_500_lines_asks_to_be_condensed_and_499_does_not():
    def session_with(lines):
        output = "\n".join(f"src/a.py:{n}:x" for n in range(1, lines + 1))
        return build_session([Turn([Call("bash", output, input={"command": "grep -rn x src"})])])

    assert "large_output" in kinds(session_with(500))
    assert "large_output" not in kinds(session_with(499))
    (signal,) = detect_signals(session_with(2000))
    assert signal.notice == "Condensing a 2,000-line bash output; the full text is saved first."


def test_thresholds_are_checked_by_name():
    with pytest.raises(ValueError, match="max_turns"):
        detect_signals([], max_turns=0)


# ---------------------------------------------------------------- the watcher


def test_condense_outputs_saves_the_full_text_then_condenses_it(tmp_path):
    grep = sample_grep()
    messages = build_session([Turn([Call("bash", grep, input={"command": "grep -rn token src"})])])
    before = copy.deepcopy(messages)
    store = OutputStore(tmp_path)
    out = condense_outputs(messages, store=store)
    validate(out)
    assert messages == before
    body = out[2]["content"][0]["content"]
    assert "saved at tool-results/" in body and len(body) < len(grep) / 5
    assert store.load(messages[1]["content"][1]["id"]) == grep


def test_the_watcher_reports_each_signal_once_and_before_it_acts(session, tmp_path):
    log = []  # (files on disk when the user was told, signal kind)

    def tell(signal):
        log.append((len(list(tmp_path.iterdir())), signal.kind))

    watcher = SignalWatcher(transcript_dir=tmp_path, on_notice=tell)
    out = watcher.prepare(session)
    assert log and all(files == 0 for files, _ in log), "compaction started before the user was told"
    assert all(e.tokens_after < e.tokens_before for e in watcher.events), "acting shrinks the list"
    assert [s.kind for s in watcher.signals] == [k for _, k in log]
    assert (tmp_path / "transcript-0001.jsonl").exists(), "the transcript must be on disk"
    validate(out)
    assert len(out) < len(session)
    again = watcher.prepare(out)
    assert again == out and len(watcher.signals) == len(log), "a signal was reported twice"


def test_watcher_events_carry_the_model_call_they_preceded(session, tmp_path):
    watcher = SignalWatcher(transcript_dir=tmp_path, act=False)
    for end in range(1, len(session) + 1, 2):  # the lists the agent loop hands to prepare
        watcher.prepare(session[:end])
    first = next(s for s in watcher.signals if s.kind == "phase_transition")
    assert first.turn == 6, "the first edit is model call 5; the next prepare (call 6) reports it"
    event = next(e for e in watcher.events if e.kind == "phase_transition")
    assert (event.turn, event.detail) == (6, first.notice), "each signal is also an event for the plots"
    assert len(watcher.events) == len(watcher.signals)


def test_a_watcher_that_only_watches_returns_the_list_unchanged(session, tmp_path):
    watcher = SignalWatcher(transcript_dir=tmp_path, act=False)
    assert watcher.prepare(session) is session
    assert watcher.signals and not list(tmp_path.iterdir())


def test_the_watcher_runs_as_the_offline_agents_prepare_hook(tmp_path):
    pytest.importorskip("compaction.agent.backend", reason="the offline backend is not built yet")
    import warnings

    from compaction.agent.backend import connect
    from compaction.agent.loop import new_workspace, run_agent

    warnings.simplefilter("ignore", DeprecationWarning)
    watcher = SignalWatcher(transcript_dir=tmp_path / "transcripts")
    result = run_agent(
        connect(),
        workspace=new_workspace(tmp_path / "ws"),
        max_turns=30,
        hooks=Hooks(prepare=watcher.prepare),
    )
    assert result.error is None
    validate(result.messages)
    assert "phase_transition" in [s.kind for s in watcher.signals]
    assert any("phase complete" in str(m["content"]) for m in result.messages)
