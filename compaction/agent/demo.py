"""``compaction demo``: the agent with no compaction in a small window, until the API refuses the prompt.

``demo`` prints one row per turn (messages, estimated tokens, the API's input tokens) and ends on the
API's own ``prompt is too long`` error, shown as the SDK raised it. Exit code 0 when that is how it
ended, 1 otherwise, 2 when the backend cannot be had. ``--compact`` hands over to
``compaction.agent.session.run_compacted_demo`` (the same run with the pipeline on). The options are
``demo_options``'s. Nothing here ever prints a key. Deliberately left out: any other scenario.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich.table import Table
from rich.text import Text

from compaction.agent.backend import BackendError, backend_name, connect
from compaction.agent.demo_options import DEMO_TURNS, DEMO_WINDOW
from compaction.agent.loop import new_workspace, run_agent
from compaction.agent.session import run_compacted_demo
from compaction.core.api_errors import is_prompt_too_long


def demo_command(args: argparse.Namespace, console: Console | None = None) -> int:
    """Run ``compaction demo`` with parsed ``args``; returns the exit code."""
    console = console or Console(highlight=False)
    if args.compact:
        return _compacted(args, console)
    return demo(
        turns=args.turns,
        window=args.window,
        workdir=args.workdir,
        backend=args.backend,
        seed=args.seed,
        console=console,
    )


def _compacted(args: argparse.Namespace, console: Console) -> int:
    return run_compacted_demo(
        turns=args.turns, window=args.window, workdir=args.workdir, backend=args.backend, console=console
    )


def demo(
    *,
    turns: int = DEMO_TURNS,
    window: int = DEMO_WINDOW,
    workdir: Path | None = None,
    backend: str | None = None,
    seed: int = 0,
    console: Console | None = None,
) -> int:
    """Run the agent with no compaction until the API refuses the prompt; 0 when it did."""

    console = console or Console(highlight=False)
    try:
        client = connect(backend, context_window=window, seed=seed)
    except BackendError as exc:
        console.print(Text(f"error: {exc}", style="red"), soft_wrap=True)
        return 2
    real = backend_name(backend) == "anthropic"
    folder = new_workspace(workdir)  # a temporary folder when workdir is None
    where = (
        "against the real API (the model's own window)"
        if real
        else f"offline in a window of {window:,} tokens"
    )
    console.print(f"Agent running {where} with no compaction, at most {turns} turns.")
    columns = (TextColumn("turn"), MofNCompleteColumn(), BarColumn(), TextColumn("{task.description}"))
    try:
        with Progress(*columns, console=console, transient=True) as progress:
            bar = progress.add_task("", total=turns)

            def on_turn(record):
                progress.update(
                    bar, completed=record.index + 1, description=f"{record.estimated_tokens:,} tokens"
                )

            result = run_agent(client, workspace=folder, max_turns=turns, on_turn=on_turn)
    finally:
        if workdir is None:
            shutil.rmtree(folder, ignore_errors=True)
    console.print(turn_table(result.turns, None if real else window))
    if workdir is not None:
        console.print(f"Workspace kept in {workdir}")
    if result.error is not None:
        error = Text(f"{type(result.error).__name__}: {result.error}", style="bold red")
        console.print(error, soft_wrap=True)  # one line, as the SDK raised it
        if is_prompt_too_long(result.error):
            console.print(
                f"The API refused the prompt after {result.turns[-1].index} turns: the context is full."
            )
            return 0
        return 1
    console.print(f"The session ended after {len(result.turns)} turns without filling the window.")
    return 1


def turn_table(turns: list, window: int | None = None) -> Table:
    """One row per model call: turn, messages sent, estimated tokens, API input tokens, tools called."""
    table = Table(title="Tokens per turn" + (f" (window {window:,})" if window else ""))
    for name in ("turn", "messages", "estimated tokens", "API input tokens"):
        table.add_column(name, justify="right")
    table.add_column("tools called")
    for t in turns:
        api = "refused" if t.input_tokens is None else f"{t.input_tokens:,}"
        tools = ", ".join(t.tool_calls) or ("-" if t.error is None else "")
        table.add_row(str(t.index), str(len(t.messages)), f"{t.estimated_tokens:,}", api, tools)
    return table
