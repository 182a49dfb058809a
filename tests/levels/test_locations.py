"""Locations: the paths and line numbers an output cites, read in every common form and written compactly."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from compaction.levels.locations import line_ranges, missing_references, references


def test_references_finds_paths_with_their_line_numbers_in_every_common_form():
    text = 'src/a.py:12: x\n  File "lib/b.py", line 7, in f\nsee README.md and src/c.ts:3'
    assert references(text) == {"src/a.py": {12}, "lib/b.py": {7}, "README.md": set(), "src/c.ts": {3}}


def test_references_ignore_urls_and_times():
    assert references("GET http://example.com:8000/x.pl at 12:00:01") == {}


def test_line_ranges_merge_consecutive_lines_and_read_back_the_same_numbers():
    assert line_ranges({9, 3, 4, 5, 12}) == "3-5,9,12"
    assert references("src/a.py: 3-5, 9, 12") == {"src/a.py": {3, 4, 5, 9, 12}}


@given(st.sets(st.integers(min_value=1, max_value=5000), min_size=1, max_size=60))
def test_any_set_of_line_numbers_survives_the_compact_form(numbers):
    assert references(f"pkg/mod.py: {line_ranges(numbers)}") == {"pkg/mod.py": numbers}


def test_missing_references_names_each_lost_path_and_line():
    assert missing_references("a/b.py:3 and a/c.py:4", "a/b.py: 3") == ["a/c.py", "a/c.py:4"]
