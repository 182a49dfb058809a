"""Readability scores: syllable counting and the two Flesch formulas.

Syllables are estimated with vowel groups and a silent-e rule, which is right for most
common English words and wrong for some (``"naive"``, ``"recipe"``). No dictionary is used.
"""

import re

from textstats.tokenize import sentences, words

_VOWEL_GROUP_RE = re.compile(r"[aeiouy]+")


def count_syllables(word):
    """An estimate of the syllables in one word; every word has at least one."""
    word = word.lower().strip("'")
    if not word:
        return 0
    count = len(_VOWEL_GROUP_RE.findall(word))
    if word.endswith("e") and not word.endswith(("le", "ee")):
        count -= 1  # a final silent e, as in "make"
    return count


def text_statistics(text):
    """Sentences, words and syllables of ``text`` as a dict."""
    tokens = words(text)
    return {
        "sentences": len(sentences(text)),
        "words": len(tokens),
        "syllables": sum(count_syllables(t) for t in tokens),
    }


def flesch_reading_ease(text):
    """The Flesch reading-ease score: higher is easier, 60-70 is plain English."""
    stats = text_statistics(text)
    if not stats["words"] or not stats["sentences"]:
        return 0.0
    per_sentence = stats["words"] / stats["sentences"]
    per_word = stats["syllables"] / stats["words"]
    return round(206.835 - 1.015 * per_sentence - 84.6 * per_word, 1)


def flesch_kincaid_grade(text):
    """The Flesch-Kincaid grade level: roughly the US school grade needed to read the text."""
    stats = text_statistics(text)
    if not stats["words"] or not stats["sentences"]:
        return 0.0
    per_sentence = stats["words"] / stats["sentences"]
    per_word = stats["syllables"] / stats["words"]
    return round(0.39 * per_sentence + 11.8 * per_word - 15.59, 1)


def difficulty(score):
    """A word for a reading-ease score, from "very easy" to "very difficult"."""
    bands = [(90, "very easy"), (70, "easy"), (60, "plain"), (50, "fairly difficult"), (30, "difficult")]
    for floor, label in bands:
        if score >= floor:
            return label
    return "very difficult"


def is_complex(word):
    """A word of three or more syllables, the "complex" word of the Gunning fog index."""
    return count_syllables(word) >= 3


def gunning_fog(text):
    """The Gunning fog index: years of schooling needed, from sentence length and complex words."""
    stats = text_statistics(text)
    if not stats["words"] or not stats["sentences"]:
        return 0.0
    complex_words = sum(1 for t in words(text) if is_complex(t))
    per_sentence = stats["words"] / stats["sentences"]
    return round(0.4 * (per_sentence + 100 * complex_words / stats["words"]), 1)


def coleman_liau(text):
    """The Coleman-Liau index, from letters and sentences per 100 words (no syllables needed)."""
    tokens = words(text)
    if not tokens:
        return 0.0
    letters = sum(sum(1 for c in t if c.isalpha()) for t in tokens)
    per_100_letters = letters / len(tokens) * 100
    per_100_sentences = len(sentences(text)) / len(tokens) * 100
    return round(0.0588 * per_100_letters - 0.296 * per_100_sentences - 15.8, 1)


def scores(text):
    """Every readability score of ``text`` in one dict."""
    return {
        "flesch_reading_ease": flesch_reading_ease(text),
        "flesch_kincaid_grade": flesch_kincaid_grade(text),
        "gunning_fog": gunning_fog(text),
        "coleman_liau": coleman_liau(text),
    }
