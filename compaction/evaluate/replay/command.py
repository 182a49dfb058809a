"""``compaction replay PATH...``: import each session, replay it through each strategy, report.

For every session file (a folder is searched for .jsonl, .traj and .json files) the command
prints what the importer repaired or skipped, grouped by rule with file and lines, the agent's own
earlier compactions, and a table of the strategies. ``--save-final DIR`` writes each strategy's
final context as JSON, ``--report FILE.html`` the report. Everything printed or written passes
through ``redact``. Exit status: 0 when every session was replayed; 2 when a file given by name is
not a session (one line naming it and why), a path does not exist, or no session was found.
Session files are only ever opened for reading.
"""

from __future__ import annotations

import argparse
import json
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
from compaction.evaluate.find import find_probes
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
from compaction.evaluate.replay.redact import redact, redact_json
from compaction.evaluate.replay.report import write_report
from compaction.evaluate.strategies import STRATEGIES
from compaction.importers import FORMATS, RULES, ImportedSession, NotASession, load, session_files

WINDOW = 200_000
SHOWN_PLACES = 3  # places listed per rule, one per line, before "..."
TABLE_WIDTH = 200  # characters, when the output is not a terminal


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` subcommand to the ``compaction`` command's subparsers."""
    parser = commands.add_parser(
        "replay", help="replay recorded sessions through each strategy, with a report", description=__doc__
    )
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="a session file or a folder")
    parser.add_argument("--format", choices=FORMATS, help="skip detection: read every file in this format")
    parser.add_argument(
        "--strategy",
        action="append",
        choices=STRATEGIES,
        help=f"repeat for several (default: {', '.join(DEFAULT)})",
    )
    parser.add_argument(
        "--window", type=int, default=WINDOW, help=f"context window in tokens (default {WINDOW:,})"
    )
    parser.add_argument(
        "--backend", choices=("offline", "anthropic"), help="who writes summaries (default offline)"
    )
    parser.add_argument(
        "--workdir", type=Path, help="where persisted outputs and transcripts go (default: a new temp folder)"
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
        console = Console(
            highlight=False, width=TABLE_WIDTH, file=console.file, force_terminal=False, no_color=True
        )
    files, status = _files(args.paths, console)
    if status:
        return status
    if args.window < 1:
        return _fail(console, f"--window must be a positive number of tokens, not {args.window}")
    try:
        given = load_probes(args.probes) if args.probes else None
    except (ProbeError, OSError) as exc:
        return _fail(console, str(exc))
    try:
        client = connect(args.backend, context_window=SAMPLE_WINDOW)
    except BackendError as exc:
        return _fail(console, str(exc))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="compaction-replay-"))
    strategies = args.strategy or list(DEFAULT)
    replays = []
    for path, named in files:
        try:
            session = load(path, args.format)
        except NotASession as exc:
            if named:
                return _fail(console, str(exc))
            _say(console, f"skipped {exc}", "yellow")
            continue
        probes = given if given is not None else find_probes(session.messages)
        replays.append(_replay_one(session, path, strategies, args.window, workdir, client, probes, console))
        if args.save_final:
            _save_final(replays[-1], args.save_final, console)
    if not replays:
        return _fail(console, "no session found in " + ", ".join(str(p) for p in args.paths))
    console.print(Text(LEGEND), soft_wrap=False)  # wrapped to the terminal, unlike the other lines
    _say(console, verdict(replays), "bold")
    if args.report:
        _say(console, f"Report: {write_report(replays, args.report)}")
    _say(console, f"Outputs (persisted results, transcripts): {workdir}")
    return 0


def _files(paths: list[Path], console: Console) -> tuple[list[tuple[Path, bool]], int]:
    """(file, named by the user) for every path; status 2 for a path that does not exist."""
    files: list[tuple[Path, bool]] = []
    for path in paths:
        if path.is_dir():
            files += [(p, False) for p in session_files(path)]
        elif path.is_file():
            files.append((path, True))
        else:
            return [], _fail(console, f"{path}: no such file or folder")
    return files, 0


def _replay_one(
    session: ImportedSession, path: Path, strategies, window, workdir, client, probes: list[Probe], console
) -> SessionReplay:
    _say(console, f"\n{path}: {session.format}, {len(session.messages):,} messages", "bold")
    for line in problem_lines(session):
        _say(console, line, "yellow")
    for c in session.earlier_compactions:
        tokens = f", {c.tokens_before:,} tokens" if c.tokens_before else ""
        _say(
            console,
            f"{session.file}:{c.where}: the recorded agent compacted here ({c.trigger or '?'}{tokens}); "
            f"replayed from the full history",
        )
    runs: list[StrategyRun] = []
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn("turns"))
    with Progress(*columns, console=console, transient=True) as progress:
        for name in strategies:
            task = progress.add_task(name, total=None)
            folder = workdir / Path(session.file).stem / name.replace(" ", "-")
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
    console.print(strategy_table(session, runs))
    if any(run.events for run in runs):
        _say(console, f"What left the context is on disk under {workdir / Path(session.file).stem}")
    return SessionReplay(session, runs, turn_index(session.messages), probes)


def problem_lines(session: ImportedSession) -> list[str]:
    """One line per rule: how many times, and the first places, each with its file."""
    by_rule: dict[str, list] = defaultdict(list)
    for p in session.problems:
        by_rule[p.rule].append(p)
    lines = []
    for rule, found in by_rule.items():
        lines.append(f"{session.file}: {rule} x{len(found)}: {RULES.get(rule, rule)}")
        lines += [f"  {p.where}: {p.detail}" for p in found[:SHOWN_PLACES]]
        if len(found) > SHOWN_PLACES:
            lines.append(f"  ... {len(found) - SHOWN_PLACES} more")
    if session.ignored:
        lines.append(
            f"{session.file}: left out by design (never sent to the model): {ignored_text(session.ignored)}"
        )
    if session.off_branch:
        lines.append(f"{session.file}: {session.off_branch} records on a rewound branch, not replayed")
    return lines


def strategy_table(session: ImportedSession, runs: list[StrategyRun]) -> Table:
    """The terminal table of one session: the report's columns, identical strategies collapsed."""
    table = Table(
        title=redact(f"{session.file}: window {runs[0].window:,} tokens") if runs else session.file,
    )
    for name in COLUMNS:
        table.add_column(name, justify="right" if name in NUMERIC else "left")
    for group in groups(runs):
        table.add_row(*(redact(c) for c in [group_name(group), *cells(group[0])[1:]]))
    return table


def _save_final(result: SessionReplay, folder: Path, console: Console) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for run in result.runs:
        out = folder / f"{Path(result.session.file).stem}.{run.strategy.replace(' ', '-')}.json"
        out.write_text(json.dumps(redact_json(run.final), ensure_ascii=False, indent=1), encoding="utf-8")
    _say(console, f"Final contexts: {folder}")


def _is_tty(console: Console) -> bool:
    isatty = getattr(console.file, "isatty", None)
    return bool(isatty and isatty())


def _say(console: Console, line: str, style: str = "") -> None:
    console.print(Text(redact(line), style=style), soft_wrap=True)


def _fail(console: Console, why: str) -> int:
    _say(console, f"error: {why}", "red")
    return 2
