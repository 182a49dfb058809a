"""``compaction replay PATH...``: the checks, the files in turn or on several processes, the summary.

What the command does for the user, and its exit statuses, are said in ``options`` (its ``--help``).
Here: the paths become files (a folder's sessions in ``session_paths`` order, each marked as found
rather than named), the options are checked before anything runs (a missing key too, without
loading the SDK), and each file is replayed by ``one_file.replay_file``: one after the other in
this process, with live progress on a terminal, or with ``--jobs N`` (default: the cores) on N
worker processes whose output is written out in the files' order, the same as one process would
have printed it. Then the legend, the verdict over every session, the report and the exit status.
A file is imported, replayed and let go before the next, so memory follows the largest file, not
the folder. Deliberately left out: replaying the sessions of one file on several processes.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from rich.console import Console
from rich.text import Text

from compaction.agent.backend_choice import BackendError, check
from compaction.evaluate.outputs import output_problem
from compaction.evaluate.probes import ProbeError, load_probes
from compaction.evaluate.replay.columns import LEGEND, verdict
from compaction.evaluate.replay.jobs import cores, in_order, write
from compaction.evaluate.replay.one_file import (
    TABLE_WIDTH,
    FileName,
    Settings,
    replay_captured,
    replay_file,
    show,
)
from compaction.evaluate.replay.report import write_report
from compaction.evaluate.strategy_names import REPLAYED
from compaction.importers import session_paths
from compaction.importers.openhands_conversation import is_conversation

SKIPPED = 3  # exit status: replayed, but files or instances were skipped
TEMPORARY_NOTE = (
    "The work folder was temporary and is removed when the command ends: the places named under "
    "'on disk' are gone. Run with --workdir DIR to keep them."
)


def replay_command(args: argparse.Namespace, console: Console | None = None) -> int:
    """Run ``compaction replay`` with parsed ``args``; returns the exit status."""
    console = console or Console(highlight=False)
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
    if args.jobs is not None and args.jobs < 1:
        return _fail(errors, f"--jobs must be a positive number of processes, not {args.jobs}")
    outputs = (
        ("--report", args.report, False),
        ("--save-final", args.save_final, True),
        ("--workdir", args.workdir, True),
    )
    for problem in (output_problem(path, option, folder=folder) for option, path, folder in outputs):
        if problem:
            return _fail(errors, problem)
    try:
        given = tuple(load_probes(args.probes)) if args.probes else None
    except (ProbeError, OSError) as exc:
        return _fail(errors, str(exc))
    try:
        check(args.backend)  # an unknown backend or a missing key, said now: the client waits for a request
    except BackendError as exc:
        return _fail(errors, str(exc))
    with tempfile.TemporaryDirectory(prefix="compaction-replay-") as temporary:
        tty = _is_tty(console)
        settings = Settings(
            strategies=tuple(args.strategy or REPLAYED),
            window=args.window,
            workdir=args.workdir or Path(temporary),  # the temporary one is removed on the way out
            kept=args.workdir is not None,
            format=args.format,
            backend=args.backend,
            probes=given,
            save_final=args.save_final,
            report=args.report is not None,
            width=console.width,
            terminal=tty,
            color_system=console.color_system if tty else None,
        )
        return _replay_all(args, files, settings, console, errors)


def _replay_all(
    args: argparse.Namespace,
    files: list[tuple[Path, bool, Path]],
    settings: Settings,
    console: Console,
    errors: Console,
) -> int:
    """Replay every file, then the summary; a named file that is no session makes the status 2."""
    replays, skipped, refused = [], 0, False
    for outcome in _outcomes(files, settings, args.jobs, console, errors):
        if outcome.refused and outcome.named:
            refused = bool(_fail(errors, f"{outcome.path}: {outcome.refused}"))
        skipped += outcome.skipped + bool(outcome.refused and not outcome.named)
        replays += outcome.replays
    if not replays:
        return 2 if refused else _fail(errors, "no session found in " + ", ".join(str(p) for p in args.paths))
    console.print(Text(LEGEND), soft_wrap=False)  # wrapped to the terminal, unlike the other lines
    show(console, verdict(replays), "bold")
    if args.report:
        note = "" if args.workdir else TEMPORARY_NOTE
        show(console, f"Report: {write_report(replays, args.report, note=note)}")
    if args.workdir:
        show(console, f"Outputs (persisted results, transcripts): {settings.workdir}")
    if skipped:
        show(errors, f"{skipped} skipped (each named above); exit status {SKIPPED}")
    return 2 if refused else SKIPPED if skipped else 0


def _outcomes(
    files: list[tuple[Path, bool, Path]],
    settings: Settings,
    jobs: int | None,
    console: Console,
    errors: Console,
):
    """Each file's outcome in the files' order: replayed here, or on worker processes and printed here."""
    jobs = min(jobs or cores(), len(files))
    names = _names(files)
    if jobs <= 1:
        for (path, named, _), name in zip(files, names, strict=True):
            yield replay_file(path, named, settings, console, errors, name=name)
        return
    tasks = [(path, named, settings, name) for (path, named, _), name in zip(files, names, strict=True)]
    for outcome in in_order(replay_captured, tasks, jobs):
        write(outcome.printed, console.file, errors.file)
        yield outcome


def _names(files: list[tuple[Path, bool, Path]]) -> list[FileName]:
    """Each file's name for what its sessions write, never the same twice in a run.

    A file is named by its path under the folder given (SWE-agent names every file
    ``<instance_id>.traj``, so ``a/s.traj`` and ``b/s.traj`` are ``a/s`` and ``b/s``); a name an
    earlier file took (the same file passed twice) gets ``~2``, ``~3``, compared without case (a
    case-insensitive disk would merge S and s). Named here, before any file is read, so that files
    replayed on other processes get the names one process would have given.
    """
    given: set[str] = set()
    names = []
    for _, _, relative in files:
        base = (relative.parent / relative.stem).as_posix()
        name, n = base, 1
        while name.casefold() in given:
            n += 1
            name = f"{base}~{n}"
        given.add(name.casefold())
        names.append(FileName(relative, f"~{n}" if n > 1 else ""))
    return names


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


def _is_tty(console: Console) -> bool:
    isatty = getattr(console.file, "isatty", None)
    return bool(isatty and isatty())


def _fail(errors: Console, why: str) -> int:
    show(errors, f"error: {why}", "red")
    return 2
