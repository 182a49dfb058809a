"""``python -m compaction evaluate``: every strategy on every session, as tables, then two lines.

``--quick`` compares on the 150-turn offline session and the real sessions (not on the 40- and
80-turn ones); ``--session FILE`` (``.jsonl`` Claude Code, ``.traj`` SWE-agent, ``.traj.json``
mini-swe-agent) with ``--probes FILE`` scores any session (probes found automatically without it);
``--save-final DIR`` writes each strategy's final context as JSON. Each session gets two tables, what
each strategy cost and what it kept (each under 120 columns), with the reason of each refused run
under them. After the tables, the real-session
table (``compaction.evaluate.real``) and the goals; the last two lines are the default pipeline on
the real sessions, pooled, and on the 150-turn offline session (when they were run).
The options are ``compaction.evaluate.options``'s.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from compaction.agent.backend import BackendError, backend_name, connect
from compaction.evaluate import compare, real
from compaction.evaluate.grade import ask_model
from compaction.evaluate.outputs import output_problem
from compaction.evaluate.probes import ProbeError
from compaction.evaluate.replay.turns import Replay, keep_final
from compaction.evaluate.strategies import STRATEGIES
from compaction.importers import NotASession


def evaluate_command(args: argparse.Namespace, console: Console | None = None) -> int:
    """Run the comparison the arguments ask for and print it; 0 on success, 2 on bad input."""
    console = console or Console(highlight=False)
    errors = Console(stderr=True, highlight=False)  # problems and refusals; the tables go to stdout
    if args.probes is not None and args.session is None:
        errors.print("error: --probes needs --session", style="red")
        return 2
    problem = output_problem(args.save_final, "--save-final", folder=True)
    if problem:
        errors.print(f"error: {problem}", style="red", markup=False, soft_wrap=True)
        return 2
    skipped: list[tuple[Path, str]] = []  # shared files that do not import, named on stderr
    try:
        if args.session is not None:
            sessions = [compare.recorded_session(args.session, args.probes, args.window)]
        else:
            sessions = compare.default_sessions(args.quick, skipped)
    except NotASession as exc:
        errors.print(f"error: {args.session}: not a session: {exc.reason}", markup=False, soft_wrap=True)
        return 2
    except (OSError, ValueError, ProbeError) as exc:
        errors.print(f"error: {exc}", style="red", markup=False, soft_wrap=True)
        return 2
    for path, reason in skipped:
        errors.print(
            f"{path}: not a session, left out of the real sessions: {reason}", markup=False, soft_wrap=True
        )
    real_ones = [s for s in sessions if s.turns is None] if args.session is None else []
    client = None
    if args.ask_model:
        try:
            if backend_name() != "anthropic":
                raise BackendError("--ask-model needs the real API: set COMPACTION_BACKEND=anthropic")
            client = connect("anthropic")
        except BackendError as exc:
            errors.print(f"error: {exc}", style="red", markup=False, soft_wrap=True)
            return 2
    strategies = args.strategy or list(STRATEGIES)
    replays = run_with_progress(sessions, strategies, console)
    for r in replays:
        if r.outcome.startswith("refused"):
            errors.print(f"{r.session}: {r.strategy} {r.outcome}", markup=False, soft_wrap=True)
    if client is not None:
        print_model_grades(replays, sessions, client, console)
    for session in sessions:
        console.print(
            f"\n{session.label} (window {session.window:,}; {len(session.probes)} probes)", markup=False
        )
        console.print(compare.session_tables(replays, session.label), markup=False, soft_wrap=True)
    console.print(f"\n{compare.LEGEND}", markup=False, soft_wrap=True)
    if args.save_final is not None:
        for r in replays:
            keep_final(r, args.save_final)
        console.print(f"\nfinal contexts written to {args.save_final}", markup=False)
    print_real(replays, real_ones, console)
    print_fitting(real_ones, console)
    print_goal(replays, console)
    if real_ones:
        console.print(real.headline(replays, real_ones), markup=False, soft_wrap=True)
    labels = [s.label for s in sessions]
    main_session = compare.HEADLINE if compare.HEADLINE in labels else labels[0]
    console.print(compare.headline(replays, main_session), markup=False, soft_wrap=True)
    return 0


def run_with_progress(sessions: list, strategies: list[str], console: Console) -> list[Replay]:
    """``compare.run`` with a progress bar over the replays."""
    columns = (TextColumn("replay"), MofNCompleteColumn(), BarColumn(), TextColumn("{task.description}"))
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("", total=len(sessions) * len(strategies))

        def done(replay: Replay) -> None:
            progress.update(bar, advance=1, description=f"{replay.session}: {replay.strategy}")

        return compare.run(sessions, strategies, on_done=done)


def print_model_grades(replays: list[Replay], sessions: list, client: Any, console: Console) -> None:
    """The share of reached probes the real model answers right, per strategy (one request per probe)."""
    probes = {s.label: s.probes for s in sessions}
    console.print("\nasked the model (answers graded by the evidence):", markup=False)
    for r in replays:
        reached = [p for p in probes[r.session] if p.id not in r.unreached]
        graded = ask_model(reached, r.final, client=client, model=compare.grading_model())
        right = sum(ok for _, ok in graded.values())
        console.print(f"  {r.session}, {r.strategy}: {right}/{len(graded)}", markup=False)


def print_real(replays: list[Replay], sessions: list, console: Console) -> None:
    """The real-session table (the default pipeline, session by session and pooled) and its goal."""
    rows = real.rows(replays, sessions)
    if not rows:
        return
    console.print(
        "\nreal sessions, default pipeline (each in a window of a third of its size; probes by kind; "
        "lost to: the pass that removed the probes it lost):",
        markup=False,
        soft_wrap=True,
    )
    console.print(compare.text_table(real.COLUMNS, rows), markup=False, soft_wrap=True)
    console.print(f"\ngoal for the default pipeline, {real.ALL}:", markup=False)
    for criterion, measured, met in real.goal(replays, sessions):
        console.print(f"  {'met' if met else 'NOT met'}: {criterion} (measured: {measured})", markup=False)
    for layer, by_session in real.lost_probes(replays, sessions).items():
        lost = "; ".join(f"{session}: {', '.join(ids)}" for session, ids in by_session.items())
        console.print(f"  lost to {layer}: {lost}", markup=False, soft_wrap=True)


def print_fitting(sessions: list, console: Console) -> None:
    """Where compaction paid: each real session in windows it fits, the default against ``none``."""
    fits = real.fitting(sessions)
    if not fits:
        return
    replays = run_with_progress(fits, ["none", compare.DEFAULT], console)
    console.print(
        "\nreal sessions that fit their window (their own size + "
        f"{real.ROOM:,} tokens, and {real.DEFAULT_WINDOW:,}): did compaction pay against none?",
        markup=False,
        soft_wrap=True,
    )
    table = compare.text_table(real.FIT_COLUMNS, real.paid_rows(replays, fits))
    console.print(table, markup=False, soft_wrap=True)
    verdicts = [real.verdict(r, replays) for r in real.mine(replays, fits)]
    console.print(
        f"  paid {verdicts.count('paid')}, did not pay {verdicts.count('did not pay')}, "
        f"untouched {verdicts.count('untouched')} of {len(verdicts)}",
        markup=False,
    )


def print_goal(replays: list[Replay], console: Console) -> None:
    """The default pipeline against item 4's goal, and which probes it lost to which layer."""
    checks = compare.goal(replays)
    if not checks:
        return
    console.print(f"\ngoal for the default pipeline, {compare.HEADLINE}:", markup=False)
    for criterion, measured, met in checks:
        console.print(f"  {'met' if met else 'NOT met'}: {criterion} (measured: {measured})", markup=False)
    mine = next(r for r in replays if r.session == compare.HEADLINE and r.strategy == compare.DEFAULT)
    for layer, ids in compare.losses(mine).items():
        console.print(f"  lost to {layer}: {', '.join(ids)}", markup=False, soft_wrap=True)
