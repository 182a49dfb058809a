"""``compaction demo``'s options: how many turns, what window, which backend, compacted or not.

The options only: what they mean is ``compaction.agent.demo``, which runs the command and loads the
agent and the SDK when it does (``--help`` needs neither). Deliberately left out: anything of the run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

DEMO_TURNS = 60
DEMO_WINDOW = 8_000  # tokens


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``demo`` subcommand to the ``compaction`` command's subparsers."""
    demo = commands.add_parser("demo", help="run the agent until its context overflows")
    demo.add_argument("--turns", type=positive, default=DEMO_TURNS, help="most model calls to make")
    demo.add_argument("--window", type=positive, default=DEMO_WINDOW, help="context window in tokens")
    demo.add_argument("--workdir", type=Path, help="keep the workspace in this folder")
    demo.add_argument("--backend", choices=("offline", "anthropic"), help="default: offline")
    demo.add_argument("--seed", type=int, default=0, help="seed of the offline scenario")
    demo.add_argument("--compact", action="store_true", help="run with the compaction pipeline on")
    return demo


def positive(value: str) -> int:
    """An option's value as a positive integer; argparse's error otherwise."""
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {value}")
    return number
