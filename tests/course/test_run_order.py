"""The run's order: the slowest test files first, then the chapters, the solutions, the rest."""

from __future__ import annotations

from pathlib import Path

from compaction.course.pytest_plugin import LONGEST, run_order

ROOT = Path(__file__).resolve().parents[2]


def test_every_file_named_slowest_exists():
    missing = [path for path in LONGEST if not (ROOT / path).is_file()]
    assert not missing, f"LONGEST names files that are gone: {missing}"


def test_slowest_files_then_chapters_then_solutions_then_the_rest():
    paths = ["tests/test_budget.py", "solutions/01_messages.ipynb", "notebooks/04_snip.ipynb"]
    paths += [LONGEST[1], LONGEST[0]]
    ranked = sorted(paths, key=run_order)
    assert ranked == [LONGEST[0], LONGEST[1], "notebooks/04_snip.ipynb", "solutions/01_messages.ipynb",
                      "tests/test_budget.py"]  # fmt: skip


def test_files_of_one_rank_keep_their_collection_order():
    paths = ["tests/test_b.py", "tests/test_a.py", "notebooks/02_x.ipynb", "notebooks/01_x.ipynb"]
    assert sorted(paths, key=run_order) == ["notebooks/02_x.ipynb", "notebooks/01_x.ipynb", "tests/test_b.py",
                                            "tests/test_a.py"]  # fmt: skip
