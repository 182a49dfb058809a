"""What the importer made of a file, said before its replay: no record lost in silence.

``counts_line`` says how many of the file's records were read as messages and what became of the
rest (left out by design, by kind; skipped, by rule; off the replayed branch), from the session's
own ``tally``. ``thin_read`` is the one line a file gets when less than half of its records became
messages, naming the largest causes. ``nothing_to_replay`` says why a session holds nothing a
replay can use (no model reply), or ''. ``places`` names where a list of problems are, in one
line (``lines 12, 15 and 40``), so a list cut short still names every place it leaves out.
Deliberately left out: the places of each skip in the counts line (the problem lines list them).
"""

from __future__ import annotations

from compaction.importers import ImportedSession, Problem

THIN = 0.5  # below this share of records read as messages, a file says so
READ = "read as messages"


def counts_line(session: ImportedSession, file: str) -> str:
    """``FILE: 753 records: 704 read as messages, 49 left out (20 file-history-snapshot, ...)``."""
    tally = session.tally()
    parts = [f"{tally.get(READ, 0):,} {READ}"]
    for group, label in (("left out: ", "left out"), ("skipped: ", "skipped")):
        found = {k.removeprefix(group): n for k, n in tally.items() if k.startswith(group)}
        if found:
            each = ", ".join(f"{n:,} {kind}" for kind, n in sorted(found.items(), key=lambda kv: -kv[1]))
            parts.append(f"{sum(found.values()):,} {label} ({each})")
    if tally.get("off the replayed branch"):
        parts.append(f"{tally['off the replayed branch']:,} off the replayed branch")
    return f"{file}: {session.records:,} records: " + ", ".join(parts)


def thin_read(session: ImportedSession, file: str) -> str:
    """One line when under half of the file's records became messages, naming the largest causes; else ''."""
    read = session.tally().get(READ, 0)
    if not session.records or read >= THIN * session.records:
        return ""
    rest = sorted(((n, k) for k, n in session.tally().items() if k != READ), reverse=True)[:3]
    causes = ", ".join(f"{n:,} {kind}" for n, kind in rest)
    return f"{file}: only {read:,} of {session.records:,} records were read as messages ({causes})"


def nothing_to_replay(session: ImportedSession) -> str:
    """Why ``session`` gives a replay nothing to do (no reply of the model to replay), or ''."""
    if any(m["role"] == "assistant" for m in session.messages):
        return ""
    return f"no reply of the model to replay ({counts_line(session, session.label).split(': ', 1)[1]})"


def places(problems: list[Problem]) -> str:
    """Where ``problems`` are, every one: ``lines 12, 15 and 40``, or ``history[3] and history[9]``."""
    wheres = [p.where for p in problems]
    if wheres and all(w.startswith("line ") for w in wheres):
        wheres = [w.removeprefix("line ") for w in wheres]
        head = "line " if len(wheres) == 1 else "lines "
    else:
        head = ""
    listed = ", ".join(wheres[:-1]) + " and " + wheres[-1] if len(wheres) > 1 else "".join(wheres)
    return head + listed
