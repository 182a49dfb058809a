"""The course machinery: generate exercises from solutions, execute notebooks, check a learner's copy.

``python -m compaction.course build-exercises [--check]`` turns every ``solutions/NN_x.ipynb`` into
``exercises/NN_x.ipynb``: each region between a ``### BEGIN SOLUTION`` line and its
``### END SOLUTION`` line becomes ``raise NotImplementedError("<hint>")`` at the marker's
indentation (an optional first line ``# Hint: ...`` inside the region is kept and gives the hint),
outputs are cleared. ``execute PATH...`` runs notebooks in their own folder and saves the outputs.
``check PATH`` runs a learner's exercise notebook and prints the verdict of every check report in it.
Deliberately left out: grading, scores, hidden tests; a check is a table the learner reads.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
HINT_PREFIX = "# Hint:"
DEFAULT_HINT = "replace this line with your solution"
# the first line of a CheckReport's text/plain form, e.g. "PASS validate: 7/7 checks passed"
REPORT_LINE = re.compile(r"^(PASS|FAIL) .+: \d+/\d+ checks passed$")
CELL_TIMEOUT = 120  # seconds one cell may run before execute/check give up


class MarkerError(ValueError):
    """Solution markers that do not pair up: names the file, the cell and the line."""


def strip_solutions(source: str, *, where: str = "cell") -> str:
    """Replace every BEGIN/END SOLUTION region of one cell's source by a NotImplementedError stub."""
    out: list[str] = []
    region: list[str] | None = None  # lines inside the open region
    indent = ""
    for number, line in enumerate(source.split("\n"), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if region is not None:
                raise MarkerError(f"{where}, line {number}: {BEGIN} inside an open solution region")
            region, indent = [], line[: len(line) - len(line.lstrip())]
        elif marker == END:
            if region is None:
                raise MarkerError(f"{where}, line {number}: {END} without a {BEGIN} before it")
            out.extend(_stub(region, indent))
            region = None
        elif region is not None:
            region.append(line)
        else:
            out.append(line)
    if region is not None:
        raise MarkerError(f"{where}: {BEGIN} without a matching {END}")
    return "\n".join(out)


def _stub(region: list[str], indent: str) -> list[str]:
    first = region[0].strip() if region else ""
    if first.startswith(HINT_PREFIX):
        hint = first[len(HINT_PREFIX) :].strip() or DEFAULT_HINT
        return [indent + first, f"{indent}raise NotImplementedError({json.dumps(hint, ensure_ascii=False)})"]
    return [f"{indent}raise NotImplementedError({json.dumps(DEFAULT_HINT)})"]


def build_exercise(solution: nbformat.NotebookNode, *, name: str = "notebook") -> nbformat.NotebookNode:
    """The exercise form of a solution notebook: answers stubbed, outputs and run metadata cleared."""
    nb = copy.deepcopy(solution)
    kernelspec = nb.metadata.get("kernelspec")
    language = nb.metadata.get("language_info", {}).get("name")
    nb.metadata = nbformat.NotebookNode()
    if kernelspec:
        nb.metadata["kernelspec"] = kernelspec
    if language:
        nb.metadata["language_info"] = {"name": language}
    for index, cell in enumerate(nb.cells):
        cell.metadata.pop("execution", None)
        if cell.cell_type != "code":
            continue
        cell.source = strip_solutions(cell.source, where=f"{name}, cell {index}")
        cell.outputs = []
        cell.execution_count = None
    return nb


def exercise_text(solution_path: Path) -> str:
    """The exact file content build-exercises writes for one solution notebook."""
    solution = nbformat.read(solution_path, as_version=4)
    text = nbformat.writes(build_exercise(solution, name=str(solution_path)))
    return text if text.endswith("\n") else text + "\n"  # as nbformat.write ends its files


def build_exercises(solutions: Path, exercises: Path, *, check: bool = False) -> list[str]:
    """Write (or, with check, compare) every exercise; return the names of files that differ."""
    sources = sorted(solutions.glob("*.ipynb")) if solutions.is_dir() else []
    differing: list[str] = []
    for path in sources:
        target = exercises / path.name
        text = exercise_text(path)
        current = target.read_text(encoding="utf-8") if target.exists() else None
        if current == text:
            continue
        differing.append(f"{target} (missing)" if current is None else str(target))
        if not check:
            exercises.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    wanted = {p.name for p in sources}
    orphans = sorted(exercises.glob("*.ipynb")) if exercises.is_dir() else []
    differing += [f"{p} (no solution {solutions / p.name})" for p in orphans if p.name not in wanted]
    return differing


def run_notebook(path: Path, *, allow_errors: bool = False) -> nbformat.NotebookNode:
    """Execute a notebook in its own folder (as nbval does) and return it with its outputs."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    kernel = nb.metadata.get("kernelspec", {}).get("name", "python3")
    client = NotebookClient(
        nb,
        timeout=CELL_TIMEOUT,
        kernel_name=kernel,
        allow_errors=allow_errors,
        record_timing=False,
        resources={"metadata": {"path": str(path.resolve().parent)}},
    )
    client.execute()
    return nb


def report_texts(nb: nbformat.NotebookNode) -> list[str]:
    """The whole text (summary line and rows) of every check report in a notebook's outputs, in order."""
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []) if cell.cell_type == "code" else []:
            text = output.get("data", {}).get("text/plain", "") if "data" in output else ""
            text = text if isinstance(text, str) else "".join(text)
            if REPORT_LINE.match(text.split("\n", 1)[0]):
                texts.append(text)
    return texts


def report_lines(nb: nbformat.NotebookNode) -> list[str]:
    """The summary line of every check report shown in a notebook's outputs, in order."""
    return [text.split("\n", 1)[0] for text in report_texts(nb)]


def failing_rows(report_text: str) -> list[str]:
    """The FAIL rows of one report's text, each naming its case and why."""
    return [line.strip() for line in report_text.split("\n")[1:] if line.strip().startswith("FAIL")]


def error_lines(nb: nbformat.NotebookNode) -> list[str]:
    """One line per unexpected error (cells tagged raises-exception are meant to fail)."""
    return [
        f"cell {i}: {out.get('ename')}: {out.get('evalue')}"
        for i, cell in enumerate(nb.cells)
        if cell.cell_type == "code" and "raises-exception" not in cell.metadata.get("tags", [])
        for out in cell.get("outputs", [])
        if out.get("output_type") == "error"
    ]


def _cmd_build(args: argparse.Namespace) -> int:
    try:
        differing = build_exercises(Path(args.solutions), Path(args.exercises), check=args.check)
    except MarkerError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        for name in differing:
            print(f"differs from its solution: {name}")
        if differing:
            print("run: python -m compaction.course build-exercises", file=sys.stderr)
        return 1 if differing else 0
    for name in differing:
        print(f"left alone: {name}" if "(no solution" in name else f"wrote {name}")
    return 0


def _cmd_execute(args: argparse.Namespace) -> int:
    from nbclient.exceptions import CellExecutionError

    failed = 0
    for name in args.paths:
        path = Path(name)
        start = time.perf_counter()
        try:
            nb = run_notebook(path)
        except CellExecutionError as exc:
            print(f"{path}: a cell failed, outputs not saved\n{exc}", file=sys.stderr)
            failed += 1
            continue
        nbformat.write(nb, path)
        print(f"{path}: {time.perf_counter() - start:.1f} s")
    return 1 if failed else 0


def _cmd_check(args: argparse.Namespace) -> int:
    nb = run_notebook(Path(args.path), allow_errors=True)
    texts = report_texts(nb)
    lines = [text.split("\n", 1)[0] for text in texts]
    for line, text in zip(lines, texts, strict=True):
        print(line)
        for row in failing_rows(text):
            print(f"    {row}")
    errors = error_lines(nb)
    for line in errors:
        print(f"error in {line}")
    if not lines:
        print("no check report found: run the check cells at the end of each exercise")
    ok = bool(lines) and all(line.startswith("PASS") for line in lines) and not errors
    print("all checks pass" if ok else "not yet: some checks fail")
    return 0 if ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: build-exercises, execute, check."""
    parser = argparse.ArgumentParser(prog="python -m compaction.course", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build-exercises", help="write exercises/ from solutions/")
    build.add_argument("--check", action="store_true", help="only compare; exit 1 when they differ")
    build.add_argument("--solutions", default="solutions", help="folder of solved notebooks")
    build.add_argument("--exercises", default="exercises", help="folder of generated exercises")
    build.set_defaults(run=_cmd_build)
    execute = sub.add_parser("execute", help="run notebooks and save their outputs in place")
    execute.add_argument("paths", nargs="+", metavar="PATH")
    execute.set_defaults(run=_cmd_execute)
    check = sub.add_parser("check", help="run an exercise notebook and print its check verdicts")
    check.add_argument("path", metavar="PATH")
    check.set_defaults(run=_cmd_check)
    args = parser.parse_args(argv)
    missing = [
        p for p in getattr(args, "paths", [getattr(args, "path", None)]) if p and not Path(p).is_file()
    ]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
