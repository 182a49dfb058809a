"""What an importer hands back: the strict message list, what it repaired or skipped, what came before.

Every record of the source is accounted for (``tally``): read into the session (messages or system
text), left out by design (by kind), skipped (by rule), off the replayed branch. ``imported`` is the
one way a reader turns its raw messages into an ``ImportedSession``, so the count is kept alike
for every format. Deliberately left out: the system prompt's tokens (the Messages API sends it
apart from the list; it is kept as ``system`` text for a reader, and not counted in the replay).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compaction.importers.problems import Problem
from compaction.importers.strict import normalize


@dataclass(frozen=True)
class EarlierCompaction:
    """A compaction the recording agent itself did: before which message, where in the file, why."""

    index: int  # messages[index] holds the first content after it
    where: str
    trigger: str = ""  # "auto" or "manual", when the file says
    tokens_before: int | None = None
    summary: str = ""  # the summary the agent continued from, when the file holds it


@dataclass
class ImportedSession:
    """One session file as a strict Messages API list, with every repair and skip it took."""

    file: str
    format: str
    messages: list[dict]
    problems: list[Problem] = field(default_factory=list)
    earlier_compactions: list[EarlierCompaction] = field(default_factory=list)
    off_branch: int = 0  # records on a branch the user rewound (not replayed)
    system: str = ""
    ignored: dict[str, int] = field(default_factory=dict)  # records left out by design: kind -> count
    records: int = 0  # records (lines, entries, events) the source holds, readable or not
    read: int = 0  # of them, the records read into messages
    agent: str = ""  # a sub-agent's id, when the file is a sub-agent's session
    session_id: str = ""  # the recording agent's own id for the session, when the file names it
    ended: str = ""  # how the recorded run ended, when the file says (mini-swe-agent's exit status)
    instance: str = ""  # which session of a file that holds several (an evaluation's instance id)

    @property
    def label(self) -> str:
        """The file name, and the instance when the file holds several: ``output.jsonl#django-1``."""
        return f"{self.file}#{self.instance}" if self.instance else self.file

    @property
    def skipped(self) -> int:
        """How many records were skipped (not JSON, unknown type, no usable message)."""
        return sum(1 for p in self.problems if p.skipped)

    def tally(self) -> dict[str, int]:
        """Every record of the source by what became of it: read, left out (by kind), skipped (by rule)."""
        out = {"read as messages": self.read}
        out.update({f"left out: {kind}": n for kind, n in sorted(self.ignored.items())})
        for p in self.problems:
            if p.skipped:
                out[f"skipped: {p.rule}"] = out.get(f"skipped: {p.rule}", 0) + 1
        if self.off_branch:
            out["off the replayed branch"] = self.off_branch
        return out


def imported(
    raw: list[dict],
    *,
    file: str,
    format: str,
    problems: list[Problem],
    records: int,
    ignored: dict[str, int] | None = None,
    system_records: int = 0,
    compactions: list[dict] | None = None,
    **fields,
) -> ImportedSession:
    """The session a reader's raw messages make, every record of the source counted.

    ``records`` is how many records the source holds; ``system_records`` how many of them were read
    as the system text. A raw message whose blocks were all empty is counted as left out
    (``empty``). ``compactions`` (``where``, ``trigger``, ``tokens_before``, ``summary``) become
    ``earlier_compactions`` at the marks ``{"mark": i}`` in ``raw``. ``fields`` are the session's others.
    """
    marks: dict = {}
    used: set = set()
    messages = normalize(raw, file=file, problems=problems, marks=marks, used=used)
    ignored = dict(ignored or {})
    empty = len({m["where"] for m in raw if m.get("where")} - used)
    if empty:
        ignored["empty"] = ignored.get("empty", 0) + empty
    earlier = [EarlierCompaction(marks.get(i, len(messages)), **c) for i, c in enumerate(compactions or [])]
    return ImportedSession(
        file,
        format,
        messages,
        problems,
        earlier,
        ignored=ignored,
        records=records,
        read=len(used) + system_records,
        **fields,
    )
