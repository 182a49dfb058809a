"""Stopwords: the short, frequent words that carry little meaning on their own.

The list is a small hand-picked English set, enough for word-frequency reports. It is not
meant for search engines and has no other languages.
"""

ENGLISH = frozenset(
    """
    a about above after again against all am an and any are as at be because been before
    being below between both but by can did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into
    is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with you your yours
    yourself yourselves
    """.split()
)


def is_stopword(word, extra=()):
    """True when ``word`` (any case) is an English stopword or one of ``extra``."""
    lowered = word.casefold()
    return lowered in ENGLISH or lowered in {e.casefold() for e in extra}


def remove_stopwords(tokens, extra=()):
    """The tokens that are not stopwords, in their original order."""
    extra_set = {e.casefold() for e in extra}
    return [t for t in tokens if t.casefold() not in ENGLISH and t.casefold() not in extra_set]


def stopword_ratio(tokens):
    """The share of tokens that are stopwords, between 0 and 1 (0 for no tokens)."""
    if not tokens:
        return 0.0
    return sum(1 for t in tokens if is_stopword(t)) / len(tokens)


def load_stopwords(path):
    """Stopwords from a text file: one word per line, ``#`` starts a comment, case folded."""
    words = set()
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            word = line.split("#", 1)[0].strip()
            if word:
                words.add(word.casefold())
    return frozenset(words)


def content_words(tokens, extra=()):
    """The distinct tokens that are not stopwords, sorted alphabetically."""
    return sorted(set(remove_stopwords(tokens, extra)))


def stopword_profile(tokens, n=5):
    """The ``n`` most frequent stopwords of ``tokens`` as ``(word, count)``, ties alphabetical."""
    counts = {}
    for token in tokens:
        if is_stopword(token):
            key = token.casefold()
            counts[key] = counts.get(key, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:n]
