"""Probes found in a session automatically: the user's constraints, files modified, errors, reasons.

``find_probes(session)`` reads a whole (uncompacted) session and writes probes of the five kinds:

- instruction: a sentence of the user's own words that constrains the work (not, never, only,
  must, always, without, avoid, make sure, instead);
- artifact: every file an edit or write touched, with a line the last change put in it;
- recall: the first error lines of failed calls and the first test summary;
- decision: the agent's own sentences that give a reason (because, since, so that, found it);
- continuation: the last call the agent made (what the work was doing when the session ended).

Evidence is copied, never paraphrased, and cut to a short distinctive piece, so a context that
keeps the fact keeps the piece. Two kinds of evidence tell no strategy apart and are skipped: what
the first message already holds (the task and a harness's tips: no strategy of the course drops
the first message, so such a probe is kept by all of them), and an instruction or error line that
the harness repeats in many user turns (in ``REPEATED`` of them or more, and in a quarter or
more: a template's "Remember, YOU CAN ONLY ENTER ONE COMMAND AT A TIME."), which the newest turns
bring back whatever was removed. Hand-written probe files are better; these are a start for any
session. Deliberately left out: facts in files the agent only read, and judging importance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from compaction.core.messages import blocks, text_of, tool_result_blocks, tool_use_blocks
from compaction.evaluate.probes import Probe, message_text, normalized
from compaction.layers.instructions import is_harness_text
from compaction.levels.phases import action_of

CONSTRAINT = re.compile(
    r"\b(not|never|only|must|always|without|avoid|make sure|instead|don't|do not)\b", re.IGNORECASE
)
# "not", "without", "instead" also describe ("This should appear without a divider", "The test did
# not pass"): they make an instruction only in a sentence that does not open on a described subject
WEAK = frozenset({"not", "without", "instead"})
DESCRIBED = re.compile(r"^(?:this|that|it|its|there|the|these|those|he|she|they|i)\b", re.IGNORECASE)
REASON = re.compile(r"\b(because|since|so that|found it|the (?:bug|problem|issue|cause) is)\b", re.IGNORECASE)
ERROR_LINE = re.compile(
    r"^\s*((?:\w+\.)*\w*(?:Error|Exception)\b.*|FAILED .*|ERROR: .*|error: .*|Traceback .*)$", re.MULTILINE
)
TEST_SUMMARY = re.compile(r"\b\d+ (?:passed|failed)(?:, \d+ (?:passed|failed))*\b")
ERROR_WORDS = ("Error", "Exception", "FAILED ", "ERROR: ", "error: ", "Traceback ")  # one in each ERROR_LINE
NEW_TEXT_KEYS = ("new_text", "new_string", "new_str", "content", "file_text")
LIMITS = {"instruction": 5, "recall": 6, "decision": 5}
REPEATED = 3  # user turns: evidence in this many of them (and a quarter or more) is boilerplate
REPEATS = ("instruction", "recall")  # the kinds a harness's template repeats: its tips, its warnings


def piece(value: str, limit: int = 60) -> str:
    """``value`` on one line, cut at a word boundary to at most ``limit`` characters."""
    value = " ".join(str(value).split())
    if len(value) <= limit:
        return value
    cut = value[:limit].rsplit(" ", 1)[0]
    return cut if len(cut) >= limit // 2 else value[:limit]


def sentences(value: str) -> Iterator[str]:
    """The sentences and lines of a text, stripped, empty ones skipped."""
    for line in str(value).splitlines():
        for sentence in re.split(r"(?<=[.!?])\s+", line):
            if sentence.strip():
                yield sentence.strip()


def user_words(session: Sequence[dict]) -> Iterator[str]:
    """The user's own text blocks: not tool results, nor text a harness wrote (``is_harness_text``)."""
    for m in session:
        if m.get("role") == "user":
            for b in blocks(m):
                text = str(b.get("text", ""))
                if b.get("type") == "text" and not is_harness_text(text):
                    yield text


def constrains(sentence: str) -> bool:
    """Whether a sentence of the user's constrains the work (a weak word needs an unstated subject)."""
    words = {w.lower() for w in CONSTRAINT.findall(sentence)}
    if not words or len(sentence) <= 12:
        return False
    return bool(words - WEAK) or not DESCRIBED.match(sentence)


def edits(session: Sequence[dict]) -> dict[str, str]:
    """Each file edited or written -> a line its last change put there ('' when none is known)."""
    changed: dict[str, str] = {}  # path -> added line
    opened = None  # SWE-agent edits the file opened last
    for m in session:
        for use in tool_use_blocks(m):
            args = use.get("input") or {}
            kind, path = action_of(str(use.get("name", "")), args)
            path = path or (opened if kind == "edit" else None)
            opened = path if kind in ("read", "edit") and path else opened
            if kind == "edit" and path:
                changed[path] = added_line(args)
    return changed


def added_line(args: dict) -> str:
    """The first line an edit's new text adds that its old text did not have."""
    new = next((str(args[k]) for k in NEW_TEXT_KEYS if isinstance(args.get(k), str)), "")
    if not new and isinstance(args.get("command"), str):  # SWE-agent: "edit 3:5\n<text>\nend_of_edit"
        new = "\n".join(args["command"].splitlines()[1:]).split("end_of_edit")[0]
    old = {line.strip() for line in str(args.get("old_text") or args.get("old_string") or "").splitlines()}
    lines = [line.strip() for line in new.splitlines() if len(line.strip()) > 3]
    return piece(next((line for line in lines if line not in old), lines[0] if lines else ""))


class Telling:
    """Whether evidence can tell strategies apart: not all in the first message, not a repeated template."""

    def __init__(self, session: Sequence[dict]):
        self.first = message_text(session[0]) if session else ""
        self.users = [message_text(m) for m in session if m.get("role") == "user"]

    def given(self, evidence: Sequence[str]) -> bool:
        """Every item is in the first message, which every strategy keeps."""
        return all(normalized(e) in self.first for e in evidence)

    def repeated(self, evidence: Sequence[str]) -> bool:
        """Every item is in ``REPEATED`` user turns or more, and in a quarter of them or more."""
        least = max(REPEATED, len(self.users) / 4)
        return all(sum(normalized(e) in t for t in self.users) >= least for e in evidence)


def find_probes(session: Sequence[dict], limits: dict[str, int] | None = None) -> list[Probe]:
    """Probes of all five kinds found in a session (empty kinds left out); ``limits``: most per kind."""
    found: list[Probe] = []
    limits = {**LIMITS, **(limits or {})}
    telling = Telling(session)

    def add(kind: str, question: str, *evidence: str) -> None:
        evidence = tuple(e for e in evidence if e)
        n = sum(p.kind == kind for p in found)
        if not evidence or n >= limits.get(kind, 10**6) or any(p.evidence == evidence for p in found):
            return
        if telling.given(evidence) or (kind in REPEATS and telling.repeated(evidence)):
            return
        found.append(Probe(f"{kind}-{n + 1}", kind, question, evidence))

    for said in user_words(session):
        for s in sentences(said):
            if constrains(s):
                add("instruction", f"What did the user ask: ... {piece(s, 40)}?", piece(s))
    for path, line in edits(session).items():
        add("artifact", f"How was {path} changed?", path, line)
    summary = None
    for m in session:
        for b in tool_result_blocks(m):
            body = text_of(b.get("content"))
            if not summary and ("passed" in body or "failed" in body):  # what TEST_SUMMARY needs
                summary = TEST_SUMMARY.search(body) and TEST_SUMMARY.search(body).group(0)
            if not any(word in body for word in ERROR_WORDS):
                continue  # no line ERROR_LINE could match: the regex need not walk the output
            hits = ERROR_LINE.findall(body)  # an exception's own line says more than "FAILED test_x"
            hit = next((h for h in hits if re.search(r"(Error|Exception)\b", h)), hits[0] if hits else "")
            if hit and (b.get("is_error") or "Traceback" in body or "FAILED" in body or "Error" in hit):
                add("recall", "Which error came up?", piece(hit, 80))
    if summary:
        add("recall", "What did the first test run report?", summary)
    for m in session:
        if m.get("role") == "assistant":
            for b in blocks(m):
                for s in sentences(b.get("text", "")) if b.get("type") == "text" else ():
                    if REASON.search(s):
                        add("decision", f"Why: {piece(s, 40)}?", piece(s[REASON.search(s).start() :]))
    last = next((u for m in reversed(session) for u in tool_use_blocks(m)), None)
    if last is not None:
        args = last.get("input") or {}
        target = args.get("command") or args.get("path") or args.get("file_path") or args.get("pattern") or ""
        add("continuation", "What was the agent doing when the session ended?", piece(str(target)))
    return found
