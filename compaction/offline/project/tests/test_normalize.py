"""Tests of textstats.normalize."""

from textstats.normalize import collapse_whitespace, normalize, strip_accents, strip_punctuation


def test_normalize_folds_case_and_drops_punctuation():
    assert normalize("Hello, World!") == "hello world"


def test_apostrophes_inside_words_are_kept():
    assert normalize("Don't panic.") == "don't panic"


def test_quotes_at_word_edges_are_removed():
    assert normalize("\u2018quoted\u2019 text") == "quoted text"


def test_hyphenated_words_stay_whole():
    assert strip_punctuation("a well-known fact") == "a well-known fact"


def test_accents_are_stripped_only_on_request():
    assert normalize("Caf\u00e9") == "caf\u00e9"
    assert normalize("Caf\u00e9", accents=True) == "cafe"
    assert strip_accents("na\u00efve") == "naive"


def test_whitespace_is_collapsed():
    assert collapse_whitespace("  a \n\t b  ") == "a b"


def test_normalize_rejects_non_strings():
    try:
        normalize(42)
    except TypeError as error:
        assert "int" in str(error)
    else:
        raise AssertionError("normalize(42) did not raise TypeError")
