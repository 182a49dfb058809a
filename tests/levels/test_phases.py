"""Level 2, where a phase of work ends: steps, their kinds, and the three rules."""

from __future__ import annotations

import pytest
from conversations import Call, Turn, build_session

from compaction.course.checks.levels import fix_session
from compaction.levels.phases import action_of, detect_phases, suite_status


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return fix_session(tmp_path_factory.mktemp("ws"))


# ---------------------------------------------------------------- reading steps


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        ("read_file", {"path": "a.py"}, ("read", "a.py")),
        ("Read", {"file_path": "a.py"}, ("read", "a.py")),
        ("edit_file", {"path": "a.py"}, ("edit", "a.py")),
        ("glob", {"pattern": "**/*.py"}, ("search", None)),
        ("bash", {"command": "grep -rn x src"}, ("search", None)),
        ("bash", {"command": "python run_tests.py"}, ("test", None)),
        ("bash", {"command": 'grep -c "" run_tests.py'}, ("search", None)),
        ("bash", {"command": "python -m pytest -q"}, ("test", None)),
        ("bash", {"command": "cat setup.cfg"}, ("read", "setup.cfg")),
        ("bash", {"command": "python --version"}, ("other", None)),
        ("str_replace_based_edit_tool", {"command": "view", "path": "a.py"}, ("read", "a.py")),
        ("str_replace_based_edit_tool", {"command": "str_replace", "path": "a.py"}, ("edit", "a.py")),
        ("str_replace_editor", {"command": "create", "path": "b.py", "file_text": "x"}, ("edit", "b.py")),
    ],
)
def test_each_tool_call_is_a_kind_of_work_on_a_file(name, args, expected):
    assert action_of(name, args) == expected


def test_a_test_run_is_red_with_failures_green_with_only_passes_and_unknown_otherwise():
    assert suite_status("36 passed, 6 failed") == "red"
    assert suite_status("FAILED tests/a.py::test_x - AssertionError") == "red"
    assert suite_status("42 passed, 0 failed") == "green"
    assert suite_status("Ran 3 tests in 0.1s\n\nOK") == "green"
    assert suite_status("python: can't open file") is None


# ---------------------------------------------------------------- where phases end


def test_research_ends_at_the_first_edit_after_reads_and_searches(session):
    first = detect_phases(session)[0]
    assert (first.kind, first.reason) == ("research", "first edit after research")
    assert session[first.end]["content"][1]["name"] == "edit_file"


def test_a_phase_ends_after_the_test_run_that_turns_green(session):
    green = [p for p in detect_phases(session) if p.reason == "tests turned green"]
    assert green
    for phase in green:
        results = session[phase.end - 1]["content"]
        assert suite_status(results[0]["content"]) == "green"


def test_moving_on_to_another_file_starts_a_phase_where_that_file_is_first_read(session):
    moved = [p for p in detect_phases(session) if p.reason.startswith("moved on to")]
    assert [p.reason for p in moved] == ["moved on to textstats/readability.py"]
    nxt = session[moved[0].end]["content"][1]
    assert nxt["input"] == {"path": "textstats/readability.py"}


def test_phases_cover_the_session_in_order_and_only_the_last_is_open(session):
    phases = detect_phases(session)
    assert [p.reason == "open" for p in phases] == [False] * (len(phases) - 1) + [True]
    assert phases[0].start == 1 and phases[-1].end == len(session)
    assert all(a.end == b.start for a, b in zip(phases, phases[1:], strict=False))


def test_one_read_before_an_edit_is_not_a_research_phase():
    plan = [Turn([Call("read_file")]), Turn([Call("edit_file", input={"path": "src/module_0.py"})])]
    assert [p.reason for p in detect_phases(build_session(plan))] == ["open"]


def test_a_list_that_is_not_messages_is_refused_by_index():
    with pytest.raises(TypeError, match=r"messages\[1\] must be a dict"):
        detect_phases([{"role": "user", "content": "x"}, "not a message"])


def test_a_session_that_only_reads_has_one_open_phase():
    plan = [Turn([Call("read_file")]) for _ in range(6)]
    assert [(p.kind, p.reason) for p in detect_phases(build_session(plan))] == [("research", "open")]
