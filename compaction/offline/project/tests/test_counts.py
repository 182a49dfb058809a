"""Tests of textstats.counts."""

import textstats.counts as counts
from textstats.counts import average_word_length, frequency_table, hapaxes, top_words, word_counts


def test_word_counts_count_each_token():
    assert word_counts(["a", "b", "a"]) == {"a": 2, "b": 1}


def test_top_words_puts_the_most_frequent_first():
    tokens = ["x", "y", "y", "z", "z", "z"]
    assert top_words(tokens, 2) == [("z", 3), ("y", 2)]


def test_top_words_breaks_ties_alphabetically():
    tokens = ["pear", "apple", "fig", "apple", "pear", "fig"]
    result = top_words(tokens, 3)
    assert result == [("apple", 2), ("fig", 2), ("pear", 2)], result


def test_top_words_can_skip_stopwords():
    tokens = ["the", "the", "the", "cat", "sat", "cat"]
    assert top_words(tokens, 1, skip_stopwords=True) == [("cat", 2)]


def test_frequency_table_shares_add_up_to_one():
    rows = frequency_table(["a", "b", "a", "c"])
    assert rows[0] == ("a", 2, 0.5)
    assert abs(sum(share for _, _, share in rows) - 1.0) < 1e-9


def test_hapaxes_are_the_words_seen_once():
    assert hapaxes(["b", "a", "b", "c"]) == ["a", "c"]


def test_average_word_length():
    assert average_word_length(["ab", "abcd"]) == 3.0
    assert average_word_length([]) == 0.0


def test_coverage_is_the_share_of_the_top_words():
    assert counts.coverage(["a", "a", "b", "c"], 1) == 0.5
    assert counts.coverage([], 3) == 0.0


def test_length_histogram_and_longest_words():
    assert counts.length_histogram(["ab", "c", "de"]) == {1: 1, 2: 2}
    assert counts.longest_words(["aa", "bbb", "c", "ccc"], 3) == ["bbb", "ccc", "aa"]
