"""The real-session table: which sessions count, figures pooled over them, the same goal lines as offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.console import Console

from compaction.core.messages import assistant, text, tool_result, tool_use, user, validate
from compaction.core.tokens import estimate_tokens
from compaction.evaluate import compare, real
from compaction.evaluate.cli import print_real
from compaction.evaluate.compare import MIN_PROBES, Session, real_sessions, run
from compaction.evaluate.probes import Probe, ProbeScore, save_probes


def session(turns: int, fact: str) -> list[dict]:
    """A bash session whose first result holds ``fact`` among other lines, then outputs that push it out."""
    out = [user("Find the bug. Do not edit the tests.")]
    first = "\n".join(
        [*(f"setting {k} loaded" for k in range(6)), fact, *(f"module {k} ready" for k in range(6))]
    )
    for i in range(turns):
        out.append(assistant(text(f"Step {i}."), tool_use(f"t{i}", "bash", {"command": f"cat part{i}.log"})))
        out.append(user(tool_result(f"t{i}", first if i == 0 else f"noise {i} " * 80)))
    out.append(assistant(text("Done.")))
    validate(out)
    return out


def probes(fact: str) -> list[Probe]:
    return [
        Probe("fact", "recall", "What did the first log say?", (fact,)),
        Probe("rule", "instruction", "What may not be edited?", ("Do not edit the tests",)),
        Probe("last", "continuation", "What was read last?", ("cat part11.log",)),
    ]


@pytest.fixture(scope="module")
def replays_and_sessions():
    sessions = [
        Session("a", probes("timeout = 1734 s"), messages=session(12, "timeout = 1734 s"), window=4_000),
        Session("b", probes("port = 5040"), messages=session(12, "port = 5040"), window=200_000),
    ]
    return run(sessions, ("none", "pipeline")), sessions


def test_pooled_counts_every_probe_once_and_sums_the_kinds():
    a, b = (
        ProbeScore(["x"], ["y"], {"recall": (1, 2)}),
        ProbeScore(["z"], [], {"recall": (0, 0), "artifact": (1, 1)}),
    )

    class R:  # the two fields pooled() reads
        def __init__(self, session, score):
            self.session, self.score = session, score

    score = real.pooled([R("s1", a), R("s2", b), R("s3", None)])
    assert score.answered == ["s1: x", "s2: z"] and score.missed == ["s1: y"]
    assert score.kinds == {"recall": (1, 2), "artifact": (1, 1)}
    assert score.share == pytest.approx(2 / 3) and score.by_kind("recall") == 0.5


def test_a_row_per_session_then_the_pooled_row(replays_and_sessions):
    replays, sessions = replays_and_sessions
    rows = real.rows(replays, sessions)
    assert [r[0] for r in rows] == ["a", "b", real.ALL]
    assert len(rows[0]) == len(real.COLUMNS)
    # a: a window of 4,000 tokens forces the first log out; b fits its window and keeps everything
    assert rows[0][3] == "2/3 67%" and rows[1][3] == "3/3 100%" and rows[2][3] == "5/6 83%"
    assert rows[0][-1].endswith(" 1") and rows[1][-1] == "-"  # "micro 1" or "summary 1": the pass named
    assert rows[2][2] == "2 sessions"


def test_the_goal_uses_the_offline_criteria_on_the_pooled_score(replays_and_sessions):
    replays, sessions = replays_and_sessions
    checks = real.goal(replays, sessions)
    assert [c[0] for c in checks] == [c[0] for c in compare.kept(ProbeScore(), real.REAL_GOAL)]
    assert checks[0] == ("probes kept >= 90%", "83%", False)
    assert checks[1] == ("recall kept >= 80%", "50%", False)
    assert checks[2][2] and checks[3][2]  # no decision or artifact probe: nothing to miss
    lost = real.lost_probes(replays, sessions)
    assert [ids for by_session in lost.values() for ids in by_session.items()] == [("a", ["fact"])]


def test_the_goal_is_met_at_exactly_its_shares():
    score = ProbeScore(
        [str(i) for i in range(9)], ["9"], {"recall": (4, 5), "decision": (4, 5), "artifact": (2, 2)}
    )
    assert all(met for _, _, met in compare.kept(score, real.REAL_GOAL))
    score.kinds["artifact"] = (1, 2)
    assert [met for _, _, met in compare.kept(score, real.REAL_GOAL)] == [True, True, True, False]


def test_the_headline_pools_and_names_what_is_missing(replays_and_sessions):
    replays, sessions = replays_and_sessions
    line = real.headline(replays, sessions)
    assert line.startswith(f"default pipeline, {real.ALL} (2): probes 83% (recall 50%), tokens removed ")
    assert "not measured" in real.headline([r for r in replays if r.strategy == "none"], sessions)


def test_the_printed_table_has_every_session_the_goal_and_the_lost_probes(replays_and_sessions):
    replays, sessions = replays_and_sessions
    console = Console(record=True, width=200)
    print_real(replays, sessions, console)
    out = console.export_text()
    assert "real sessions, default pipeline" in out and "all real sessions" in out
    assert "NOT met: probes kept >= 90% (measured: 83%)" in out
    assert "lost to " in out and "a: fact" in out


def write_session(folder: Path, name: str, turns: int) -> Path:
    path = folder / name
    lines = [json.dumps({"type": m["role"], "message": m}) for m in session(turns, "KeyError: 'alpha'")]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def test_real_sessions_are_those_with_a_probe_set_of_min_probes_and_unreadable_files_are_named(tmp_path):
    data, probe_folder = tmp_path / "data", tmp_path / "probes"
    data.mkdir(), probe_folder.mkdir()
    write_session(data, "work.jsonl", 12)
    write_session(data, "fixture.jsonl", 2)
    (data / "broken.jsonl").write_text("{not json\n{nor this\n", encoding="utf-8")
    many = [Probe(f"p{i}", "recall", "q", ("Step 1.",)) for i in range(MIN_PROBES)]
    save_probes(many, probe_folder / "work.json")
    save_probes(many[: MIN_PROBES - 1], probe_folder / "fixture.json")  # one short: a fixture, not scored
    save_probes(many, probe_folder / "broken.json")
    skipped: list = []
    found = real_sessions(data, skipped, probe_folder)
    assert [s.label for s in found] == ["work"] and len(found[0].probes) == MIN_PROBES
    assert [(p.name, bool(reason)) for p, reason in skipped] == [("broken.jsonl", True)]
    assert real_sessions(tmp_path / "absent", probe_folder=probe_folder) == []


def test_the_shared_folder_gives_every_real_session_and_no_fixture():
    if not compare.DATA.is_dir():
        pytest.skip(f"the shared sessions are not at {compare.DATA}")
    labels = {s.label for s in real_sessions()}
    assert {"rock-6", "BabyEncryption-4", "sqlfluff__sqlfluff-1733.traj", "humanevalfix-python-0-2"} <= labels
    assert not labels & {"edge_cases", "representative_messages", "session_b", "todowrite_examples"}


def test_a_session_that_fits_is_replayed_at_its_own_size_and_at_the_default_window():
    messages = session(12, "port = 5040")
    fits = real.fitting([Session("s", probes("port = 5040"), messages=messages, window=4_000)])
    size = estimate_tokens(messages, "tiktoken")
    assert [f.window for f in fits] == [max(size + real.ROOM, 4_000), real.DEFAULT_WINDOW]
    assert [f.label for f in fits] == [f"s at {fits[0].window:,}", "s at 200,000"]
    assert all(f.messages is messages for f in fits)


def test_compaction_paid_only_when_cheaper_than_none_and_nothing_lost(replays_and_sessions):
    replays, _ = replays_and_sessions
    by = {(r.session, r.strategy): r for r in replays}
    untouched, squeezed = by[("b", "pipeline")], by[("a", "pipeline")]
    assert not any(untouched.counts.values()) and real.verdict(untouched, replays) == "untouched"
    assert any(squeezed.counts.values())
    share = real.cost_share([squeezed], replays)
    lost = bool(compare.losses(squeezed))
    assert real.verdict(squeezed, replays) == ("did not pay" if lost or share > 1 else "paid")
    rows = real.paid_rows(replays, [Session("a at 4,000", [], window=4_000)])
    assert rows == []  # only runs of the sessions named are rows


def test_a_fitting_row_names_what_the_default_did_and_whether_it_paid():
    messages = session(12, "timeout = 1734 s")
    fits = real.fitting([Session("s", probes("timeout = 1734 s"), messages=messages, window=4_000)])
    replays = run(fits, ("none", "pipeline"))
    rows = real.paid_rows(replays, fits)
    assert [r[:2] for r in rows] == [["s", f"{fits[0].window:,}"], ["s", "200,000"]]
    assert rows[1][2:] == ["nothing", "-", "100%", "untouched"]  # 200,000 tokens: nothing to do
    for r in rows:
        assert r[5] in ("paid", "did not pay", "untouched")
