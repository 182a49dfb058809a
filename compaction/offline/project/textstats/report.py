"""The text report: every statistic of one text in a dict, and a plain-text table of it.

``build_report`` does the counting; ``format_report`` only lays out what it is given, so a
report can be stored as JSON and printed later. Colours and HTML output are left out.
"""

from textstats.counts import average_word_length, top_words
from textstats.ngrams import join_ngram, top_ngrams
from textstats.readability import difficulty, flesch_kincaid_grade, flesch_reading_ease
from textstats.stopwords import stopword_ratio
from textstats.tokenize import paragraphs, sentences, words


def build_report(text, *, top=5):
    """All statistics of ``text`` as a JSON-serialisable dict."""
    tokens = words(text)
    ease = flesch_reading_ease(text)
    return {
        "paragraphs": len(paragraphs(text)),
        "sentences": len(sentences(text)),
        "words": len(tokens),
        "distinct_words": len(set(tokens)),
        "average_word_length": round(average_word_length(tokens), 2),
        "stopword_ratio": round(stopword_ratio(tokens), 2),
        "reading_ease": ease,
        "difficulty": difficulty(ease),
        "grade": flesch_kincaid_grade(text),
        "top_words": [[w, c] for w, c in top_words(tokens, top, skip_stopwords=True)],
        "top_bigrams": [[join_ngram(g), c] for g, c in top_ngrams(tokens, 2, top)],
    }


def _rows(report):
    yield "paragraphs", str(report["paragraphs"])
    yield "sentences", str(report["sentences"])
    yield "words", f"{report['words']} ({report['distinct_words']} distinct)"
    yield "average word length", f"{report['average_word_length']:.2f}"
    yield "stopwords", f"{report['stopword_ratio']:.0%}"
    yield "reading ease", f"{report['reading_ease']} ({report['difficulty']})"
    yield "grade level", str(report["grade"])
    yield "top words", ", ".join(f"{w} ({c})" for w, c in report["top_words"]) or "-"
    yield "top bigrams", ", ".join(f"{g} ({c})" for g, c in report["top_bigrams"]) or "-"


def format_report(report, *, title="Text report"):
    """The report as an aligned two-column table under a title."""
    rows = list(_rows(report))
    width = max(len(label) for label, _ in rows)
    lines = [title, "=" * len(title)]
    lines += [f"{label.ljust(width)}  {value}" for label, value in rows]
    return "\n".join(lines)


def format_markdown(report, *, title="Text report"):
    """The report as a Markdown table under a heading, for READMEs and issue comments."""
    lines = [f"## {title}", "", "| statistic | value |", "|---|---|"]
    lines += [f"| {label} | {value} |" for label, value in _rows(report)]
    return "\n".join(lines)
