"""Probes: loaded from JSON anyone can write, answered from the text of a context, scored by kind."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from compaction.agent.loop import sample_session
from compaction.core.messages import assistant, blocks, text, text_of, tool_result, tool_use, user
from compaction.evaluate.compare import DATA, MIN_PROBES, PROBES
from compaction.evaluate.probes import (
    KINDS,
    ContextTexts,
    Probe,
    ProbeError,
    answers,
    context_text,
    load_probes,
    normalized,
    probe,
    save_probes,
    score,
)
from compaction.importers import sessions_in
from compaction.levels.checkpoint import files_modified


def write(tmp_path: Path, data) -> Path:
    path = tmp_path / "probes.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


CONTEXT = [
    user("Fix the parser. Do NOT touch the tests."),
    assistant(text("Reading it."), tool_use("toolu_1", "read_file", {"path": "parser.py"})),
    user(tool_result("toolu_1", "     1\tdef parse(s):\n     2\t    return  s.split(',')")),
    assistant(tool_use("toolu_2", "edit_file", {"path": "parser.py", "old_text": "a", "new_text": "b + 1"})),
    user(tool_result("toolu_2", "ValueError: bad input", is_error=True)),
]


def test_a_probe_file_round_trips(tmp_path):
    probes = [
        Probe("p1", "recall", "Which error?", ("ValueError: bad input",)),
        Probe("p2", "artifact", "Q", ("a", {"any": ["x", "y"]})),
    ]
    assert load_probes(save_probes(probes, tmp_path / "p.json", session="s")) == probes


def test_a_bare_list_is_a_probe_file_too(tmp_path):
    path = write(tmp_path, [{"id": "a", "kind": "decision", "question": "why?", "evidence": ["because"]}])
    assert [p.id for p in load_probes(path)] == ["a"]


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"id": "a", "kind": "memory", "question": "q", "evidence": ["x"]}, "kind 'memory' is not one of"),
        (
            {"id": "a", "kind": "recall", "question": "q", "evidence": []},
            "'evidence' must be a non-empty list",
        ),
        (
            {"id": "a", "kind": "recall", "question": "", "evidence": ["x"]},
            "'question' must be a non-empty string",
        ),
        ({"id": "a", "kind": "recall", "question": "q", "evidence": [{"regex": "("}]}, "bad regex"),
        (
            {"id": "a", "kind": "recall", "question": "q", "evidence": [{"all": ["x"]}]},
            'expected a string, {"any"',
        ),
        ({"id": "a", "kind": "recall", "question": "q", "evidence": [3]}, "evidence 0"),
        ({"id": "a", "kind": "recall", "question": "q", "evidence": [{"any": [" "]}]}, "expected a string"),
        (
            {"id": "a", "kind": "recall", "question": "q", "evidence": [{"regex": "x*"}]},
            "matches empty text, so any context answers it",
        ),
    ],
)
def test_a_bad_probe_is_refused_naming_file_probe_and_field(tmp_path, item, message):
    good = {"id": "ok", "kind": "recall", "question": "q", "evidence": ["x"]}
    path = write(tmp_path, {"probes": [good, item]})
    with pytest.raises(ProbeError, match="probes.json: probe 1") as caught:
        load_probes(path)
    assert message in str(caught.value)


def test_a_file_that_is_not_json_names_the_line(tmp_path):
    path = tmp_path / "p.json"
    path.write_text('{"probes": [\n  {"id": "a",,}\n]}', encoding="utf-8")
    with pytest.raises(ProbeError, match="line 2"):
        load_probes(path)


def test_ids_are_unique_in_a_file(tmp_path):
    item = {"id": "same", "kind": "recall", "question": "q", "evidence": ["x"]}
    with pytest.raises(ProbeError, match="'same' is used twice"):
        load_probes(write(tmp_path, {"probes": [item, item]}))


def test_evidence_is_matched_without_case_extra_spaces_or_line_numbers():
    text = context_text(CONTEXT)
    assert answers(
        text, probe({"id": "a", "kind": "recall", "question": "q", "evidence": ["do not touch THE tests"]})
    )
    assert answers(
        text,
        probe({"id": "b", "kind": "recall", "question": "q", "evidence": ["def parse(s): return s.split"]}),
    )
    assert answers(
        text, probe({"id": "c", "kind": "artifact", "question": "q", "evidence": ["parser.py", "b + 1"]})
    )
    assert not answers(
        text, probe({"id": "d", "kind": "artifact", "question": "q", "evidence": ["parser.py", "b + 2"]})
    )


def test_any_and_regex_evidence():
    text = context_text(CONTEXT)
    hit = probe(
        {"id": "a", "kind": "recall", "question": "q", "evidence": [{"any": ["KeyError", "ValueError"]}]}
    )
    miss = probe(
        {"id": "b", "kind": "recall", "question": "q", "evidence": [{"any": ["KeyError", "TypeError"]}]}
    )
    pattern = probe({"id": "c", "kind": "recall", "question": "q", "evidence": [{"regex": r"\w+error: bad"}]})
    assert answers(text, hit) and not answers(text, miss) and answers(text, pattern)


def test_score_counts_by_kind_and_names_what_was_missed():
    probes = [
        Probe("err", "recall", "q", ("ValueError",)),
        Probe("gone", "recall", "q", ("KeyError",)),
        Probe("rule", "instruction", "q", ("do not touch the tests",)),
    ]
    result = score(probes, CONTEXT)
    assert result.answered == ["err", "rule"] and result.missed == ["gone"]
    assert result.kinds == {"recall": (1, 2), "instruction": (1, 1)}
    assert result.by_kind("recall") == 0.5 and result.by_kind("artifact") is None
    assert result.share == pytest.approx(2 / 3)
    assert score([], CONTEXT).share == 1.0


def test_a_context_that_lost_the_result_misses_the_error():
    cleared = CONTEXT[:4] + [user(tool_result("toolu_2", "[Old tool result cleared: edit_file]"))]
    assert score([Probe("err", "recall", "q", ("ValueError: bad input",))], cleared).missed == ["err"]


@pytest.mark.parametrize("turns", [40, 80, 150])
def test_the_offline_probe_sets_fit_the_uncompacted_session(turns):
    probes = load_probes(PROBES / f"offline-{turns}.json")
    session = sample_session(turns)
    assert len(probes) >= 20
    assert {p.kind for p in probes} == set(KINDS)
    assert score(probes, session).missed == []  # every probe is answered by the whole session
    artifacts = " ".join(" ".join(map(str, p.evidence)) for p in probes if p.kind == "artifact")
    for entry in files_modified(session):  # "path (line 3, ...)": every file modified has a probe
        assert entry.split(" (")[0] in artifacts, entry


SESSIONS = sessions_in(DATA)


def load_probes_or_none(name: str) -> list[Probe]:
    """The probe set of a shared session file, [] when it has none."""
    path = PROBES / f"{Path(name).stem}.json"
    return load_probes(path) if path.is_file() else []


@pytest.mark.skipif(not SESSIONS, reason=f"the shared sessions are not at {DATA}")
@pytest.mark.parametrize("name", [name for name, _ in SESSIONS])
def test_every_shared_session_has_a_probe_file_that_it_answers(name):
    session = dict(SESSIONS)[name]
    probes = load_probes(PROBES / f"{Path(name).stem}.json")
    assert probes, name
    assert score(probes, session).missed == []
    artifacts = " ".join(" ".join(map(str, p.evidence)) for p in probes if p.kind == "artifact")
    for entry in files_modified(session):
        assert entry.split(" (")[0] in artifacts, entry


def all_parts_normalized(messages):
    """The definition of a context's text: every part of every message, joined, then normalized."""
    parts = []
    for m in messages:
        for b in blocks(m):
            if b.get("type") == "text":
                parts.append(b["text"])
            elif b.get("type") == "tool_use":
                parts.append(" ".join([b["name"], *map(str, b["input"].values())]))
            elif b.get("type") == "tool_result":
                parts.append(re.sub(r"(?m)^ *\d+\t", "", text_of(b["content"])))
    return normalized("\n".join(parts))


EDGES = [
    user("  Leading and trailing  "),
    assistant(text("ΟΔΟΣ"), tool_use("t1", "bash", {"command": "ls  -la\n"})),
    user(tool_result("t1", "   \n  "), text("after an empty result")),
    assistant("x"),
    user(tool_result("t3", " \n ")),
    assistant("y"),
    user(tool_result("t2", "  1\tline one\n  2\tline two")),
]


@pytest.mark.parametrize("name", ["edges", *[n for n, _ in sessions_in(DATA)]])
def test_context_text_is_every_part_joined_and_normalized_and_the_cache_agrees(name):
    messages = EDGES if name == "edges" else dict(sessions_in(DATA))[name]
    texts = ContextTexts()
    assert context_text(messages) == all_parts_normalized(messages)
    assert texts(messages) == context_text(messages)
    shorter = messages[: len(messages) // 2]
    assert texts(shorter) == context_text(shorter)  # the cached texts serve another list


REAL = [(name, messages) for name, messages in SESSIONS if len(load_probes_or_none(name)) >= MIN_PROBES]


@pytest.mark.skipif(not SESSIONS, reason=f"the shared sessions are not at {DATA}")
@pytest.mark.parametrize("name", [name for name, _ in REAL])
def test_a_real_sessions_probe_set_asks_about_the_whole_session_not_only_its_task(name):
    """A reviewer asks recall, artifact and decision probes from all over the session, few about the task."""
    session = dict(SESSIONS)[name]
    probes = load_probes(PROBES / f"{Path(name).stem}.json")
    texts = [context_text(session[: i + 1]) for i in range(len(session))]
    first_answered = [next(i for i, t in enumerate(texts) if answers(t, p)) for p in probes]
    assert {"recall", "artifact", "decision"} <= {p.kind for p in probes}
    assert sum(at == 0 for at in first_answered) <= len(probes) // 2, "most probes only ask about the task"
    assert max(first_answered) >= 2 * len(session) // 3, "no probe about the last third of the session"
    assert sorted(first_answered)[len(probes) // 2] > 0
