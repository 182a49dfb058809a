"""``compaction replay DIR --jobs N``: a team's sessions on N processes, shown as one process shows them.

The files of a folder are replayed on worker processes; what each printed comes back and is written
in the files' order, so stdout, stderr and the exit status are those of ``--jobs 1``; the summary
counts every session of every file; a file that is no session is skipped (status 3) and a named
one refused (status 2) without stopping the others; a summary request in a worker connects there.
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

import pytest

from compaction import __main__ as cli
from compaction.evaluate.replay.jobs import Captured, cores, in_order, write


@pytest.fixture(autouse=True)
def wide_terminal_and_private_temp(monkeypatch, tmp_path):
    """Tables wide enough not to wrap; the command's work folders under this test's tmp_path."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


def claude_code_file(path: Path, turns: int, result_chars: int = 3_000) -> Path:
    """A Claude Code session of ``turns`` tool calls, each result about ``result_chars`` characters."""
    messages = [("user", "Fix the failing tests in the parser.")]
    for i in range(turns):
        use = {
            "type": "tool_use",
            "id": f"toolu_{i:04d}",
            "name": "Bash",
            "input": {"command": f"grep -n x{i}"},
        }
        lines = "\n".join(f"src/m{i}.py:{n}: value_{n} = {n * i}" for n in range(result_chars // 30))
        result = {"type": "tool_result", "tool_use_id": f"toolu_{i:04d}", "content": lines}
        messages += [("assistant", [use]), ("user", [result])]
    records = [
        {
            "type": kind,
            "uuid": f"r{n}",
            "parentUuid": f"r{n - 1}" if n else None,
            "message": {"role": kind, "content": c},
        }
        for n, (kind, c) in enumerate(messages)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def team(folder: Path) -> Path:
    """Sessions of several lengths (the longer ones reach micro and a summary), and a file that is none."""
    folder.mkdir()
    for name, turns in (("a", 40), ("b", 3), ("c", 25), ("d", 60), ("e", 8)):
        claude_code_file(folder / f"{name}.jsonl", turns)
    (folder / "notes.json").write_text('{"not": "a session"}')
    return folder


def run(capsys, *args: object) -> tuple[int, str, str]:
    status = cli.main(["replay", *map(str, args)])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_two_processes_print_what_one_prints_and_merge_the_summary(tmp_path, capsys):
    folder = team(tmp_path / "team")
    options = ["--window", "30000", "--report", tmp_path / "r.html"]
    one = run(capsys, folder, "--jobs", "1", *options)
    many = run(capsys, folder, "--jobs", "3", *options)
    assert many == one
    status, out, err = many
    assert status == 3 and "notes.json: skipped, not a session" in err and "1 skipped" in err
    headings = [re.search(r"/([a-e])\.jsonl: window", line) for line in out.splitlines()]
    assert [h.group(1) for h in headings if h] == ["a", "b", "c", "d", "e"]  # the folder's order
    assert "of 5 sessions reached the summary threshold" in out  # one verdict over every file
    assert "micro" in out and "summary" in out  # the workers' runs fired, a summary request among them
    assert (tmp_path / "r.html").read_text().count('<section class="session">') == 5


def test_the_final_contexts_are_written_by_the_workers(tmp_path, capsys):
    folder = team(tmp_path / "team")
    status, _, _ = run(
        capsys, folder, "--jobs", "2", "--strategy", "pipeline", "--save-final", tmp_path / "f"
    )
    assert status == 3
    assert sorted(p.name for p in (tmp_path / "f").iterdir()) == [f"{n}.pipeline.json" for n in "abcde"]


def test_a_named_file_that_is_no_session_is_refused_and_the_others_are_replayed(tmp_path, capsys):
    good = claude_code_file(tmp_path / "good.jsonl", 3)
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    status, out, err = run(capsys, bad, good, "--jobs", "2")
    assert status == 2
    assert err.startswith(f"error: {bad}: not a session")
    assert "good.jsonl: window" in out


@pytest.mark.parametrize("jobs", ["0", "-1"])
def test_jobs_must_be_a_positive_number(tmp_path, capsys, jobs):
    status, out, err = run(capsys, claude_code_file(tmp_path / "s.jsonl", 2), "--jobs", jobs)
    assert (status, out) == (2, "")
    assert f"--jobs must be a positive number of processes, not {jobs}" in err


def shout(n: int) -> tuple[int, list]:
    """A worker's job for the tests: print on both streams, return what it printed."""
    captured = Captured()
    captured.out.write(f"out {n}\n")
    captured.err.write(f"err {n}\n")
    captured.out.write(f"more {n}\n")
    return n * n, captured.chunks


def test_results_come_in_the_items_order_with_what_each_printed_in_its_order(capsys):
    results = list(in_order(shout, [3, 1, 2], jobs=2))
    assert [r for r, _ in results] == [9, 1, 4]
    for _, chunks in results:
        write(chunks, sys.stdout, sys.stderr)
    captured = capsys.readouterr()
    assert captured.out == "out 3\nmore 3\nout 1\nmore 1\nout 2\nmore 2\n"
    assert captured.err == "err 3\nerr 1\nerr 2\n"
    assert results[0][1] == [(False, "out 3\n"), (True, "err 3\n"), (False, "more 3\n")]


def test_cores_is_at_least_one():
    assert cores() >= 1
