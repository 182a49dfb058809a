"""``compaction replay PATH...``: import each session, replay it through each strategy, report.

For every session (a folder is searched for .jsonl, .traj and .json files and OpenHands
conversation folders; a Claude Code project folder's sub-agents follow their session; an
evaluation's output.jsonl is a session per instance) the command says how many of the file's
records it read as messages and what became of the rest, then prints a table of the strategies on
stdout, one row per strategy saying how it ended: the turns it replayed, "refused at turn N: why"
when the strategy could not bring a request under the window (a failed summary, or a first
message alone over it), or for none, the uncompacted reference, "over the window from turn N"
where the API would refuse its requests (its probes are then held in a context the API refuses).
On stderr, each naming the file as given: what the importer repaired or skipped (grouped by rule,
with lines), a file of which less than half the records became messages, each refusal, and
errors. The window is ``--window`` or, for each session, a third of its tokens (at least 4,000 and
twice its first message: ``compaction.evaluate.window``, the rule ``evaluate --session`` uses).
``--save-final DIR`` writes each strategy's final context as JSON, named after the
session's path under the folder given (``a/s.traj`` -> ``DIR/a/s.none.json``), so sessions that
share a file name never overwrite each other, and strategies with the same final context share
one file (the line after the table says which); ``--report FILE.html`` the report. Everything
printed or written passes through ``redact``. What left the context goes to a temporary folder
removed at exit, or to ``--workdir`` (then kept, and its path printed).
Exit status: 0 when every session was replayed (refused strategies included); 3 when sessions
were replayed but files or instances found in a folder or output file were skipped (each named
on stderr with why); 2 when a file given by name is not a session or holds nothing to replay
(one line naming it and why), a path does not exist, the window is not a positive number, or no
session was found. Session files are only ever opened for reading.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from compaction.agent.backend import BackendError, connect
from compaction.agent.loop import SAMPLE_WINDOW
from compaction.evaluate.cost import SharedCounter, Tokens
from compaction.evaluate.find import find_probes
from compaction.evaluate.notes import split
from compaction.evaluate.outputs import output_problem
from compaction.evaluate.probes import Probe, ProbeError, load_probes
from compaction.evaluate.replay.columns import (
    COLUMNS,
    LEGEND,
    NUMERIC,
    cells,
    group_name,
    groups,
    ignored_text,
    verdict,
)
from compaction.evaluate.replay.engine import DEFAULT, SessionReplay, StrategyRun, replay, turn_index
from compaction.evaluate.replay.readout import counts_line, nothing_to_replay, places, thin_read
from compaction.evaluate.replay.redact import redact, redact_json
from compaction.evaluate.replay.report import write_report
from compaction.evaluate.replay.turns import first_message_too_big
from compaction.evaluate.strategies import ON_REQUEST, STRATEGIES
from compaction.evaluate.window import RULE, replay_window
from compaction.importers import FORMATS, RULES, ImportedSession, NotASession, load_all, session_paths
from compaction.importers.openhands_conversation import is_conversation

SKIPPED = 3  # exit status: replayed, but files or instances were skipped
TEMPORARY_NOTE = (
    "The work folder was temporary and is removed when the command ends: the places named under "
    "'on disk' are gone. Run with --workdir DIR to keep them."
)
SHOWN_PLACES = 3  # places listed per rule with their detail, before one line naming the rest
TABLE_WIDTH = 200  # characters, when the output is not a terminal


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` subcommand to the ``compaction`` command's subparsers."""
    parser = commands.add_parser(
        "replay",
        help="replay recorded sessions through each strategy, with a report",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="a session file or a folder")
    parser.add_argument("--format", choices=FORMATS, help="skip detection: read every file in this format")
    parser.epilog = "exit status: 0 replayed; 3 replayed, but files or instances were skipped; 2 refused"
    parser.add_argument(
        "--strategy",
        action="append",
        choices=[s for s in STRATEGIES + ON_REQUEST if not split(s)[1]],  # a recording takes no notes
        help=f"repeat for several (default: {', '.join(DEFAULT)})",
    )
    parser.add_argument(
        "--window",
        type=int,
        help=f"context window in tokens (default: {RULE}, for each session; the same rule as "
        "compaction evaluate --session)",
    )
    parser.add_argument(
        "--backend", choices=("offline", "anthropic"), help="who writes summaries (default offline)"
    )
    parser.add_argument(
        "--workdir",
        type=Path,
        help="keep persisted outputs and transcripts here (default: a temporary folder, removed at exit)",
    )
    parser.add_argument(
        "--save-final", type=Path, metavar="DIR", help="write each strategy's final context as JSON"
    )
    parser.add_argument("--report", type=Path, metavar="FILE.html", help="write a self-contained HTML report")
    parser.add_argument(
        "--probes", type=Path, metavar="FILE", help="probes (JSON) instead of those found in each session"
    )
    parser.set_defaults(handler=run_command)
    return parser


def run_command(args: argparse.Namespace, console: Console) -> int:
    """Run ``replay`` with parsed ``args``; returns the exit status."""
    if not _is_tty(console):  # a pipe, a file, a notebook (which sets FORCE_COLOR): plain text, wide
        columns = os.environ.get("COLUMNS", "")  # a caller that sets COLUMNS (a notebook cell) gets it
        width = int(columns) if columns.isdigit() and int(columns) >= 60 else TABLE_WIDTH
        console = Console(
            highlight=False, width=width, file=console.file, force_terminal=False, no_color=True
        )
    errors = Console(stderr=True, highlight=False, width=TABLE_WIDTH, no_color=not _is_tty(console))
    files, status = _files(args.paths, errors)
    if status:
        return status
    if args.window is not None and args.window < 1:
        return _fail(errors, f"--window must be a positive number of tokens, not {args.window}")
    outputs = (
        ("--report", args.report, False),
        ("--save-final", args.save_final, True),
        ("--workdir", args.workdir, True),
    )
    for problem in (output_problem(path, option, folder=folder) for option, path, folder in outputs):
        if problem:
            return _fail(errors, problem)
    try:
        given = load_probes(args.probes) if args.probes else None
    except (ProbeError, OSError) as exc:
        return _fail(errors, str(exc))
    try:
        client = connect(args.backend, context_window=SAMPLE_WINDOW)
    except BackendError as exc:
        return _fail(errors, str(exc))
    with tempfile.TemporaryDirectory(prefix="compaction-replay-") as temporary:
        workdir = args.workdir or Path(temporary)  # the temporary one is removed on the way out
        return _replay_all(args, files, given, client, workdir, console, errors)


def _replay_all(args, files, given, client, workdir: Path, console: Console, errors: Console) -> int:
    """Import and replay every file; a named file that is no session ends it with status 2."""
    strategies = args.strategy or list(DEFAULT)
    sessions, skipped = [], 0
    names = _Names()  # one name per session for what it writes: never the same twice in a run
    for path, named, name in files:
        try:
            found = _sessions(path, args.format, errors)
        except _Refused as exc:
            if named:
                return _fail(errors, f"{path}: {exc}")
            _say(errors, f"{path}: skipped, {exc}")
            skipped += 1
            continue
        skipped += found[1]
        sessions += [(path, session, names.claim(name, session)) for session in found[0]]
    if not sessions:
        return _fail(errors, "no session found in " + ", ".join(str(p) for p in args.paths))
    replays = []
    for path, session, name in sessions:
        probes = given if given is not None else find_probes(session.messages)
        window = args.window if args.window is not None else replay_window(session.messages)
        replay_args = (session, path, strategies, window, workdir / name, client, probes)
        replays.append(_replay_one(*replay_args, console, errors, kept=args.workdir is not None))
        if args.save_final:
            _save_final(replays[-1], args.save_final / name, console)
    console.print(Text(LEGEND), soft_wrap=False)  # wrapped to the terminal, unlike the other lines
    _say(console, verdict(replays), "bold")
    if args.report:
        note = "" if args.workdir else TEMPORARY_NOTE
        _say(console, f"Report: {write_report(replays, args.report, note=note)}")
    if args.workdir:
        _say(console, f"Outputs (persisted results, transcripts): {workdir}")
    if skipped:
        _say(errors, f"{skipped} skipped (each named above); exit status {SKIPPED}")
    return SKIPPED if skipped else 0


class _Names:
    """Names for what each session writes (its final contexts, its work folder), unique in a run.

    A session is named by its path under the folder given (SWE-agent names every file
    ``<instance_id>.traj``, so ``a/s.traj`` and ``b/s.traj`` are ``a/s`` and ``b/s``), with the
    instance when a file holds several; a name already given in this run (the same file name
    passed twice) gets ``~2``, ``~3``.
    """

    def __init__(self) -> None:
        self.given: set[str] = set()

    def claim(self, relative: Path, session: ImportedSession) -> Path:
        """The name of ``session``, read from ``relative``, not given before in this run."""
        base = (relative.parent / file_stem(session, relative)).as_posix()
        name, n = base, 1
        while name.casefold() in self.given:  # a case-insensitive disk would merge S and s
            n += 1
            name = f"{base}~{n}"
        self.given.add(name.casefold())
        return Path(name)


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
            _say(errors, f"{path}#{session.instance}: skipped, nothing to replay: {why}")
    return usable, len(found) - len(usable)


def _files(paths: list[Path], errors: Console) -> tuple[list[tuple[Path, bool, Path]], int]:
    """(file, named by the user, its path under the folder given) for every path; 2 when one is missing."""
    files: list[tuple[Path, bool, Path]] = []
    for path in paths:
        if path.is_dir() and not is_conversation(path):
            files += [(p, False, p.relative_to(path)) for p in session_paths(path)]
        elif path.is_file() or path.is_dir():
            files.append((path, True, Path(path.name)))
        else:
            return [], _fail(errors, f"{path}: no such file or folder")
    return files, 0


def _replay_one(
    session: ImportedSession,
    path: Path,
    strategies,
    window,
    workdir,
    client,
    probes: list[Probe],
    console,
    errors,
    *,
    kept: bool,
) -> SessionReplay:
    console.print()
    where = f"{path}#{session.instance}" if session.instance else str(path)
    agent = f" sub-agent {session.agent} of session {session.session_id or '?'}," if session.agent else ""
    _say(console, f"{where}: {session.format},{agent} {len(session.messages):,} messages", "bold")
    _say(console, counts_line(session, where))
    for line in problem_lines(session, where):
        _say(errors, line)
    if thin_read(session, where):
        _say(errors, thin_read(session, where))
    for c in session.earlier_compactions:
        tokens = f", {c.tokens_before:,} tokens" if c.tokens_before else ""
        _say(
            console,
            f"{where}:{c.where}: the recorded agent compacted here ({c.trigger or '?'}{tokens}); "
            f"replayed from the full history",
        )
    too_big = first_message_too_big(session.messages, window, SharedCounter(Tokens()))
    if too_big:  # said once, up front; each strategy's row says it again
        _say(errors, f"{where}: refused before turn 1: {too_big}; every strategy but none stops there")
    runs: list[StrategyRun] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("turns"))
    with Progress(*columns, console=console, transient=True) as progress:
        for name in strategies:
            task = progress.add_task(name, total=None)
            folder = workdir / name.replace(" ", "-")
            runs.append(
                replay(
                    session.messages,
                    name,
                    window=window,
                    workdir=folder,
                    client=client,
                    probes=probes,
                    source=path,
                    on_turn=lambda done, total, task=task: progress.update(task, completed=done, total=total),
                )
            )
            if runs[-1].refused and not too_big:
                _say(errors, f"{where}: {name} {runs[-1].outcome}")
    # the heading on a line of its own, never wrapped: a long path stays one line to copy
    console.print(session_heading(session, runs, where), soft_wrap=True)
    console.print(strategy_table(runs))
    if kept and any(run.events for run in runs):
        _say(console, f"What left the context is on disk under {workdir}")
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
    return redact(f"{file}: window {runs[0].window:,} tokens") if runs else redact(file)


def strategy_table(runs: list[StrategyRun]) -> Table:
    """The terminal table of one session: the report's columns, identical strategies collapsed."""
    table = Table()
    for name in COLUMNS:
        width = {"strategy": 36, "outcome": 60}.get(name)  # a merged row's sentence, a refusal's reason
        table.add_column(name, justify="right" if name in NUMERIC else "left", max_width=width)
    for group in groups(runs):
        table.add_row(*(redact(c) for c in [group_name(group), *cells(group[0])[1:]]))
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
        out.write_text(json.dumps(redact_json(run.final), ensure_ascii=False, indent=1), encoding="utf-8")
        written.append((run, out))
    _say(console, f"Final contexts: {name.parent}: " + ", ".join(path.name for _, path in written))
    for path, (kept, *others) in same.items():
        listed = ", ".join(others[:-1]) + (" and " if len(others) > 1 else "") + others[-1]
        _say(console, f"  {listed}: the same final context as {kept} ({path.name}), not written again")


def _is_tty(console: Console) -> bool:
    isatty = getattr(console.file, "isatty", None)
    return bool(isatty and isatty())


def _say(console: Console, line: str, style: str = "") -> None:
    console.print(Text(redact(line), style=style), soft_wrap=True)


def _fail(errors: Console, why: str) -> int:
    _say(errors, f"error: {why}", "red")
    return 2
