"""Word counts and frequency tables.

All functions take a list of tokens (see ``textstats.tokenize.words``) rather than raw
text, so callers decide how text is split. Counts are case-sensitive: normalise first.
"""

from collections import Counter

from textstats.stopwords import remove_stopwords


def word_counts(tokens):
    """A Counter of how often each token occurs."""
    return Counter(tokens)


def top_words(tokens, n=10, *, skip_stopwords=False):
    """The ``n`` most frequent tokens as ``(word, count)`` pairs.

    Higher counts come first; words with the same count are listed alphabetically, so the
    result never depends on the order in which words first appeared.
    """
    if n < 0:
        raise ValueError(f"n must be zero or more, not {n}")
    if skip_stopwords:
        tokens = remove_stopwords(tokens)
    ranked = sorted(word_counts(tokens).items(), key=lambda pair: -pair[1])
    return ranked[:n]


def frequency_table(tokens):
    """Each distinct token with its count and its share of all tokens, most frequent first."""
    total = len(tokens)
    rows = []
    for word, count in sorted(word_counts(tokens).items(), key=lambda p: (-p[1], p[0])):
        rows.append((word, count, count / total))
    return rows


def hapaxes(tokens):
    """The tokens that occur exactly once, sorted alphabetically."""
    return sorted(word for word, count in word_counts(tokens).items() if count == 1)


def average_word_length(tokens):
    """The mean number of characters per token (0.0 for no tokens)."""
    if not tokens:
        return 0.0
    return sum(len(t) for t in tokens) / len(tokens)


def coverage(tokens, n):
    """The share of all tokens covered by the ``n`` most frequent distinct tokens."""
    if not tokens:
        return 0.0
    counts = sorted(word_counts(tokens).values(), reverse=True)
    return sum(counts[:n]) / len(tokens)


def length_histogram(tokens):
    """How many tokens have each length, as a dict ordered by length."""
    histogram = {}
    for token in tokens:
        histogram[len(token)] = histogram.get(len(token), 0) + 1
    return dict(sorted(histogram.items()))


def longest_words(tokens, n=5):
    """The ``n`` longest distinct tokens, longest first, ties alphabetical."""
    return sorted(set(tokens), key=lambda word: (-len(word), word))[:n]
