"""Splitting text into words, sentences and paragraphs.

Words are the pieces of normalised text between spaces. Sentences end at ``.``, ``!`` or
``?`` followed by whitespace, except after a few common abbreviations. This is a rule of
thumb, not a linguistic parser: it does not handle quotations spanning sentences or
decimal numbers written with a trailing full stop.
"""

import re

from textstats.normalize import normalize

ABBREVIATIONS = {"dr", "mr", "mrs", "ms", "prof", "st", "vs", "etc", "e.g", "i.e"}

_SENTENCE_END_RE = re.compile(r"([.!?]+)(\s+)")
_PARAGRAPH_RE = re.compile(r"\n\s*\n")
_WORD_RE = re.compile(r"\w+(?:['-]\w+)*")


def words(text):
    """The words of ``text``, normalised and in order."""
    cleaned = normalize(text)
    return cleaned.split(" ") if cleaned else []


def _ends_with_abbreviation(chunk):
    last = chunk.rsplit(None, 1)[-1].rstrip(".").lower() if chunk.strip() else ""
    return last in ABBREVIATIONS


def sentences(text):
    """The sentences of ``text``, stripped, with their final punctuation kept."""
    result = []
    start = 0
    for match in _SENTENCE_END_RE.finditer(text):
        chunk = text[start : match.end(1)]
        if _ends_with_abbreviation(chunk):
            continue
        if chunk.strip():
            result.append(" ".join(chunk.split()))
        start = match.end()
    tail = text[start:].strip()
    if tail:
        result.append(" ".join(tail.split()))
    return result


def paragraphs(text):
    """The paragraphs of ``text``: blocks separated by at least one blank line."""
    return [" ".join(p.split()) for p in _PARAGRAPH_RE.split(text) if p.strip()]


def sentence_lengths(text):
    """The number of words in each sentence of ``text``."""
    return [len(words(s)) for s in sentences(text)]


def word_spans(text):
    """Each word of the raw ``text`` with its start and end offsets, as ``(word, start, end)``.

    Offsets point into ``text`` itself, so callers can highlight words in the original; the
    word is the raw slice, not normalised.
    """
    return [(m.group(0), m.start(), m.end()) for m in _WORD_RE.finditer(text)]


def average_sentence_length(text):
    """The mean number of words per sentence (0.0 for text without sentences)."""
    lengths = sentence_lengths(text)
    return sum(lengths) / len(lengths) if lengths else 0.0


def longest_sentence(text):
    """The sentence with the most words; the first one wins a tie ('' for empty text)."""
    best, best_length = "", -1
    for sentence in sentences(text):
        length = len(words(sentence))
        if length > best_length:
            best, best_length = sentence, length
    return best
