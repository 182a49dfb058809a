"""What the importer made of a file, said before its replay: no record lost in silence.

``counts_line`` says how many of the file's records were read as messages and what became of the
rest (left out by design, by kind; skipped, by rule; off the replayed branch), from the session's
own ``tally``. ``thin_read`` is the one line a file gets when less than half of its records became
messages, naming the largest causes. ``nothing_to_replay`` says why a session holds nothing a
replay can use (no model reply), or ''. Deliberately left out: the places of each skip (the
problem lines list them).
"""

from __future__ import annotations

from compaction.importers import ImportedSession

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
