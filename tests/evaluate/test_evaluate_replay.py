"""The replay engine: one strategy over one session, turn by turn, with tokens, cost and probes measured."""

from __future__ import annotations

import json
import re

import anthropic
import pytest

from compaction.__main__ import main
from compaction.agent.backend import DEFAULT_MODEL, connect
from compaction.agent.loop import SAMPLE_WINDOW
from compaction.core.messages import assistant, text, tool_result, tool_use, user, validate
from compaction.evaluate.compare import (
    COLUMNS,
    DATA,
    Session,
    goal,
    headline,
    losses,
    offline_session,
    recorded_session,
    row,
    run,
)
from compaction.evaluate.notes import split
from compaction.evaluate.probes import Probe, save_probes
from compaction.evaluate.replay.engine import replay as engine_replay
from compaction.evaluate.replay.engine import replay_messages
from compaction.evaluate.replay.live import _refusal, replay_offline
from compaction.evaluate.replay.turns import keep_final, turn_slices
from compaction.evaluate.strategies import STRATEGIES, build


def long_session(turns: int = 30) -> list[dict]:
    """A session whose first result holds an error, followed by many large outputs."""
    session = [user("Find the failing test. Never edit the tests.")]
    for i in range(turns):
        session.append(
            assistant(text(f"Step {i}."), tool_use(f"toolu_{i:03d}", "bash", {"command": f"cat log{i}.txt"}))
        )
        trace = "Traceback (most recent call last):\n" + '  File "handlers.py", line 12, in load\n' * 4
        body = trace + "KeyError: 'user_id'" if i == 0 else f"line of log {i} " * 60
        session.append(user(tool_result(f"toolu_{i:03d}", body)))
    session.append(assistant(text("Done.")))
    validate(session)
    return session


PROBES = [
    Probe("error", "recall", "Which error came up first?", ("KeyError: 'user_id'",)),
    Probe("rule", "instruction", "What may not be edited?", ("Never edit the tests",)),
    Probe("last", "continuation", "What was read last?", ("cat log29.txt",)),
    Probe("future", "recall", "Something that never happens", ("no such text",)),
]


def test_turn_slices_end_with_each_user_message():
    session = long_session(3)
    assert turn_slices(session) == [(0, 1), (1, 3), (3, 5), (5, 7)]


def test_none_keeps_everything_and_says_where_it_would_overflow():
    r = replay_messages(long_session(), "none", window=4_000, probes=PROBES)
    assert r.outcome.startswith("over the window from turn ")
    assert r.removed < 0.01 and r.score.share == 1.0
    assert r.unreached == []  # "future" is not in the session: neither reached nor scored
    assert "future" not in r.score.answered + r.score.missed
    assert r.cost.breaks == 0 and r.cost.sent > r.peak


def test_a_run_that_came_to_the_end_reached_every_probe_even_one_only_the_last_answer_holds():
    done = Probe("done", "continuation", "How did it end?", ("Done.",))  # only in the last answer
    for strategy in ("none", "pipeline"):
        r = replay_messages(long_session(12), strategy, window=200_000, probes=[*PROBES, done])
        assert r.outcome.endswith(" turns") and r.unreached == [], strategy
        assert "done" in r.score.answered  # the last answer, as it came, is in the final context


def test_masking_loses_the_old_error_and_the_replay_names_the_pass():
    r = replay_messages(long_session(), "masking 3", window=4_000, probes=PROBES)
    assert r.score.missed == ["error"]
    assert r.lost["error"][1] == "micro"  # masking is micro on every call
    assert losses(r) == {"micro": ["error"]}
    assert r.final_tokens < r.full_tokens and r.peak <= 4_000


def test_the_pipeline_stays_in_the_window_with_summaries_on_disk():
    r = replay_messages(long_session(), "pipeline", window=4_000, probes=PROBES)
    assert not r.outcome.startswith("refused"), r.outcome
    assert r.peak <= 4_000
    assert sum(r.counts.values()) > 0 and sum(r.left_by_layer().values()) > 0
    assert all(not path.startswith("/") for path in r.saved)


def test_a_strategy_that_cannot_fit_is_refused_like_the_api_would():
    session = long_session()
    session[0] = user("Find the failing test. Never edit the tests. " + "context " * 3_000)
    r = replay_messages(session, "masking 3", window=2_000, probes=PROBES)
    assert r.outcome.startswith("refused at turn 1: the first message alone is ") and r.turns == 0
    assert r.outcome.endswith("over the window of 2,000 tokens")
    # every probe the session holds was ahead of the refusal: not reached, counted as lost
    assert set(r.unreached) == {"error", "rule", "last"} and r.score.share == 0


def test_a_summary_that_cannot_be_made_refuses_the_run_with_the_reason_and_no_negative_size():
    r = replay_messages(long_session(), "summary only", window=300, probes=PROBES)
    assert r.outcome.startswith("refused at turn "), r.outcome
    reason = r.outcome.split(": ", 1)[1]
    assert "summary" in reason and not re.search(r"[\s(]-\d", reason), reason
    refused_at = int(r.outcome.split()[3].rstrip(":"))
    assert r.turns == refused_at - 1
    assert set(r.unreached) <= {"error", "rule", "last"} and len(r.score.answered) + len(r.score.missed) == 3


def test_a_replay_is_deterministic():
    a = replay_messages(long_session(), "summary only", window=4_000, probes=PROBES)
    b = replay_messages(long_session(), "summary only", window=4_000, probes=PROBES)
    assert (a.final, a.cost.units, a.peak, a.lost) == (b.final, b.cost.units, b.peak, b.lost)


def test_unknown_strategies_are_refused_with_the_known_names(tmp_path):
    with pytest.raises(ValueError, match="choose one of: none, masking 3"):
        build("magic", window=1_000, client=None, folder=tmp_path)


def test_the_live_offline_agent_compacted_sends_less_but_breaks_the_cache():
    probes = [Probe("rule", "instruction", "Where are bugs fixed?", ("not in the tests",))]
    none = replay_offline("none", turns=30, window=4_000, probes=probes)
    pipeline = replay_offline("pipeline", turns=30, window=4_000, probes=probes)
    assert none.outcome.startswith("over the window from turn")
    assert pipeline.outcome == "30 turns" and pipeline.peak <= 4_000
    assert pipeline.cost.sent < none.cost.sent and pipeline.removed > 0.5
    assert none.cost.breaks == 0 < pipeline.cost.breaks  # every compaction re-writes the cache after it
    assert pipeline.score.share == 1.0 and pipeline.progress is not None
    row = headline([none, pipeline], "offline 30 turns")
    assert row.startswith("default pipeline, offline 30 turns: probes 100% (artifacts -), tokens removed ")
    checks = {criterion: met for criterion, _, met in goal([none, pipeline], "offline 30 turns")}
    assert list(checks)[:3] == ["probes kept >= 90%", "recall kept >= 80%", "decision kept >= 80%"]
    assert checks["probes kept >= 90%"] and checks["recall kept >= 80%"]  # no recall probe: nothing lost
    assert checks["cost <= 50% of none"] == (pipeline.cost.units <= none.cost.units / 2)


def test_final_contexts_are_written_as_json(tmp_path):
    r = replay_messages(long_session(5), "masking 3", window=4_000, label="s 1")
    path = keep_final(r, tmp_path)
    assert path.name == "s_1-masking_3.json" and json.loads(path.read_text()) == r.final


def test_run_visits_every_strategy_of_every_session():
    session = Session("tiny", PROBES[:2], messages=long_session(4), window=4_000)
    seen = []
    replays = run([session], STRATEGIES, on_done=lambda r: seen.append(r.strategy))
    recorded = [s for s in STRATEGIES if not split(s)[1]]  # a recording takes no notes: memory runs live
    assert seen == recorded and len(replays) == len(recorded) < len(STRATEGIES)


def test_the_command_scores_any_session_with_its_probe_file(tmp_path, capsys):
    session_file = tmp_path / "s.jsonl"
    lines = [json.dumps({"type": m["role"], "message": m}) for m in long_session(12)]
    session_file.write_text("\n".join(lines), encoding="utf-8")
    probes = save_probes(PROBES[:3], tmp_path / "p.json")
    code = main([
        "evaluate", "--session", str(session_file), "--probes", str(probes), "--window", "3000",
        "--strategy", "none", "--strategy", "masking 3", "--save-final", str(tmp_path / "out"),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "s (window 3,000; 3 probes)" in out and "masking 3" in out
    assert "not reached: probes about work a refused run never got to, counted as lost" in out  # legend
    last = out.rstrip().splitlines()[-1]
    assert last == "default pipeline, s: not measured (run it with the 'pipeline' strategy)"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s-masking_3.json", "s-none.json"]


def test_the_command_refuses_a_bad_probe_file_naming_it(tmp_path, capsys):
    session_file = tmp_path / "s.jsonl"
    session_file.write_text(json.dumps({"type": "user", "message": user("hi")}), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text('{"probes": [{"id": "x", "kind": "gossip", "question": "q", "evidence": ["a"]}]}')
    assert main(["evaluate", "--session", str(session_file), "--probes", str(bad)]) == 2
    assert "bad.json: probe 0 (x): kind 'gossip'" in capsys.readouterr().err  # problems on stderr
    assert main(["evaluate", "--probes", str(bad)]) == 2


def test_the_command_at_a_tiny_window_says_why_each_strategy_was_refused_on_stderr(tmp_path, capsys):
    session_file = tmp_path / "s.jsonl"
    lines = [json.dumps({"type": m["role"], "message": m}) for m in long_session(12)]
    session_file.write_text("\n".join(lines), encoding="utf-8")
    code = main(["evaluate", "--session", str(session_file), "--window", "5", "--strategy", "summary only"])
    captured = capsys.readouterr()
    assert code == 0
    assert "s: summary only refused at turn 1: the first message alone is " in captured.err
    assert "refused at turn 1" in captured.out  # the table's outcome column


def test_the_tables_stay_within_120_columns_and_refusal_reasons_go_under_them(tmp_path, capsys):
    session_file = tmp_path / "s.jsonl"
    lines = [json.dumps({"type": m["role"], "message": m}) for m in long_session(12)]
    session_file.write_text("\n".join(lines), encoding="utf-8")
    names = ("none", "masking 3", "pipeline, cache-blind", "summary only")
    strategies = [a for s in names for a in ("--strategy", s)]
    assert main(["evaluate", "--session", str(session_file), "--window", "5", *strategies]) == 0
    out = capsys.readouterr().out
    tables = out.split("probes)\n", 1)[1].split("\nrefused at turn N")[0]  # the legend is wrapped prose
    rows = [line for line in tables.splitlines() if line.startswith(("strategy ", *names))]
    rows = [line for line in rows if ": " not in line]  # not the refusals under the tables
    assert len(rows) == 2 * (1 + 4) and max(len(line) for line in rows) <= 120, max(rows, key=len)
    reason = "summary only: refused at turn 1: the first message alone is "
    assert reason in " ".join(out.split())  # under the tables, where a long reason does not widen a column
    assert all("the first message alone" not in row for row in rows)


def test_a_refused_default_pipeline_gets_its_refusal_as_the_last_line_not_figures(tmp_path, capsys):
    session_file = tmp_path / "s.jsonl"
    lines = [json.dumps({"type": m["role"], "message": m}) for m in long_session(12)]
    session_file.write_text("\n".join(lines), encoding="utf-8")
    code = main(["evaluate", "--session", str(session_file), "--window", "5", "--strategy", "none",
                 "--strategy", "pipeline"])  # fmt: skip
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert code == 0
    assert last.startswith("default pipeline, s: refused at turn 1: the first message alone is ")
    assert "removed" not in last and "of none" not in last  # a run cut short compares with nothing


@pytest.mark.parametrize(("option", "value", "said"), [
    ("--window", "0", "window must be a positive integer, got 0"),  # was: the default window, in silence
    ("--window", "-5", "window must be a positive integer, got -5"),  # was: a traceback
    ("--probes", "absent.json", "absent.json: no such probe file"),  # was: the probes found, in silence
])  # fmt: skip
def test_a_bad_window_or_a_missing_probe_file_exits_2_naming_it(tmp_path, capsys, option, value, said):
    session_file = tmp_path / "s.jsonl"
    lines = [json.dumps({"type": m["role"], "message": m}) for m in long_session(3)]
    session_file.write_text("\n".join(lines), encoding="utf-8")
    code = main(["evaluate", "--session", str(session_file), "--strategy", "none", option, value])
    captured = capsys.readouterr()
    assert code == 2 and said in " ".join(captured.err.split())
    assert captured.out == ""  # nothing was replayed


def test_the_command_names_a_file_that_is_no_session_by_the_path_given(tmp_path, capsys):
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 10_000 + "]" * 10_000 + "\n")
    assert main(["evaluate", "--session", str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {deep}: not a session: ") and "nested deeper than" in err


def test_asking_the_model_needs_the_real_api(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("COMPACTION_BACKEND", raising=False)
    assert main(["evaluate", "--quick", "--ask-model"]) == 2
    assert "--ask-model needs the real API" in capsys.readouterr().err  # errors on stderr


def test_a_refusal_by_the_api_is_told_in_the_apis_words_not_the_sdks_error_repr():
    client = connect(context_window=1_000)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(model=DEFAULT_MODEL, max_tokens=16, messages=[user("word " * 3_000)])
    reason = _refusal(caught.value)
    assert re.fullmatch(r"prompt is too long: \d+ tokens > 1000 maximum", reason), reason
    assert _refusal(RuntimeError("the server went away")) == "the server went away"


def test_the_default_pipeline_meets_every_goal_on_the_150_turn_session():
    """Issue 20's figures: chapter 13 and the README quote them; a change that loses one fails here."""
    session = offline_session(150)
    none, pipeline = session.replay("none"), session.replay("pipeline")
    unmet = [
        (criterion, measured) for criterion, measured, met in goal([none, pipeline], session.label) if not met
    ]
    assert not unmet
    assert pipeline.cost.units <= 0.5 * none.cost.units and pipeline.score.share >= 0.9


@pytest.mark.parametrize("strategy", ["none", "pipeline"])
def test_evaluate_and_replay_count_the_tokens_sent_alike(tmp_path, strategy):
    """One count for both: evaluate said 8,062,304 tokens sent by none where replay said 763,041."""
    session = long_session()
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    evaluated = recorded_session(path, window=4_000).replay(strategy)
    replayed = engine_replay(
        session, strategy, window=4_000, workdir=tmp_path / "w", client=connect(context_window=SAMPLE_WINDOW)
    )
    assert evaluated.cost.sent == replayed.cost.sent
    assert evaluated.cost.units == pytest.approx(replayed.cost.units)
    if strategy == "none":  # the reference: past the window too, and each table says so
        assert replayed.over_window and evaluated.outcome == replayed.outcome
        assert replayed.cost.sent == sum(t.tokens for t in replayed.turns)
        assert row(evaluated, [evaluated])[COLUMNS.index("probes")].endswith("*")


@pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")
def test_the_shared_mini_swe_agent_session_costs_the_same_in_evaluate_and_replay(tmp_path):
    path = DATA / "mini-swe-agent" / "sqlfluff__sqlfluff-1733.traj.json"
    evaluated = recorded_session(path)
    none = evaluated.replay("none")
    client = connect(context_window=SAMPLE_WINDOW)
    replayed = engine_replay(
        evaluated.messages, "none", window=evaluated.window, workdir=tmp_path, client=client
    )
    assert none.outcome.startswith("over the window from turn")
    assert none.cost.sent == replayed.cost.sent > 5_000_000  # the whole uncompacted session, 158 requests
