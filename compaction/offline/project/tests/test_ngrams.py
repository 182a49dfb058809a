"""Tests of textstats.ngrams."""

from textstats.ngrams import (
    bigrams,
    char_ngrams,
    collocations,
    join_ngram,
    ngram_counts,
    ngrams,
    top_ngrams,
    trigrams,
)


def test_bigrams_of_three_tokens():
    result = bigrams(["a", "b", "c"])
    assert result == [("a", "b"), ("b", "c")], result


def test_trigrams_include_the_last_one():
    result = trigrams(["a", "b", "c", "d"])
    assert result == [("a", "b", "c"), ("b", "c", "d")], result


def test_unigrams_are_the_tokens():
    assert ngrams(["x", "y"], 1) == [("x",), ("y",)]


def test_n_larger_than_the_list_gives_nothing():
    assert ngrams(["x"], 2) == []


def test_n_must_be_positive():
    try:
        ngrams(["x"], 0)
    except ValueError:
        pass
    else:
        raise AssertionError("ngrams(tokens, 0) did not raise ValueError")


def test_top_ngrams_ranks_by_count():
    tokens = "a b a b c".split()
    assert top_ngrams(tokens, 2, 1) == [(("a", "b"), 2)]


def test_join_ngram():
    assert join_ngram(("new", "york")) == "new york"


def test_ngram_counts_count_repeats():
    result = ngram_counts(["a", "b", "a", "b"])
    assert result == {("a", "b"): 2, ("b", "a"): 1}, result


def test_char_ngrams_are_padded():
    assert char_ngrams("cat") == ["_ca", "cat", "at_"]
    assert char_ngrams("cat", 2, pad="") == ["ca", "at"]


def test_collocations_find_pairs_that_belong_together():
    tokens = "new york is big and new york is old".split()
    assert collocations(tokens, 1) == [(("new", "york"), 2.34)]
    assert collocations(["a"]) == []
