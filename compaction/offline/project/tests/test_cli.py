"""Tests of textstats.cli."""

import contextlib
import io
import json
import os

from textstats.cli import main

SAMPLE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "fox.txt")


def run(argv):
    out = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_json_output_is_a_report():
    code, out, _ = run([SAMPLE, "--json"])
    assert code == 0
    assert json.loads(out)["sentences"] == 3


def test_missing_file_exits_with_one():
    code, _, err = run(["no-such-file.txt"])
    assert code == 1
    assert "cannot read no-such-file.txt" in err


def test_markdown_output():
    code, out, _ = run([SAMPLE, "--markdown"])
    assert code == 0 and out.startswith("## Text report: ")
