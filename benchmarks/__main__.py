"""``python -m benchmarks [--quick] [--only SECTION ...]``: print every table, the speedup line last.

``--only`` runs the named sections alone (a section is a module of this folder: ``startup`` for the
command line's start-up, ``team`` for a team's logs, ``clearing`` for ``prepare()`` per turn while
micro clears); the headline speedup line comes with ``pipeline``. Deliberately left out: running
sections in parallel (each one's figures would then include the others' load).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

SECTIONS = (
    "pipeline", "clearing", "counters", "comparison", "course", "startup", "replay", "team", "bench_server",
    "widgets",
)  # fmt: skip  # the order they print in


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark sections asked for (all by default) and print their tables."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller runs, under a minute")
    parser.add_argument("--only", nargs="+", choices=SECTIONS, metavar="SECTION", help=", ".join(SECTIONS))
    args = parser.parse_args(argv)
    os.environ.pop("COMPACTION_BACKEND", None)  # figures come from the offline model only

    chosen = [name for name in SECTIONS if args.only is None or name in args.only]
    speedup = None
    for name in chosen:
        section = importlib.import_module(f"{__package__}.{name}")
        if name == "pipeline":
            text, speedup = section.run(args.quick)
        else:
            text = section.run(args.quick)
        print(text, end="\n\n", flush=True)
    if speedup is not None:
        print(f"pipeline per-turn speedup vs seed-style baseline at 1,000 messages: {speedup:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
