"""What an importer hands back: the strict message list, what it repaired or skipped, what came before.

Deliberately left out: the system prompt's tokens (the Messages API sends it apart from the list;
it is kept as ``system`` text for a reader, and not counted in the replay).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compaction.importers.problems import Problem


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
