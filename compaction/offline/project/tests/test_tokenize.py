"""Tests of textstats.tokenize."""

from textstats.tokenize import (
    average_sentence_length,
    longest_sentence,
    paragraphs,
    sentence_lengths,
    sentences,
    word_spans,
    words,
)


def test_words_are_normalised():
    assert words("The cat, the HAT.") == ["the", "cat", "the", "hat"]


def test_empty_text_has_no_words():
    assert words("  ...  ") == []


def test_sentences_split_at_end_punctuation():
    text = "It rained. Did it stop? Yes!"
    assert sentences(text) == ["It rained.", "Did it stop?", "Yes!"]


def test_abbreviations_do_not_end_a_sentence():
    text = "Dr. Smith arrived. He sat down."
    assert sentences(text) == ["Dr. Smith arrived.", "He sat down."]


def test_paragraphs_are_separated_by_blank_lines():
    text = "One line\nstill one.\n\nTwo.\n   \nThree."
    assert paragraphs(text) == ["One line still one.", "Two.", "Three."]


def test_sentence_lengths_count_words():
    assert sentence_lengths("One two three. Four five.") == [3, 2]


def test_word_spans_point_into_the_raw_text():
    text = "Don't stop, well-known fox."
    assert word_spans(text) == [("Don't", 0, 5), ("stop", 6, 10), ("well-known", 12, 22), ("fox", 23, 26)]


def test_average_and_longest_sentence():
    assert average_sentence_length("One two. Three.") == 1.5
    assert longest_sentence("A b. C d e. F g h.") == "C d e."
    assert longest_sentence("") == ""
