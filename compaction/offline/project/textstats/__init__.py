"""textstats: small, dependency-free statistics about English text.

The package turns raw text into words and sentences, counts them, finds frequent words and
phrases, scores readability, and prints a report. ``analyze`` is the one-call entry point;
the modules can also be used on their own.
"""

from textstats.counts import top_words, word_counts
from textstats.ngrams import ngrams, top_ngrams
from textstats.readability import count_syllables, flesch_reading_ease
from textstats.report import build_report, format_report
from textstats.tokenize import sentences, words

__version__ = "0.3.0"

__all__ = [
    "analyze",
    "build_report",
    "count_syllables",
    "flesch_reading_ease",
    "format_report",
    "ngrams",
    "sentences",
    "top_ngrams",
    "top_words",
    "word_counts",
    "words",
]


def analyze(text, *, top=5):
    """Return the report of ``text`` as a dict (see ``textstats.report.build_report``)."""
    return build_report(text, top=top)
