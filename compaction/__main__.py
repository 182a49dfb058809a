"""The command line: ``python -m compaction demo|evaluate|replay`` (or ``compaction demo|...``).

``demo`` runs the agent with no compaction until the API refuses the prompt
(``compaction.agent.demo``); ``evaluate`` compares the strategies (``compaction.evaluate.cli``);
``replay PATH...`` replays recorded sessions through the strategies and reports
(``compaction.evaluate.replay.command``). The parser is built from each command's options module,
which imports nothing heavy, and only the chosen command's runner is loaded (through the package's
lazy names), so ``--help`` and a command that makes no request never import the SDK, and none
imports the notebook stack. Nothing here ever prints a key.
"""

from __future__ import annotations

import argparse
import sys

import compaction  # the runners: loaded for the command that runs (compaction/__init__.py)
from compaction.agent.demo_options import add_parser as add_demo
from compaction.evaluate.options import add_parser as add_evaluate
from compaction.evaluate.replay.options import add_parser as add_replay


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``compaction`` command."""
    parser = argparse.ArgumentParser(prog="compaction", description="Context compaction for LLM agents.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (add_demo, add_evaluate, add_replay):
        add(commands)  # run by compaction.<command>_command
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``python -m compaction`` and the ``compaction`` script; returns the exit code."""
    args = build_parser().parse_args(argv)
    return getattr(compaction, f"{args.command}_command")(args)


if __name__ == "__main__":
    sys.exit(main())
