"""Which language the package's prose is printed in, and that prose in it (``say``).

The course has an English edition and a Japanese one (``ja/``). Code cells are the same in both, so
the words a learner reads in outputs (check tables, the terminal check, widget legends) are chosen
here, not in a cell: ``say(english)`` returns the text in the current language, English being the
key of ``compaction.presentation.texts_ja.TEXTS``. The language is, first found wins: ``use_language``
inside a block; the ``COMPACTION_LANG`` variable; a ``.course-language`` file in the working folder
or one above it (``ja/`` holds one saying ``ja``, the course root one saying ``en``: a kernel runs in
its notebook's folder, so a ja chapter speaks Japanese with no line in its cells); the locale
(``LC_ALL``, ``LC_MESSAGES``, ``LANG`` starting with ``ja``); English. ``translated`` also turns a
text built from values (a check's case name, "window 8,000") into Japanese: an entry whose key has
``{fields}`` matches it, and each field's value is itself translated. Deliberately left out: plural
rules and any third language; an English text with no Japanese entry is printed in English.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import string
from collections.abc import Iterator
from pathlib import Path

from compaction.presentation.texts_ja import TEXTS

LANGUAGES = ("en", "ja")
VARIABLE = "COMPACTION_LANG"
MARKER = ".course-language"  # a file holding one of LANGUAGES
LOCALE_VARIABLES = ("LC_ALL", "LC_MESSAGES", "LANG")
_CHOSEN: list[str] = []  # use_language's stack


class LanguageError(ValueError):
    """A language the package has no texts for, named with where it was set."""


def _checked(value: str, where: str) -> str:
    value = value.strip().lower()
    if value not in LANGUAGES:
        raise LanguageError(f"{where}: unknown language {value!r}; use one of {', '.join(LANGUAGES)}")
    return value


def marked_language(start: Path) -> str | None:
    """The language a ``.course-language`` file in ``start`` or a folder above it names, if any."""
    start = start.resolve()
    for folder in (start, *start.parents):
        marker = folder / MARKER
        if marker.is_file():
            return _checked(marker.read_text(encoding="utf-8"), str(marker))
    return None


def locale_language(environ: dict[str, str] | None = None) -> str | None:
    """``ja`` when the first locale variable set starts with ``ja``, else ``en``; None when none is set."""
    environ = dict(os.environ) if environ is None else environ
    value = next((environ[name] for name in LOCALE_VARIABLES if environ.get(name)), None)
    return None if value is None else ("ja" if value.lower().startswith("ja") else "en")


def language(start: Path | None = None) -> str:
    """The language prose is printed in now (for files under ``start``, when given): ``en`` or ``ja``."""
    if _CHOSEN:
        return _CHOSEN[-1]
    if os.environ.get(VARIABLE):
        return _checked(os.environ[VARIABLE], f"the {VARIABLE} variable")
    try:
        here = Path.cwd() if start is None else start
    except OSError:  # the working folder was removed under the process: no folder to ask
        here = None
    marked = marked_language(here) if here is not None else None
    return marked or locale_language() or "en"


@contextlib.contextmanager
def use_language(value: str) -> Iterator[str]:
    """Print prose in ``value`` inside the block, whatever the variable, folder or locale say."""
    _CHOSEN.append(_checked(value, "use_language"))
    try:
        yield _CHOSEN[-1]
    finally:
        _CHOSEN.pop()


def say(english: str, **values: object) -> str:
    """``english`` in the current language, its ``{name}`` fields filled from ``values``."""
    text = TEXTS.get(english, english) if language() == "ja" else english
    return text.format(**values) if values else text


def _pattern(key: str) -> tuple[re.Pattern, int]:
    """A template key as a regular expression (each ``{field}`` any text) and its literal length."""
    parts, seen = list(string.Formatter().parse(key)), set()
    regex = ""
    for lit, name, _, _ in parts:  # a field named twice matches the same text both times
        regex += re.escape(lit) + ((f"(?P={name})" if name in seen else f"(?P<{name}>.+?)") if name else "")
        seen.add(name)
    return re.compile(regex, re.DOTALL), sum(len(lit) for lit, *_ in parts)


@functools.cache
def _templates() -> list[tuple[str, re.Pattern]]:
    """Every key with fields, the one with the most literal text first (the most specific wins)."""
    found = [(key, *_pattern(key)) for key in TEXTS if "{" in key]
    return [(key, regex) for key, regex, _ in sorted(found, key=lambda item: -item[2])]


def entry(english: str) -> tuple[str, dict[str, str]] | None:
    """The key of TEXTS that translates ``english`` (itself, or a template it fits) and its field values."""
    if english in TEXTS:
        return english, {}
    if _FIGURES.fullmatch(english):  # ``[22, 42]`` is no "{kept}, {cleared}": figures are never a template's
        return None
    for key, regex in _templates():
        found = regex.fullmatch(english)
        if found and all(_plain(value) or entry(value) for value in found.groupdict().values()):
            return key, found.groupdict()
    return None


_FIGURES = re.compile(r"[\d,.%\[\] =()<>x+-]+")  # 9,990, [4, 6], 12.5%, (3 > 2)


def _plain(value: str) -> bool:
    """A field value that needs no translation: figures (``9,990``, ``[4, 6]``) or one identifier."""
    return bool(_FIGURES.fullmatch(value) or re.fullmatch(r"[\w.-]+", value))


def translated(english: str) -> str:
    """``english`` in the current language; a text built from values is matched against template keys."""
    if language() != "ja":
        return english
    found = entry(english)
    if found is None:
        return english
    key, values = found
    return TEXTS[key].format(**{name: translated(value) for name, value in values.items()})
