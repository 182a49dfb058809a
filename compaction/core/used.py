"""Which lines of a tool result the agent used later: the lines worth keeping when the result is cleared.

A line is *used* when something specific in it appears again in a later assistant text or tool
input. Specific means a token a reader could not guess: a path (``textstats/counts.py``), a
dotted or snake_case or CamelCase identifier (``top_words``, ``m.__doc__``, ``TypeError``), a
number of two or more digits (``54``, ``3.67``), or a quoted string. Plain words (``the``,
``return``, ``normalize``) are not specific on their own: they would mark almost every line.

``used_lines(result_text, later_messages)`` returns the used lines, most-used first among equals
in their order, bounded to ``max_lines`` lines and ``max_chars`` characters, each line whole (a
line longer than the bound is skipped rather than cut). ``LaterUse`` answers the same question for
every result of a list in one pass, for the layers that clear many results per turn: each assistant
message's tokens are read once, and a result's tokens are matched against the tokens said after it
(``specifics_among``: the same as ``specifics(text) & wanted``, but ``is_specific`` is asked only of
the tokens both hold, and a few wanted tokens are looked up in the text before it is read at all).
Deliberately left out: values the agent reformatted (``3.67`` said as ``3.7``), synonyms, and
anything the agent used without repeating it (a result it only read and acted on silently).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import repeat
from typing import Any

from compaction.core.messages import blocks

MAX_LINES = 2  # lines kept per cleared result
MAX_CHARS = 160  # characters kept per cleared result (about 40 tokens)

_QUOTED = re.compile(r"\"([^\"\n]{3,80})\"|'([^'\n]{3,80})'")
_TOKEN = re.compile(r"[A-Za-z_.][\w./-]*\w|\d+(?:\.\d+)?")
_CAMEL = re.compile(r"[a-z][A-Z]|[A-Z][a-z]+[A-Z]")
_FEW = 64  # up to this many tokens wanted, looking each up in the text beats reading its tokens


def is_specific(token: str) -> bool:
    """True for a token a reader could not guess: a path, a compound identifier, a 2+ digit number."""
    if not token:  # the file name of a quoted folder path ("src/") is empty
        return False
    if token[0].isdigit():
        return len(token) >= 2
    if len(token) < 3:
        return False
    return "/" in token or "_" in token.strip("_") or "." in token.strip(".") or bool(_CAMEL.search(token))


def specifics(text: str) -> set[str]:
    """The specific tokens of ``text``: paths, compound identifiers, numbers, quoted strings."""
    found = {t.lstrip("./") for t in _TOKEN.findall(text) if is_specific(t.lstrip("./"))}
    found |= {a or b for a, b in _QUOTED.findall(text)}
    # a path is also mentioned by its file name, a dotted name by its last part (textstats.counts)
    found |= {t.rsplit("/", 1)[1] for t in found if "/" in t and is_specific(t.rsplit("/", 1)[1])}
    return found


def specifics_among(text: str, wanted: AbstractSet[str]) -> set[str]:
    """``specifics(text) & wanted``, testing only the tokens ``wanted`` holds: the same set, far cheaper.

    ``specifics`` asks ``is_specific`` of every token of a result (thousands in 10 KB); a question
    about the few tokens said later needs it only for the tokens both hold, and for the file names of
    the text's paths. Every token ``specifics`` could return is built the same way here.
    """
    wanted = _in_text(text, wanted)
    return _among(_tokens(text), _quoted(text), wanted) if wanted else set()


def _in_text(text: str, wanted: AbstractSet[str]) -> AbstractSet[str]:
    """``wanted``, or when it is small only its tokens that are part of ``text`` (a token found is)."""
    return {t for t in wanted if t in text} if len(wanted) <= _FEW else wanted


def _tokens(text: str) -> set[str]:
    """The candidate tokens of ``text`` (``_TOKEN``, without a leading ./), specific or not."""
    return set(map(str.lstrip, _TOKEN.findall(text), repeat("./")))  # map: no Python call per token


def _quoted(text: str) -> set[str]:
    """The quoted strings of ``text``."""
    return {a or b for a, b in _QUOTED.findall(text)} if '"' in text or "'" in text else set()


def _among(tokens: set[str], quoted: set[str], wanted: AbstractSet[str]) -> set[str]:
    """``specifics`` of a text whose ``_tokens`` and ``_quoted`` these are, kept to ``wanted``."""
    found = {t for t in tokens & wanted if is_specific(t)} | (quoted & wanted)
    for path in [t for t in tokens if "/" in t] + [q for q in quoted if "/" in q]:
        name = path.rsplit("/", 1)[1]  # a path's file name, when said later and specific itself
        if name in wanted and name not in found and is_specific(name):
            if path in quoted or is_specific(path):
                found.add(name)
    return found


def said_later(messages: Iterable[Mapping[str, Any]]) -> set[str]:
    """The specific tokens of the assistant's texts and tool inputs in ``messages``."""
    out: set[str] = set()
    for message in messages:
        if message.get("role") == "assistant":
            out |= _message_specifics(message)
    return out


def used_lines(
    result_text: str,
    later_messages: Sequence[Mapping[str, Any]],
    *,
    max_lines: int = MAX_LINES,
    max_chars: int = MAX_CHARS,
) -> list[str]:
    """The lines of ``result_text`` whose specific tokens reappear in ``later_messages``, bounded."""
    return pick_used(result_text, said_later(later_messages), max_lines=max_lines, max_chars=max_chars)


def pick_used(
    result_text: str, later: set[str], *, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS
) -> list[str]:
    """``used_lines`` against a set of tokens said later (see ``said_later``)."""
    if not later or max_lines <= 0:
        return []
    scored = []  # (-tokens used, line number, line)
    for k, line in enumerate(str(result_text).splitlines()):
        line = line.rstrip()
        if not line.strip() or len(line) > max_chars:
            continue
        hits = len(specifics_among(line, later))
        if hits:
            scored.append((-hits, k, line))
    return _bounded(scored, max_lines, max_chars)


def _bounded(scored: list[tuple[int, int, str]], max_lines: int, max_chars: int) -> list[str]:
    """The lines of ``scored`` (-hits, line number, line), most hits first, bounded, in text order."""
    kept, used = [], 0
    for _, k, line in sorted(scored):
        if len(kept) == max_lines or used + len(line) > max_chars:
            break
        kept.append((k, line))
        used += len(line)
    return [line for _, line in sorted(kept)]


def _message_specifics(message: Mapping[str, Any]) -> set[str]:
    out: set[str] = set()
    for block in blocks(message):
        if block.get("type") == "text":
            out |= specifics(str(block.get("text", "")))
        elif block.get("type") == "tool_use" and isinstance(block.get("input"), Mapping):
            out |= specifics(" ".join(str(v) for v in block["input"].values()))
    return out


class LaterUse:
    """For each message index, which specific tokens the assistant says after it.

    Built lazily from the end: a question about message ``index`` reads only the messages after it
    that no earlier question read, so clearing the newest few results of a long list stays cheap.
    """

    def __init__(self, messages: Sequence[Mapping[str, Any]]):
        self._messages = messages
        self._last: dict[str, int] = {}  # token -> index of the last assistant message that says it
        self._read = len(messages)  # messages[self._read:] are in self._last

    def lines(
        self, result_text: str, index: int, *, max_lines: int = MAX_LINES, max_chars: int = MAX_CHARS
    ) -> list[str]:
        """``used_lines`` for a result in message ``index``: tokens said in messages after it."""
        for i in range(self._read - 1, index, -1):  # read back to just after ``index``, once
            if self._messages[i].get("role") == "assistant":
                for token in _cached_specifics(self._messages[i]):
                    self._last.setdefault(token, i)  # read from the end: the first seen is the last said
        self._read = min(self._read, index + 1)
        text = str(result_text)
        wanted = _in_text(text, self._last.keys())
        if not wanted or max_lines <= 0:
            return []
        # ``pick_used(text, specifics(text) & said later)``, each line's tokens read once: a token
        # never spans lines, so the text's tokens are its lines' (quoted strings are read whole);
        # and a line that none of a few wanted tokens is part of holds none: it is not read at all
        rows = text.splitlines()
        few = len(wanted) <= _FEW
        tokens = {k: _tokens(row) for k, row in enumerate(rows) if not few or any(t in row for t in wanted)}
        found = _among(set().union(*tokens.values()), _quoted(text), wanted)
        later = {t for t in found if self._last[t] > index}
        if not later:
            return []
        scored = []  # (-tokens used, line number, line)
        for k, mine in tokens.items():
            line = rows[k].rstrip()  # (trailing blanks hold no token)
            if line.strip() and len(line) <= max_chars and (mine & later or _quoted(line) or "/" in line):
                hits = len(_among(mine, _quoted(line), later))
                if hits:
                    scored.append((-hits, k, line))
        return _bounded(scored, max_lines, max_chars)


_CACHE: dict[int, tuple[Mapping, frozenset]] = {}  # id(message) -> (message, its specifics)


def _cached_specifics(message: Mapping[str, Any]) -> frozenset:
    hit = _CACHE.get(id(message))
    if hit is None or hit[0] is not message:
        if len(_CACHE) > 20_000:
            _CACHE.clear()
        hit = _CACHE[id(message)] = (message, frozenset(_message_specifics(message)))
    return hit[1]
