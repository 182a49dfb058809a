"""Probes found automatically: the user's constraints, every file modified, errors, reasons, the last call."""

from __future__ import annotations

from compaction.evaluate.find import added_line, find_probes, piece
from compaction.evaluate.probes import score
from compaction.messages import assistant, text, tool_result, tool_use, user

SESSION = [
    user("Please fix the date parser. Do not change the public API.\nKeep the tests as they are."),
    assistant(text("Reading the parser."), tool_use("toolu_1", "read_file", {"path": "dates.py"})),
    user(tool_result("toolu_1", "def parse(s):\n    return s")),
    assistant(tool_use("toolu_2", "bash", {"command": "python -m pytest"})),
    user(
        tool_result(
            "toolu_2",
            "FAILED test_dates.py::test_iso\nValueError: month must be in 1..12\n1 failed, 4 passed",
            is_error=True,
        )
    ),
    assistant(
        text("Found it: the month is read before the day, because the format string is swapped."),
        tool_use(
            "toolu_3",
            "edit_file",
            {"path": "dates.py", "old_text": "return s", "new_text": "return s\n    fmt = '%Y-%m-%d'"},
        ),
    ),
    user(tool_result("toolu_3", "edited dates.py")),
    assistant(tool_use("toolu_4", "bash", {"command": "python -m pytest -q"})),
    user(tool_result("toolu_4", "5 passed")),
]


def by_kind(probes):
    out = {}
    for p in probes:
        out.setdefault(p.kind, []).append(p)
    return out


def test_every_kind_is_found_and_the_whole_session_answers_them():
    probes = find_probes(SESSION)
    kinds = by_kind(probes)
    assert set(kinds) == {"instruction", "artifact", "recall", "decision", "continuation"}
    assert score(probes, SESSION).missed == []
    assert [p.evidence for p in kinds["instruction"]] == [("Do not change the public API.",)]
    assert kinds["artifact"][0].evidence == ("dates.py", "fmt = '%Y-%m-%d'")
    assert ("ValueError: month must be in 1..12",) in [p.evidence for p in kinds["recall"]]
    assert kinds["decision"][0].evidence == ("Found it: the month is read before the day, because the",)
    assert kinds["continuation"][0].evidence == ("python -m pytest -q",)


def test_a_context_that_dropped_the_edit_misses_the_artifact():
    probes = [p for p in find_probes(SESSION) if p.kind == "artifact"]
    assert score(probes, SESSION[:1] + SESSION[-2:]).missed == [probes[0].id]


def test_swe_agent_edits_name_the_file_opened_last():
    session = [
        user("Fix it."),
        assistant(tool_use("a1", "bash", {"command": "open src/app.py"})),
        user(tool_result("a1", "[File: src/app.py (3 lines total)]")),
        assistant(tool_use("a2", "bash", {"command": "edit 2:2\n    return value + 1\nend_of_edit"})),
        user(tool_result("a2", "[File: src/app.py (3 lines total)]")),
    ]
    artifacts = [p for p in find_probes(session) if p.kind == "artifact"]
    assert [p.evidence for p in artifacts] == [("src/app.py", "return value + 1")]


def test_limits_cap_each_kind():
    many = [user(" ".join(f"Never do thing number {i}." for i in range(9)))]
    assert len(find_probes(many)) == 5
    assert len(find_probes(many, {"instruction": 2})) == 2


def test_evidence_is_a_short_piece_cut_at_a_word():
    assert piece("one two three four", 9) == "one two"
    assert piece("  spaced\n out  ") == "spaced out"
    assert added_line({"old_text": "a = 1", "new_text": "a = 1\nb = 22"}) == "b = 22"
    assert added_line({"content": "x = 1\n"}) == "x = 1"
