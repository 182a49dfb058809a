"""Tests of textstats.stopwords."""

import os
import tempfile

from textstats.stopwords import (
    content_words,
    is_stopword,
    load_stopwords,
    remove_stopwords,
    stopword_profile,
    stopword_ratio,
)


def test_stopwords_ignore_case():
    assert is_stopword("The") and not is_stopword("cat")
    assert is_stopword("cat", extra=["CAT"])


def test_remove_stopwords_keeps_the_order():
    assert remove_stopwords(["the", "cat", "and", "a", "dog"]) == ["cat", "dog"]


def test_stopword_ratio():
    assert stopword_ratio(["the", "cat"]) == 0.5
    assert stopword_ratio([]) == 0.0


def test_content_words_are_distinct_and_sorted():
    assert content_words(["The", "cat", "the", "dog", "cat"]) == ["cat", "dog"]


def test_stopword_profile_counts_case_folded():
    assert stopword_profile(["the", "a", "the", "cat", "A"]) == [("a", 2), ("the", 2)]


def test_load_stopwords_skips_comments():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "words.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("# custom list\nFoo\n\nbar  # trailing comment\n")
        assert load_stopwords(path) == {"foo", "bar"}
