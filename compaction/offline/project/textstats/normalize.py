"""Text normalisation: case folding, quotes, accents, punctuation and whitespace.

Every function takes a string and returns a new string. Nothing here splits text into
words; that is the job of ``textstats.tokenize``, which calls ``normalize`` first.
"""

import re
import unicodedata

# typographic character -> plain ASCII replacement
_REPLACEMENTS = {
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2013": "-",
    "\u2014": " - ",
    "\u2026": "...",
}

_SPACE_RE = re.compile(r"\s+")
_PUNCT_RE = re.compile(r"[^\w\s'-]")
_EDGE_RE = re.compile(r"(?<!\w)['-]+|['-]+(?!\w)")


def fold_case(text):
    """Lower-case ``text`` the Unicode way (``casefold`` also folds the German sharp s)."""
    return text.casefold()


def straighten_quotes(text):
    """Replace curly quotes, long dashes and the ellipsis character with ASCII."""
    for fancy, plain in _REPLACEMENTS.items():
        text = text.replace(fancy, plain)
    return text


def strip_accents(text):
    """Remove combining accents: ``"café"`` becomes ``"cafe"``."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def strip_punctuation(text):
    """Replace punctuation with spaces, keeping apostrophes and hyphens inside words."""
    text = _PUNCT_RE.sub(" ", text)
    # an apostrophe or hyphen at the edge of a word is a quote or a dash, not part of it
    return _EDGE_RE.sub(" ", text)


def collapse_whitespace(text):
    """Turn every run of whitespace into one space and trim both ends."""
    return _SPACE_RE.sub(" ", text).strip()


def normalize(text, *, accents=False):
    """The standard cleanup before tokenizing: quotes, case, punctuation, whitespace.

    Accents are kept unless ``accents=True`` asks for them to be stripped too.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize() takes a string, not {type(text).__name__}")
    text = straighten_quotes(text)
    if accents:
        text = strip_accents(text)
    text = fold_case(text)
    text = strip_punctuation(text)
    return collapse_whitespace(text)
