"""N-grams: runs of ``n`` consecutive tokens, and the most frequent of them.

N-grams never cross the ends of the token list; callers that want sentence boundaries to
stop them should split by sentence first. Skip-grams are out of scope.
"""

import math
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


def ngram_counts(tokens, n=2):
    """A Counter of every n-gram of ``tokens``."""
    return Counter(ngrams(tokens, n))


def char_ngrams(word, n=3, *, pad="_"):
    """The character n-grams of one word, padded at both ends: ``"cat"`` -> ``_ca, cat, at_``."""
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    padded = f"{pad}{word}{pad}" if pad else word
    return [padded[start : start + n] for start in range(max(len(padded) - n + 1, 0))]


def collocations(tokens, k=5, *, min_count=2):
    """Pairs of words seen together more often than chance, by pointwise mutual information.

    Only pairs seen at least ``min_count`` times are scored, since PMI overrates rare pairs.
    Returns ``(pair, score)`` with the best first, ties broken alphabetically.
    """
    if len(tokens) < 2:
        return []
    singles = Counter(tokens)
    pairs = ngram_counts(tokens, 2)
    total_words, total_pairs = len(tokens), len(tokens) - 1
    scored = []
    for pair, count in pairs.items():
        if count < min_count:
            continue
        p_pair = count / total_pairs
        p_first, p_second = singles[pair[0]] / total_words, singles[pair[1]] / total_words
        scored.append((pair, round(math.log2(p_pair / (p_first * p_second)), 3)))
    return sorted(scored, key=lambda item: (-item[1], item[0]))[:k]
