"""Level 3, session checkpoints: built from the session, written as Markdown, read back, resumed."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.core.messages import validate
from compaction.course.checks.levels import FIX_SCRIPT, fix_session, project_line
from compaction.levels.checkpoint import (
    Checkpoint,
    build_checkpoint,
    files_modified,
    from_markdown,
    load,
    resume_messages,
)


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return fix_session(tmp_path_factory.mktemp("ws"))


@pytest.fixture(scope="module")
def checkpoint(session):
    return build_checkpoint(session)


def test_the_checkpoint_counts_turns_and_keeps_the_task(session, checkpoint):
    assert checkpoint.turn == sum(m["role"] == "assistant" for m in session)
    assert checkpoint.task == session[0]["content"]
    assert build_checkpoint(session, turn=35).turn == 35


def test_every_edited_file_is_listed_with_the_line_it_changed(checkpoint):
    edits = [args for _, name, args in FIX_SCRIPT if name == "edit_file"]
    expected = []
    for args in edits:
        first = args["old_text"].strip().splitlines()[0]
        expected.append(f"{args['path']} (line {project_line(args['path'], first)})")
    assert checkpoint.files_modified == expected and len(expected) == 3


def test_completed_work_names_the_research_the_changes_and_the_green_run(checkpoint):
    assert re.match(r"Researched: \d+ failing tests in tests/", checkpoint.completed[0])
    line = project_line("textstats/ngrams.py", "range(len(tokens) - n)]")
    assert any(f"textstats/ngrams.py:{line}" in c for c in checkpoint.completed)
    assert re.search(r"\d+ passed, 0 failed$", checkpoint.completed[-1])


def test_key_decisions_keep_their_reasons(checkpoint):
    assert len(checkpoint.decisions) == 3
    assert all("because" in d for d in checkpoint.decisions)


def test_tests_still_failing_are_in_progress(session):
    red = session[:5]  # the task, the listing, and the first red test run
    red = red + [{"role": "assistant", "content": "Six tests fail; I will look at n-grams first."}]
    progress = build_checkpoint(red).in_progress
    assert (
        "Make `tests/test_ngrams.py::test_bigrams_of_three_tokens` pass (AssertionError: [('a', 'b')])"
        in progress
    )
    assert progress[-1] == "Current work: Six tests fail; I will look at n-grams first."


def test_the_markdown_has_the_four_sections_in_order(checkpoint):
    markdown = checkpoint.to_markdown()
    titles = re.findall(r"^### (.*)$", markdown, re.M)
    assert titles == ["Completed", "In Progress", "Key Decisions", "Files Modified"]
    assert markdown.startswith(f"## Session Checkpoint (Turn {checkpoint.turn})")
    assert "- [x] " in markdown and "1. " in markdown


def test_written_and_loaded_again_it_is_the_same_checkpoint(checkpoint, tmp_path):
    path = checkpoint.write(tmp_path / "notes" / "checkpoint.md")
    assert load(path) == checkpoint
    assert load(path).to_markdown() == checkpoint.to_markdown()


line = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=40).map(
    lambda s: " ".join(s.split())
)
items = st.lists(line.filter(bool), max_size=4)


@given(st.integers(0, 500), line, items, items, items, items)
def test_any_checkpoint_of_one_line_items_survives_the_round_trip(turn, task, done, doing, decided, files):
    checkpoint = Checkpoint(turn, task, done, doing, decided, files)
    assert from_markdown(checkpoint.to_markdown()) == checkpoint


def test_an_item_that_reads_none_is_still_an_item():
    checkpoint = Checkpoint(1, "t", ["(none)"], [], ["- (none)"], ["(none)"])
    assert from_markdown(checkpoint.to_markdown()) == checkpoint


def test_a_file_that_is_not_a_checkpoint_is_refused_by_name(tmp_path):
    (tmp_path / "x.md").write_text("# Notes\n")
    with pytest.raises(ValueError, match="Session Checkpoint"):
        load(tmp_path / "x.md")
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        load(tmp_path / "missing.md")


def test_resume_messages_start_a_valid_session_that_carries_the_checkpoint(checkpoint):
    messages = resume_messages(checkpoint, "Update the documentation.")
    validate(messages)
    assert checkpoint.to_markdown() in messages[0]["content"]
    assert messages[0]["content"].endswith("Continue with: Update the documentation.")
    with pytest.raises(ValueError, match="task"):
        resume_messages(checkpoint, "  ")


def test_the_offline_agent_resumes_from_a_checkpoint_where_it_left_off(tmp_path):
    pytest.importorskip("compaction.agent.backend", reason="the offline backend is not built yet")

    warnings.simplefilter("ignore", DeprecationWarning)
    client = connect()
    workspace = new_workspace(tmp_path / "ws")
    first = run_agent(client, workspace=workspace, max_turns=12)
    assert first.error is None
    saved = build_checkpoint(first.messages).write(tmp_path / "checkpoint.md")

    task = resume_messages(load(saved), "Carry on with the task.")[0]["content"]
    second = run_agent(client, workspace=workspace, task=task, max_turns=4)
    assert second.error is None

    def steps(messages):
        said = [b.get("text", "") for m in messages if m["role"] == "assistant" for b in m["content"]]
        return [int(n) for s in said for n in re.findall(r"\[step (\d+)", s)]

    assert steps(second.messages)[0] == max(steps(first.messages)) + 1, "it started over instead of resuming"


def test_files_modified_reads_anthropics_text_editor_tool():
    editor = "str_replace_based_edit_tool"
    calls = [
        {"command": "view", "path": "a.py"},
        {"command": "str_replace", "path": "a.py", "old_str": "y = 2", "new_str": "y = 3"},
        {"command": "create", "path": "b.py", "file_text": "z = 1\n"},
    ]
    messages = [{"role": "user", "content": "Fix it."}]
    for k, args in enumerate(calls):
        use = {"type": "tool_use", "id": f"toolu_e{k}", "name": editor, "input": args}
        out = "     1\tx = 1\n     2\ty = 2" if k == 0 else "done"
        messages += [
            {"role": "assistant", "content": [use]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use["id"], "content": out}]},
        ]
    assert files_modified(messages) == ["a.py (line 2)", "b.py (written)"]
