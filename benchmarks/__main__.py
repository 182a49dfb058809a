"""``python -m benchmarks [--quick]``: print every table, the speedup line last."""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    """Run every benchmark section and print its tables."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller runs, under a minute")
    args = parser.parse_args(argv)
    os.environ.pop("COMPACTION_BACKEND", None)  # figures come from the offline model only

    from . import (
        bench_server,
        clearing,
        comparison,
        counters,
        course,
        pipeline,
        replay,
        startup,
        team,
        widgets,
    )

    overhead, speedup = pipeline.run(args.quick)
    print(overhead, end="\n\n", flush=True)
    for section in (clearing, counters, comparison, course, startup, replay, team, bench_server, widgets):
        print(section.run(args.quick), end="\n\n", flush=True)
    print(f"pipeline per-turn speedup vs seed-style baseline at 1,000 messages: {speedup:.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
