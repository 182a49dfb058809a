"""The benchmarks of issue 44 measure what they say, on tiny inputs (their figures are never asserted).

``benchmarks.team`` replays a generated folder with ``compaction replay DIR --jobs N`` and adds up the
memory of the whole process tree; ``benchmarks.startup`` says which heavy modules a command imported.
Each test runs a few small processes: the full sizes run only in ``python -m benchmarks``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from benchmarks import startup, team


def test_the_team_folder_holds_one_session_file_per_seed_each_different(tmp_path):
    size = team.folder(tmp_path / "team", files=3, turns=4)
    written = sorted((tmp_path / "team").iterdir())
    assert [p.name for p in written] == ["session-00.jsonl", "session-01.jsonl", "session-02.jsonl"]
    assert size == sum(p.stat().st_size for p in written)
    records = [json.loads(p.read_text().splitlines()[-1]) for p in written]
    outputs = [r["message"]["content"][0]["content"] for r in records]
    assert len(set(outputs)) == 3  # seeded by their number: three sessions, not one copied


def test_a_row_replays_every_file_of_the_folder_on_the_jobs_asked():
    row = team.row(files=2, turns=5, jobs=2)
    turns, files, _size, jobs, wall, cpu = row[:6]
    assert (turns, files, jobs) == ("10", 2, 2)
    assert wall > 0 and cpu > 0
    assert row[-1] == "yes"  # 10 turns: far inside the goal; a failed command raises instead


def test_the_tree_memory_counts_a_child_process_with_its_parent():
    child = subprocess.Popen([sys.executable, "-c", "import time; b = bytearray(64 << 20); time.sleep(30)"])
    try:
        time.sleep(1.0)
        alone = team.tree_rss(child.pid)
        assert alone > 64 << 20  # the child's 64 MiB are resident
        assert team.tree_rss(os.getpid()) >= alone + 1  # this process's tree holds the child and itself
    finally:
        child.kill()
        child.wait()
    assert team.tree_rss(child.pid) == 0  # a process that is gone weighs nothing


def test_the_start_up_table_names_the_heavy_modules_a_command_imported():
    assert startup.loaded([sys.executable, "-c", "import json"]) == "none of them"
    assert startup.loaded([sys.executable, "-c", "import anthropic"]) == "SDK"
