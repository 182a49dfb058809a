"""Chapter 00's first cell: the learner's own session when there is one, the shared one otherwise.

A saved run (the course's pytest plugin, ``execute``) reads none of the learner's sessions, so a saved
output is the same on every machine; a learner's session is named by its file's name only.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from compaction.course import own_sessions
from compaction.course.notebooks import run_notebook
from compaction.course.own_sessions import SHARED, find_session, heading, replay_lines
from compaction.course.scratch import OWN_SESSIONS, SAVED_RUN
from compaction.evaluate.replay.sample import write_sample

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home folder with one Claude Code project holding two sessions (the newer second)."""
    home = tmp_path / "home"
    project = home / ".claude" / "projects" / "-home-alice-secret-project"
    older = write_sample(project / "older.jsonl", turns=8)
    write_sample(project / "newer.jsonl", turns=8)
    os.utime(older, (1_000_000, 1_000_000))
    monkeypatch.setenv("HOME", str(home))
    return home


def test_a_learners_newest_session_is_found_and_named_by_its_file_only(home):
    found = find_session(environ={})
    assert (found.where, found.path.name, found.count) == ("own", "newer.jsonl", 2)
    line = heading(found)
    assert "newer.jsonl" in line and "of 2 in ~/.claude/projects" in line
    assert "alice" not in line and str(home) not in line


def test_a_saved_run_reads_no_session_of_the_learners_and_names_the_shared_one_relative_to_the_course(home):
    found = find_session(environ=SAVED_RUN)
    if (ROOT / SHARED).is_dir():
        assert found.where == "shared" and found.shown.startswith("../shared/data/claude-code-2.1/")
        assert not Path(found.shown).is_absolute()
    else:  # a clone without the shared data: the course's own session
        assert found.where == "course"


def test_the_course_plugin_and_execute_mark_their_runs_as_saved():
    assert os.environ.get(OWN_SESSIONS) == "off"  # this very pytest session, through the plugin
    assert SAVED_RUN == {OWN_SESSIONS: "off"}


def test_without_own_or_shared_sessions_the_course_writes_its_own(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "nobody"))
    found = find_session(environ={}, course=tmp_path / "course")
    assert found.where == "course" and found.path.is_file()
    lines = replay_lines(found)
    assert lines[0].endswith(found.path.name) and str(found.path.parent) not in "\n".join(lines)
    assert lines[1].startswith("claude-code: ") and "a third of the session" in lines[1]
    assert [line.split()[0] for line in lines[2:]] == ["none", "pipeline"]
    shutil.rmtree(found.path.parent)


def test_a_named_folder_wins_and_an_empty_one_is_an_error_naming_it(home, tmp_path):
    folder = home / ".claude" / "projects" / "-home-alice-secret-project"
    assert find_session(folder, environ=SAVED_RUN).where == "named"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="empty: no agent session there"):
        find_session(empty)


def test_chapter_00_run_as_it_is_saved_prints_the_shared_session_or_the_courses(home):
    nb = run_notebook(ROOT / "notebooks" / "00_welcome.ipynb")
    cell = next(c for c in nb.cells if c.cell_type == "code" and "find_session" in c.source)
    text = "".join(o.get("text", "") for o in cell.outputs)
    assert ("../shared/data/claude-code-2.1/" in text) == (ROOT / SHARED).is_dir(), text
    assert "newer.jsonl" not in text and str(Path.home()) not in text and str(ROOT) not in text


def test_the_module_says_where_the_shared_session_is_beside_the_course():
    assert own_sessions.COURSE == ROOT and SHARED.as_posix() == "../shared/data/claude-code-2.1"
