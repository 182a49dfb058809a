"""Tests of textstats.readability."""

from textstats.readability import (
    coleman_liau,
    count_syllables,
    difficulty,
    flesch_reading_ease,
    gunning_fog,
    scores,
    text_statistics,
)


def test_syllables_of_common_words():
    assert count_syllables("cat") == 1
    assert count_syllables("water") == 2
    assert count_syllables("make") == 1
    assert count_syllables("table") == 2


def test_every_word_has_at_least_one_syllable():
    result = [count_syllables(w) for w in ["the", "she", "be"]]
    assert result == [1, 1, 1], result


def test_text_statistics():
    assert text_statistics("The cat sat. It purred.") == {"sentences": 2, "words": 5, "syllables": 6}


def test_simple_text_is_easy():
    score = flesch_reading_ease("The cat sat on the mat. The dog ran.")
    assert score > 90, score


def test_empty_text_scores_zero():
    assert flesch_reading_ease("") == 0.0


def test_difficulty_bands():
    assert difficulty(95) == "very easy"
    assert difficulty(65) == "plain"
    assert difficulty(10) == "very difficult"


def test_gunning_fog_counts_complex_words():
    assert gunning_fog("Everybody celebrated yesterday.") == 41.2
    assert gunning_fog("") == 0.0


def test_coleman_liau_needs_no_syllables():
    assert coleman_liau("The cat sat on the mat.") == -4.1


def test_scores_gathers_every_index():
    assert sorted(scores("The cat sat.")) == [
        "coleman_liau",
        "flesch_kincaid_grade",
        "flesch_reading_ease",
        "gunning_fog",
    ]
