"""N-grams: runs of ``n`` consecutive tokens, and the most frequent of them.

N-grams never cross the ends of the token list; callers that want sentence boundaries to
stop them should split by sentence first. Skip-grams are out of scope.
"""

from collections import Counter


def ngrams(tokens, n):
    """All runs of ``n`` consecutive tokens, as tuples, in order."""
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    return [tuple(tokens[i : i + n]) for i in range(len(tokens) - n)]


def bigrams(tokens):
    """All pairs of consecutive tokens."""
    return ngrams(tokens, 2)


def trigrams(tokens):
    """All triples of consecutive tokens."""
    return ngrams(tokens, 3)


def top_ngrams(tokens, n=2, k=5):
    """The ``k`` most frequent n-grams as ``(ngram, count)``, ties broken alphabetically."""
    counts = Counter(ngrams(tokens, n))
    return sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))[:k]


def join_ngram(gram):
    """An n-gram tuple as one string with spaces, for display."""
    return " ".join(gram)
