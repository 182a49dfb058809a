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
``--jobs N`` replays the files on N processes (default: the cores this process may run on); the
output is the same as with one, file after file in the order found, then one summary over all.
Exit status: 0 when every session was replayed (refused strategies included); 3 when sessions
were replayed but files or instances found in a folder or output file were skipped (each named
on stderr with why); 2 when a file given by name is not a session or holds nothing to replay
(one line naming it and why; the other files are still replayed), a path does not exist, the
window or the number of jobs is not a positive number, or no session was found. Session files are
only ever opened for reading.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from compaction.evaluate.strategy_names import ON_REQUEST, REPLAYED, STRATEGIES, split
from compaction.evaluate.window import RULE
from compaction.importers.formats import FORMATS


def add_parser(commands: Any) -> argparse.ArgumentParser:
    """Add the ``replay`` subcommand to the ``compaction`` command's subparsers (its options only:
    ``compaction.evaluate.replay.command`` runs it)."""
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
        help=f"repeat for several (default: {', '.join(REPLAYED)})",
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
    parser.add_argument(
        "--jobs",
        type=int,
        metavar="N",
        help="replay the files on N processes (default: the cores); the output is the same as with 1",
    )
    return parser
