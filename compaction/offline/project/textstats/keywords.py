"""Keywords by TF-IDF: the words that are frequent in one document and rare in the others.

A document is a list of tokens. Scores use raw term frequency divided by document length,
and a smoothed inverse document frequency, ``log((1 + N) / (1 + df)) + 1``, so a word in
every document still scores above zero. Stemming and phrase keywords are left out.
"""

import math
from collections import Counter

from textstats.stopwords import remove_stopwords


def term_frequency(tokens):
    """Each token's count divided by the number of tokens."""
    total = len(tokens)
    if not total:
        return {}
    return {word: count / total for word, count in Counter(tokens).items()}


def document_frequency(documents):
    """For each token, the number of documents that contain it."""
    df = Counter()
    for tokens in documents:
        df.update(set(tokens))
    return df


def inverse_document_frequency(documents):
    """The smoothed IDF of every token that appears in ``documents``."""
    n = len(documents)
    return {word: math.log((1 + n) / (1 + df)) + 1 for word, df in document_frequency(documents).items()}


def tf_idf(documents):
    """One dict per document: token -> TF-IDF score."""
    idf = inverse_document_frequency(documents)
    return [{w: tf * idf[w] for w, tf in term_frequency(doc).items()} for doc in documents]


def keywords(documents, k=5, *, skip_stopwords=True):
    """The ``k`` best keywords of each document, highest score first, ties alphabetical."""
    if skip_stopwords:
        documents = [remove_stopwords(doc) for doc in documents]
    result = []
    for scores in tf_idf(documents):
        ranked = sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))
        result.append([word for word, _ in ranked[:k]])
    return result


def bm25(documents, query, *, k1=1.5, b=0.75):
    """The Okapi BM25 score of every document for a query (a list of tokens), in document order.

    ``k1`` limits how much repeating a term helps; ``b`` sets how strongly long documents are
    penalised. Terms absent from every document add nothing.
    """
    if not documents:
        return []
    idf = inverse_document_frequency(documents)
    average = sum(len(doc) for doc in documents) / len(documents)
    result = []
    for doc in documents:
        counts = Counter(doc)
        score = 0.0
        for term in query:
            tf = counts.get(term, 0)
            if tf:
                norm = tf + k1 * (1 - b + b * len(doc) / (average or 1))
                score += idf[term] * tf * (k1 + 1) / norm
        result.append(round(score, 4))
    return result
