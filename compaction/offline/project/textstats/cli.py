"""Command line: ``python -m textstats.cli FILE [--top N] [--json | --markdown]``.

Reads one UTF-8 text file (or ``-`` for standard input) and prints its report. Exit codes:
0 on success, 2 for usage errors (argparse), 1 when the file cannot be read.
"""

import argparse
import json
import sys

from textstats.report import build_report, format_markdown, format_report


def parse_args(argv=None):
    """The parsed command line."""
    parser = argparse.ArgumentParser(prog="textstats", description="Statistics about a text file.")
    parser.add_argument("file", help="a UTF-8 text file, or - for standard input")
    parser.add_argument("--top", type=int, default=5, help="how many top words and bigrams (default 5)")
    output = parser.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help="print the report as JSON")
    output.add_argument("--markdown", action="store_true", help="print the report as a Markdown table")
    args = parser.parse_args(argv)
    if args.top < 0:
        parser.error("--top must be zero or more")
    return args


def read_text(path):
    """The content of ``path``, or of standard input when the path is ``-``."""
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def main(argv=None):
    """Run the command line; return the exit code."""
    args = parse_args(argv)
    try:
        text = read_text(args.file)
    except OSError as error:
        print(f"textstats: cannot read {args.file}: {error.strerror}", file=sys.stderr)
        return 1
    report = build_report(text, top=args.top)
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
    elif args.markdown:
        print(format_markdown(report, title=f"Text report: {args.file}"))
    else:
        print(format_report(report, title=f"Text report: {args.file}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
