"""Probes: questions about a session that its final context can or cannot still answer.

A probe has a ``kind`` (one of ``KINDS``: a recalled fact, an artifact changed, where the work
continues, why something was decided, an instruction the user gave), a ``question``, and the
``evidence`` that answers it. It is answered when every evidence item is in the text of the final
context: a string (compared case-insensitively, whitespace collapsed), ``{"any": [...]}`` (one of
them), or ``{"regex": "..."}``. Probe sets are JSON files anyone can write::

    {"session": "offline 150 turns", "probes": [
      {"id": "fix-ngrams", "kind": "artifact", "question": "How was textstats/ngrams.py changed?",
       "evidence": ["textstats/ngrams.py", {"any": ["n + 1", "off-by-one"]}]}]}

Deliberately left out: partial credit and paraphrase; a probe is answered by the text or it is not.
Asking a real model the questions is ``compaction.evaluate.grade``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from compaction.core.messages import blocks, shared_prefix, text_of

KINDS = ("recall", "artifact", "continuation", "decision", "instruction")
_NUMBERED = re.compile(r"^ *\d+\t", re.MULTILINE)  # the line numbers read_file puts in front


class ProbeError(ValueError):
    """A probe file or probe that cannot be used, with where and why."""


@dataclass(frozen=True)
class Probe:
    """One question about a session, and the evidence in a context that answers it."""

    id: str
    kind: str
    question: str
    evidence: tuple  # str | {"any": [str]} | {"regex": str}, all required
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """The probe as the JSON object a probe file holds."""
        out = {"id": self.id, "kind": self.kind, "question": self.question, "evidence": list(self.evidence)}
        return {**out, "note": self.note} if self.note else out


def probe(data: Mapping[str, Any], where: str = "probe") -> Probe:
    """A ``Probe`` from its JSON object; ``ProbeError`` naming ``where`` and the field otherwise."""
    if not isinstance(data, Mapping):
        raise ProbeError(f"{where}: a probe is a JSON object, not {type(data).__name__}")
    for name in ("id", "kind", "question"):
        if not isinstance(data.get(name), str) or not data[name].strip():
            raise ProbeError(f"{where}: '{name}' must be a non-empty string")
    if data["kind"] not in KINDS:
        raise ProbeError(f"{where} ({data['id']}): kind {data['kind']!r} is not one of {', '.join(KINDS)}")
    evidence = data.get("evidence")
    if not isinstance(evidence, list) or not evidence:
        raise ProbeError(f"{where} ({data['id']}): 'evidence' must be a non-empty list")
    for k, item in enumerate(evidence):
        _check_evidence(item, f"{where} ({data['id']}) evidence {k}")
    return Probe(data["id"], data["kind"], data["question"], tuple(evidence), str(data.get("note", "")))


def _check_evidence(item: Any, where: str) -> None:
    if isinstance(item, str) and item.strip():
        return
    if isinstance(item, Mapping) and list(item) == ["any"]:
        if (
            isinstance(item["any"], list)
            and item["any"]
            and all(isinstance(s, str) and s.strip() for s in item["any"])
        ):
            return
    if isinstance(item, Mapping) and list(item) == ["regex"] and isinstance(item["regex"], str):
        try:
            pattern = re.compile(item["regex"])
        except re.error as exc:
            raise ProbeError(f"{where}: bad regex: {exc}") from None
        if pattern.search(""):  # it would find itself in any context: a probe every run keeps
            raise ProbeError(
                f"{where}: the regex {item['regex']!r} matches empty text, so any context answers it"
            )
        return
    raise ProbeError(
        f'{where}: expected a string, {{"any": [strings]}} or {{"regex": pattern}}, not {item!r}'
    )


def load_probes(path: str | Path) -> list[Probe]:
    """The probes of a JSON probe file (an object with ``probes``, or a bare list)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # -sig: a byte-order mark is allowed
    except json.JSONDecodeError as exc:
        raise ProbeError(f"{path}: line {exc.lineno}: not JSON ({exc.msg})") from None
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        raise ProbeError(f"{path}: not UTF-8 text (byte {exc.start + 1} is {byte:#04x})") from None
    items = data.get("probes") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ProbeError(f"{path}: expected a list of probes or an object with a 'probes' list")
    probes = [probe(item, f"{path.name}: probe {i}") for i, item in enumerate(items)]
    seen: set[str] = set()
    for i, p in enumerate(probes):
        if p.id in seen:
            raise ProbeError(f"{path.name}: probe {i}: id {p.id!r} is used twice")
        seen.add(p.id)
    return probes


def save_probes(probes: Iterable[Probe], path: str | Path, session: str = "") -> Path:
    """Write probes as a JSON probe file that ``load_probes`` reads back."""
    path = Path(path)
    data = {"session": session, "probes": [p.to_json() for p in probes]}
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def normalized(value: str) -> str:
    """Lower case, whitespace collapsed: how evidence and context are compared."""
    return " ".join(value.split()).lower()  # split() and the regex \s agree on what is whitespace


def context_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """Everything a context shows, as normalized text: words, tool calls' inputs, results."""
    return " ".join(t for t in map(message_text, messages) if t)


def message_text(message: Mapping[str, Any]) -> str:
    """One message's part of ``context_text``: its text, tool inputs and results, normalized."""
    parts = []
    for block in blocks(message):
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind == "tool_use":
            args = block.get("input") if isinstance(block.get("input"), Mapping) else {}
            parts.append(" ".join([str(block.get("name", ""))] + [str(v) for v in args.values()]))
        elif kind == "tool_result":
            output = text_of(block.get("content"))
            parts.append(_NUMBERED.sub("", output) if "\t" in output else output)  # a number ends on a tab
        elif kind == "compaction":  # the server's summary (SDK BetaCompactionBlock), null when it failed
            parts.append(str(block.get("content") or ""))
    return normalized("\n".join(parts))


class ContextTexts:
    """``context_text`` for list after list, each message's text made once (messages are never mutated).

    A list that starts with the same messages as the last one reuses that part of its text: only
    the messages after the shared start are looked at (a pass that cleared the newest results, a
    turn that appended two messages), so the work follows what changed, not the list's length.
    """

    def __init__(self) -> None:
        self._seen: dict[int, tuple[Mapping, str]] = {}  # id(message) -> (message, its text)
        self._last: list = []  # the last list, as it was
        self._text = ""  # its text
        self._ends: list[int] = [0]  # _ends[k]: length of the text of its first k messages
        self.previous, self.reused = "", 0  # the text before the last, and how much of it the last kept
        self._largest = 0  # the longest list asked about: what is kept is bounded by it

    def __call__(self, messages: Sequence[Mapping[str, Any]]) -> str:
        """The normalized text of ``messages``, as ``context_text`` gives it."""
        messages = list(messages)
        start = shared_prefix(self._last, messages)
        ends, parts = self._ends, [self._text[: self._ends[start]]]  # its own list: cut where they part
        del ends[start + 1 :]
        length = ends[-1]
        for m in messages[start:]:
            text = self.text(m)
            if text:
                parts.append(" " + text if length else text)
                length += len(parts[-1])
            ends.append(length)
        self._largest = max(self._largest, len(messages))
        if len(self._seen) > 4 * self._largest + 1024:  # forget messages no longer in play
            keep = set(map(id, messages))
            self._seen = {k: v for k, v in self._seen.items() if k in keep}
        self.previous, self.reused = self._text, ends[start]
        self._last, self._text, self._ends = messages, "".join(parts), ends
        return self._text

    def text(self, message: Mapping[str, Any]) -> str:
        """``message_text`` of one message, made once."""
        hit = self._seen.get(id(message))
        if hit is None or hit[0] is not message:
            hit = self._seen[id(message)] = (message, message_text(message))
        return hit[1]


def has_evidence(item: Any, text: str) -> bool:
    """True when one evidence item is in ``text`` (already ``normalized``)."""
    if isinstance(item, str):
        return normalized(item) in text
    if "any" in item:
        return any(normalized(s) in text for s in item["any"])
    return re.search(item["regex"], text, re.IGNORECASE) is not None


def answers(text: str, p: Probe) -> bool:
    """True when the normalized ``text`` holds every evidence item of probe ``p``."""
    return all(has_evidence(item, text) for item in p.evidence)


class Answers:
    """Which probes list after list answers (``answers`` on its text), reading only what changed.

    Each string of evidence is remembered by where it first ends in the last text; the next text
    shares a start with it (``ContextTexts.reused``), so a string that ended inside that start is
    still there, and any other is looked for only from the end of the shared start. A regex is
    looked for in the whole text.
    """

    def __init__(self, probes: Sequence[Probe], texts: ContextTexts | None = None):
        self.probes = list(probes)
        self.texts = texts or ContextTexts()
        self._needles = {normalized(s) for p in self.probes for s in _strings(p.evidence)}
        self._text: str | None = None  # the last text looked at
        self._ends: dict[str, int] = {}  # needle -> where its first occurrence there ends; -1: none

    def __call__(self, messages: Sequence[Mapping[str, Any]]) -> set[str]:
        """The ids of the probes ``messages`` answers."""
        text = self.texts(messages)
        shared = self.texts.reused if self.texts.previous is self._text else 0
        ends = {}
        for needle in self._needles:
            end = self._ends.get(needle, -1) if shared else -1
            if end < 0 or end > shared:  # not in the shared start: look past it (or everywhere)
                found = text.find(needle, max(0, shared - len(needle) + 1))
                end = found + len(needle) if found >= 0 else -1
            ends[needle] = end
        self._text, self._ends = text, ends
        return {p.id for p in self.probes if all(self._has(item, text) for item in p.evidence)}

    def _has(self, item: Any, text: str) -> bool:
        if isinstance(item, str):
            return self._ends[normalized(item)] >= 0
        if "any" in item:
            return any(self._ends[normalized(s)] >= 0 for s in item["any"])
        return has_evidence(item, text)


def _strings(evidence: Iterable[Any]) -> Iterator[str]:
    """The plain strings among evidence items (``any`` lists opened; regexes left out)."""
    for item in evidence:
        if isinstance(item, str):
            yield item
        elif "any" in item:
            yield from item["any"]


@dataclass
class ProbeScore:
    """Which probes a context answers: the ids answered and missed, and the share by kind."""

    answered: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    kinds: dict[str, tuple[int, int]] = field(default_factory=dict)  # kind -> (answered, probes)

    @property
    def share(self) -> float:
        """Answered probes over all probes (1.0 when there are none)."""
        total = len(self.answered) + len(self.missed)
        return len(self.answered) / total if total else 1.0

    def by_kind(self, kind: str) -> float | None:
        """The share answered of one kind, None when the set has no probe of that kind."""
        got, total = self.kinds.get(kind, (0, 0))
        return got / total if total else None


def score(
    probes: Sequence[Probe], messages: Sequence[Mapping[str, Any]], texts: ContextTexts | None = None
) -> ProbeScore:
    """Score a context: which of ``probes`` its text still answers (``texts``: a cache of message texts)."""
    text = texts(messages) if texts is not None else context_text(messages)
    result = ProbeScore()
    for kind in KINDS:
        result.kinds[kind] = (0, 0)
    for p in probes:
        ok = answers(text, p)
        (result.answered if ok else result.missed).append(p.id)
        got, total = result.kinds[p.kind]
        result.kinds[p.kind] = (got + ok, total + 1)
    result.kinds = {k: v for k, v in result.kinds.items() if v[1]}
    return result
