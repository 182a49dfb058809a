"""Tests of textstats.keywords."""

from textstats.keywords import bm25, document_frequency, keywords, term_frequency, tf_idf


def test_term_frequency_divides_by_length():
    assert term_frequency(["a", "a", "b", "c"]) == {"a": 0.5, "b": 0.25, "c": 0.25}


def test_document_frequency_counts_documents_not_tokens():
    assert document_frequency([["a", "a"], ["a", "b"]]) == {"a": 2, "b": 1}


def test_rare_words_score_higher():
    scores = tf_idf([["cat", "dog"], ["cat", "fish"]])[0]
    assert scores["dog"] > scores["cat"]


def test_keywords_skip_stopwords_and_rank():
    docs = [["the", "red", "fox", "fox"], ["the", "lazy", "dog"]]
    assert keywords(docs, 1) == [["fox"], ["dog"]]


def test_bm25_scores_documents_that_hold_the_query():
    assert bm25([["cat", "dog"], ["fish"]], ["cat"]) == [1.2221, 0.0]
    assert bm25([], ["cat"]) == []
