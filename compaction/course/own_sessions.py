"""Chapter 00's first cell: the learner's own agent session, replayed with ``compaction replay``'s engine.

``find_session`` takes a folder the learner names; else the newest session of Claude Code's projects
folder (``~/.claude/projects``, every project's sessions, sub-agents left out); else the shared real
session beside the course (``../shared/data/claude-code-2.1``, another project's Claude Code 2.1
session); else it writes the course's own session in Claude Code's file format. A run whose outputs
are saved (``python -m compaction.course execute``, and nbval under the course's plugin) sets
``COMPACTION_OWN_SESSIONS=off`` (``scratch.SAVED_RUN``): the learner's sessions are not read there, so a saved
output is the shared session's and never names a file of the machine it ran on. Only the file's name
of a learner's session is printed, never its folder (Claude Code names a project's folder after its
path). ``replay_lines`` replays the session with ``none`` and the default pipeline in a window of a
third of the session (``compaction.evaluate.window``, the rule of ``replay`` and ``evaluate``), with the
offline summarizer, and says in a few lines how each ended. Deliberately left out: more than one
session (``compaction replay FOLDER`` replays them all), the report, and probes given by hand.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW
from compaction.course.scratch import OWN_SESSIONS
from compaction.evaluate.find import find_probes
from compaction.evaluate.replay.columns import fired
from compaction.evaluate.replay.engine import StrategyRun, replay
from compaction.evaluate.replay.sample import write_sample
from compaction.evaluate.window import replay_window
from compaction.importers import load, session_paths
from compaction.presentation.language import say

COURSE = Path(__file__).resolve().parents[2]  # the course's folder (the package is installed editable)
SHARED = Path("..") / "shared" / "data" / "claude-code-2.1"  # beside the course, as the shared data is
STRATEGIES = ("none", "pipeline")


@dataclass(frozen=True)
class Found:
    """The session to replay, where it came from, and how to name it in a saved output."""

    path: Path
    where: str  # "named", "own", "shared" or "course"
    shown: str  # the name printed: relative to the course, or only the file's name
    count: int = 1  # sessions found where it came from


def claude_projects() -> Path:
    """Claude Code's projects folder, where it keeps every project's sessions."""
    return Path.home() / ".claude" / "projects"


def own_sessions_read(environ: Mapping[str, str] | None = None) -> bool:
    """False in a run whose outputs are saved (``COMPACTION_OWN_SESSIONS=off``)."""
    return (os.environ if environ is None else environ).get(OWN_SESSIONS, "").lower() != "off"


def _newest(paths: list[Path]) -> Path:
    """The newest main session (sub-agents follow their session in ``session_paths``)."""
    main = [p for p in paths if not p.name.startswith("agent-")] or paths
    return max(main, key=lambda p: (p.stat().st_mtime, p.as_posix()))


def find_session(
    folder: str | os.PathLike | None = None,
    environ: Mapping[str, str] | None = None,
    course: Path = COURSE,
) -> Found:
    """The session chapter 00 replays: a named folder's, the learner's newest, the shared, the course's."""
    if folder is not None:
        named = Path(folder).expanduser()
        paths = session_paths(named) if named.is_dir() else [named] if named.is_file() else []
        if not paths:
            raise FileNotFoundError(f"{named}: no agent session there (a .jsonl, .traj or .json file)")
        newest = _newest(paths)
        return Found(newest, "named", newest.name, len(paths))
    projects = claude_projects()
    if own_sessions_read(environ) and projects.is_dir():
        paths = session_paths(projects)
        if paths:
            newest = _newest(paths)
            return Found(newest, "own", newest.name, len(paths))
    shared = course / SHARED
    if shared.is_dir() and session_paths(shared):
        path = session_paths(shared)[0]
        return Found(path, "shared", (SHARED / path.relative_to(shared)).as_posix())
    path = write_sample(Path(tempfile.mkdtemp(prefix="compaction-ch00-")) / "course-session.jsonl")
    return Found(path, "course", path.name)


def heading(found: Found) -> str:
    """Where the replayed session came from, in one line."""
    if found.where == "own":
        return say(
            "your newest Claude Code session, of {n} in ~/.claude/projects: {name}",
            n=found.count,
            name=found.shown,
        )
    if found.where == "named":
        return say(
            "the newest session of {n} in the folder you named: {name}", n=found.count, name=found.shown
        )
    if found.where == "shared":
        return say("no session of yours was read; the shared real session instead: {name}", name=found.shown)
    return say("no session of yours was read; the course's own session instead: {name}", name=found.shown)


def ending(run: StrategyRun) -> str:
    """How a replayed strategy ended: refused, over the window from a turn (none), or its turns done."""
    if run.refused:
        return say("refused: {why}", why=run.refused)
    if run.over_window is not None:
        return say("over the window from turn {turn}", turn=run.over_window)
    return say("{n} turns", n=len(run.turns))


def run_line(run: StrategyRun) -> str:
    """One strategy in one line: how it ended, its largest request, the layers that fired, probes kept."""
    kept = "-"
    if run.score:
        kept = f"{len(run.score.answered)}/{len(run.score.answered) + len(run.score.missed)}"
        kept += say(" (in a context the API would refuse)") if run.over_window is not None else ""
    return say(
        "{strategy:<9} {ending}; largest request {peak} tokens; layers fired: {fired}; probes kept: {kept}",
        strategy=run.strategy,
        ending=ending(run),
        peak=f"{run.peak:,}",
        fired=fired(run),
        kept=kept,
    )


def replay_lines(found: Found) -> list[str]:
    """Replay ``found`` with none and the pipeline in a third of its size; a few lines on each."""
    session = load(found.path)
    messages = session.messages
    window = replay_window(messages)
    client = connect("offline", context_window=SAMPLE_WINDOW)
    probes = find_probes(messages)
    lines = [heading(found)]
    with tempfile.TemporaryDirectory(prefix="compaction-ch00-") as work:
        runs = [
            replay(
                messages,
                name,
                window=window,
                workdir=Path(work) / name,
                client=client,
                probes=probes,
                source=found.path,
            )
            for name in STRATEGIES
        ]
    calls = len(runs[0].turns)
    lines.append(
        say(
            "{format}: {messages} messages, {calls} model calls; replayed in a window of {window} tokens "
            "(a third of the session)",
            format=session.format,
            messages=f"{len(messages):,}",
            calls=calls,
            window=f"{window:,}",
        )
    )
    for run in runs:
        lines.append(run_line(run))
    return lines
