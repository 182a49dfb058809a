"""``compaction evaluate``'s options: which sessions, which strategies, what to write.

The options only: ``compaction.evaluate.cli`` runs the comparison, and loads the agent, the layers
and the SDK when it does (``--help`` needs none of them). Deliberately left out: anything of the run.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from compaction.evaluate.strategy_names import ON_REQUEST, STRATEGIES
from compaction.evaluate.window import RULE


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``evaluate`` subcommand to the ``compaction`` command's subparsers."""
    parser = commands.add_parser(
        "evaluate", help="compare strategies: what each context still knows, at what cost"
    )
    parser.add_argument(
        "--quick", action="store_true", help="the 150-turn offline session and the real sessions"
    )
    parser.add_argument("--session", type=Path, help="a session file to score (.jsonl or .traj)")
    parser.add_argument("--probes", type=Path, help="a JSON probe file for --session")
    parser.add_argument(
        "--window",
        type=int,
        help=f"context window for --session (default: {RULE}; the same rule as compaction replay)",
    )
    parser.add_argument(
        "--strategy", action="append", choices=STRATEGIES + ON_REQUEST, help="only these (repeatable)"
    )
    parser.add_argument("--save-final", type=Path, metavar="DIR", help="write each final context as JSON")
    parser.add_argument(
        "--ask-model",
        action="store_true",
        help="also ask the real model each probe against each final context (COMPACTION_BACKEND=anthropic)",
    )
    return parser
