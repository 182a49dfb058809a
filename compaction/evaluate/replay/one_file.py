"""One file's replay: its sessions imported, each replayed through the strategies and shown.

``replay_file`` imports a file (``load_all``), says what the importer read and repaired, replays each
session that holds something through each strategy (``engine.replay``; the strategies of a session
share its messages' token counts and digests), prints the session's heading and table, writes its
final contexts when asked, and returns a ``FileOutcome``: why the file gave nothing, how many of its
instances were skipped, and each session's replay slimmed to what the summary and the report read
(``slim``: messages, final contexts and peak lists are let go, so a folder's replay holds one
session's messages at a time). ``replay_captured`` is the same in a worker process: output captured
(``jobs.Captured``), no live progress. ``Settings`` is what every file of one command shares.
Everything shown or written passes through ``compaction.redact`` (detect-secrets loads with it, on
first use). Deliberately left out: the command's checks and its summary (``command``).
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

import compaction  # redact, redact_json: loaded on first use (compaction/__init__.py)
from compaction.agent.backend_choice import SAMPLE_WINDOW
from compaction.agent.lazy_client import LazyClient
from compaction.core.tokens import count_text
from compaction.evaluate.cost import Counted, SharedCounter
from compaction.evaluate.find import find_probes
from compaction.evaluate.probes import Probe
from compaction.evaluate.replay.columns import COLUMNS, NUMERIC, cells, group_name, groups, ignored_text
from compaction.evaluate.replay.engine import SessionReplay, StrategyRun, replay, turn_index
from compaction.evaluate.replay.fill import fill_by_kind
from compaction.evaluate.replay.jobs import Captured, Chunks
from compaction.evaluate.replay.readout import counts_line, nothing_to_replay, places, thin_read
from compaction.evaluate.replay.turns import first_message_too_big
from compaction.evaluate.window import replay_window
from compaction.importers import RULES, ImportedSession, NotASession, load_all

SHOWN_PLACES = 3  # places listed per rule with their detail, before one line naming the rest
TABLE_WIDTH = 200  # characters, when the output is not a terminal


@dataclass(frozen=True)
class Settings:
    """What every file of one ``compaction replay`` shares (picklable: each worker gets a copy)."""

    strategies: tuple[str, ...]
    window: int | None  # None: each session's own (compaction.evaluate.window)
    workdir: Path  # where what leaves the context goes
    kept: bool = False  # the workdir is the user's (--workdir): say where each session's part is
    format: str | None = None
    backend: str | None = None
    probes: tuple[Probe, ...] | None = None  # given with --probes; else found in each session
    save_final: Path | None = None
    report: bool = False  # a report will be written: keep what its gauges need
    width: int = TABLE_WIDTH  # how a worker prints: the width and colours of the command's console
    terminal: bool = False
    color_system: str | None = None


@dataclass
class FileOutcome:
    """What one file gave: why nothing (``refused``), instances skipped, its replays, what it printed."""

    path: Path
    named: bool  # given by the user, not found in a folder
    refused: str = ""  # why the file gives no session to replay, in words; empty when it gave some
    skipped: int = 0  # instances of the file that held nothing to replay
    replays: list[SessionReplay] = field(default_factory=list)
    printed: Chunks = field(default_factory=list)  # a worker's output, for the parent to write


@dataclass(frozen=True)
class FileName:
    """What names a file's sessions in what they write: its path under the folder given, and a suffix.

    A session is ``relative``'s folder and stem, with the instance when the file holds several, then
    ``suffix`` (``~2``, ``~3``: given by ``command`` to a file whose name an earlier file of the run
    already took, the same file passed twice or ``a/s.traj`` and ``b/s.traj`` named directly).
    """

    relative: Path
    suffix: str = ""

    def of(self, session: ImportedSession) -> Path:
        """The name of one of the file's sessions: ``a/s.traj`` -> ``a/s``, ``a/s~2``, ``a/out#i``."""
        return self.relative.parent / (file_stem(session, self.relative) + self.suffix)


def replay_file(
    path: Path,
    named: bool,
    settings: Settings,
    console: Console,
    errors: Console,
    *,
    live: bool = True,
    name: FileName | None = None,
) -> FileOutcome:
    """Import ``path`` and replay each of its sessions; a named file's refusal is the caller's to say."""
    name = name or FileName(Path(path.name))
    outcome = FileOutcome(path, named)
    try:
        sessions, outcome.skipped = _sessions(path, settings.format, errors)
    except _Refused as exc:
        outcome.refused = str(exc)
        if not named:
            show(errors, f"{path}: skipped, {exc}")
        return outcome
    client = LazyClient(settings.backend, context_window=SAMPLE_WINDOW)  # connected by a summary request
    for session in sessions:
        probes = list(settings.probes) if settings.probes is not None else find_probes(session.messages)
        written = name.of(session)  # its final contexts and its work folder: unique in the run
        result = _replay_one(session, path, written, settings, client, probes, console, errors, live=live)
        if settings.save_final:
            _save_final(result, settings.save_final / written, console)
        outcome.replays.append(slim(result, report=settings.report))
    return outcome


def replay_captured(task: tuple[Path, bool, Settings, FileName]) -> FileOutcome:
    """``replay_file`` in a worker process: what it prints is captured and comes back in the outcome."""
    path, named, settings, name = task
    captured = Captured()
    colours = {"force_terminal": settings.terminal, "no_color": not settings.terminal, "highlight": False}
    if settings.terminal:
        colours["color_system"] = settings.color_system
    console = Console(file=captured.out, width=settings.width, **colours)
    errors = Console(file=captured.err, width=TABLE_WIDTH, **colours)
    outcome = replay_file(path, named, settings, console, errors, live=False, name=name)
    outcome.printed = captured.chunks
    return outcome


def slim(result: SessionReplay, *, report: bool) -> SessionReplay:
    """A session's replay without its messages and lists, keeping what the summary and the report read.

    A report's gauge shows each run's peak list by kind: counted now (``StrategyRun.peak_fill``) when
    a report will be written. ``turn_of_message`` keeps one entry per message of the session.
    """
    for run in result.runs:
        if report and run.peak_fill is None:
            run.peak_fill = fill_by_kind(run.peak_context, lambda text: count_text(text, "tiktoken"))
        run.final, run.peak_context, run.requests = [], [], []
    return replace(result, session=replace(result.session, messages=[]))


class _Refused(Exception):
    """A file that gives no session to replay, and why in words."""


def _sessions(path: Path, format: str | None, errors: Console) -> tuple[list[ImportedSession], int]:
    """The sessions of one file that hold something to replay, and how many of its instances did not."""
    try:
        found = load_all(path, format)
    except NotASession as exc:
        raise _Refused(f"not a session: {exc.reason}") from None
    except OSError as exc:  # unreadable (permissions, a vanished file): said, and the scan goes on
        raise _Refused(f"cannot be read ({exc.strerror or exc})") from None
    usable = [s for s in found if not nothing_to_replay(s)]
    if not usable:
        raise _Refused(f"nothing to replay: {nothing_to_replay(found[0])}")
    for session in found:
        why = nothing_to_replay(session)
        if why:
            show(errors, f"{path}#{session.instance}: skipped, nothing to replay: {why}")
    return usable, len(found) - len(usable)


def _replay_one(
    session: ImportedSession,
    path: Path,
    name: Path,
    settings: Settings,
    client: LazyClient,
    probes: list[Probe],
    console: Console,
    errors: Console,
    *,
    live: bool,
) -> SessionReplay:
    console.print()
    where = f"{path}#{session.instance}" if session.instance else str(path)
    agent = f" sub-agent {session.agent} of session {session.session_id or '?'}," if session.agent else ""
    show(console, f"{where}: {session.format},{agent} {len(session.messages):,} messages", "bold")
    show(console, counts_line(session, where))
    for line in problem_lines(session, where):
        show(errors, line)
    if thin_read(session, where):
        show(errors, thin_read(session, where))
    for c in session.earlier_compactions:
        tokens = f", {c.tokens_before:,} tokens" if c.tokens_before else ""
        show(
            console,
            f"{where}:{c.where}: the recorded agent compacted here ({c.trigger or '?'}{tokens}); "
            f"replayed from the full history",
        )
    counted = Counted()  # each message counted and digested once for all the strategies
    window = settings.window if settings.window is not None else replay_window(session.messages)
    too_big = first_message_too_big(session.messages, window, SharedCounter(counted.tokens))
    if too_big:  # said once, up front; each strategy's row says it again
        show(errors, f"{where}: refused before turn 1: {too_big}; every strategy but none stops there")
    runs: list[StrategyRun] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("turns"))
    with Progress(
        *columns, console=console, transient=True, disable=not (live and console.is_terminal)
    ) as progress:
        for strategy in settings.strategies:
            task = progress.add_task(strategy, total=None)
            folder = settings.workdir / name / strategy.replace(" ", "-")
            runs.append(
                replay(
                    session.messages,
                    strategy,
                    window=window,
                    workdir=folder,
                    client=client,
                    probes=probes,
                    source=path,
                    on_turn=lambda done, total, task=task: progress.update(task, completed=done, total=total),
                    counted=counted,
                )
            )
            if runs[-1].refused and not too_big:
                show(errors, f"{where}: {strategy} {runs[-1].outcome}")
    # the heading on a line of its own, never wrapped: a long path stays one line to copy
    console.print(session_heading(session, runs, where), soft_wrap=True)
    console.print(strategy_table(runs))
    if settings.kept and any(run.events for run in runs):
        show(console, f"What left the context is on disk under {settings.workdir / name}")
    return SessionReplay(session, runs, turn_index(session.messages), probes)


def problem_lines(session: ImportedSession, path: Path | str | None = None) -> list[str]:
    """One line per rule: how many times, and the first places, each naming the file (as given)."""
    file = str(path) if path is not None else session.file
    by_rule: dict[str, list] = defaultdict(list)
    for p in session.problems:
        by_rule[p.rule].append(p)
    lines = []
    for rule, found in by_rule.items():
        lines.append(f"{file}: {rule} x{len(found)}: {RULES.get(rule, rule)}")
        lines += [f"  {file}:{p.where}: {p.detail}" for p in found[:SHOWN_PLACES]]
        if len(found) > SHOWN_PLACES:  # every other place named too, on one line
            rest = found[SHOWN_PLACES:]
            lines.append(f"  {file}: and {len(rest)} more {rule}, at {places(rest)}")
    if session.ignored:
        lines.append(f"{file}: left out by design (never sent to the model): {ignored_text(session.ignored)}")
    if session.off_branch:
        lines.append(f"{file}: {session.off_branch} records on a rewound branch, not replayed")
    return lines


def file_stem(session: ImportedSession, path: Path | None = None) -> str:
    """The file's stem, and the instance when the file holds several, made safe as a file name."""
    stem = (path or Path(session.file)).stem
    return stem + (f"#{re.sub(r'[^A-Za-z0-9._-]', '_', session.instance)}" if session.instance else "")


def session_heading(session: ImportedSession, runs: list[StrategyRun], path: Path | str | None = None) -> str:
    """The line above a session's table: the file as given, and the window."""
    file = str(path) if path is not None else session.file
    return compaction.redact(f"{file}: window {runs[0].window:,} tokens") if runs else compaction.redact(file)


def strategy_table(runs: list[StrategyRun]) -> Table:
    """The terminal table of one session: the report's columns, identical strategies collapsed."""
    table = Table()
    for name in COLUMNS:
        width = {"strategy": 36, "outcome": 60}.get(name)  # a merged row's sentence, a refusal's reason
        table.add_column(name, justify="right" if name in NUMERIC else "left", max_width=width)
    for group in groups(runs):
        table.add_row(*(compaction.redact(c) for c in [group_name(group), *cells(group[0])[1:]]))
    return table


def _save_final(result: SessionReplay, name: Path, console: Console) -> None:
    """Each distinct final context once, as ``NAME.STRATEGY.json``; strategies that equal one say so."""
    name.parent.mkdir(parents=True, exist_ok=True)
    written: list[tuple[StrategyRun, Path]] = []
    same: dict[Path, list[str]] = {}
    for run in result.runs:
        first = next(((r, path) for r, path in written if r.final == run.final), None)
        if first is not None:
            same.setdefault(first[1], [first[0].strategy]).append(run.strategy)
            continue
        out = name.parent / f"{name.name}.{run.strategy.replace(' ', '-')}.json"
        text = json.dumps(compaction.redact_json(run.final), ensure_ascii=False, indent=1)
        out.write_text(text, encoding="utf-8")
        written.append((run, out))
    show(console, f"Final contexts: {name.parent}: " + ", ".join(path.name for _, path in written))
    for path, (kept, *others) in same.items():
        listed = ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + others[-1]
        show(console, f"  {listed}: the same final context as {kept} ({path.name}), not written again")


def show(console: Console, line: str, style: str = "") -> None:
    """Print one line, redacted, never wrapped (a path stays one line to copy)."""
    console.print(Text(compaction.redact(line), style=style), soft_wrap=True)
