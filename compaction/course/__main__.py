"""``python -m compaction.course lab [--lang] | test | build-exercises [--check] | execute | check | render``.

``lab`` opens the course in JupyterLab (``--lang ja``: the Japanese edition) and ``test`` checks
every lesson, as ``make lab`` and ``make test`` do (see ``compaction.course.commands``);
``build-exercises`` turns every ``solutions/NN_x.ipynb`` into ``exercises/NN_x.ipynb`` (and
``ja/solutions/`` into ``ja/exercises/``); ``execute`` runs notebooks in their own folder and saves
the outputs; ``check`` runs a learner's exercise notebook and prints every check report in it as the
notebook shows it (its verdict line, then every row, pass and FAIL), then a count, in the language of
the notebook's edition; ``render`` builds the static HTML edition of every chapter, exercise and
solution of both languages (``compaction.course.render``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import nbformat
from nbclient.exceptions import CellExecutionError

from compaction.course.commands import (
    EXERCISE_FOLDERS,
    CourseError,
    course_root,
    default_workers,
    lab_language,
    run_lab,
    run_tests,
)
from compaction.course.exercises import MarkerError, build_exercises
from compaction.course.notebooks import error_lines, report_rows, report_texts, run_notebook
from compaction.course.render import EDITIONS, build
from compaction.course.translation import apply, out_of_step, sync_all
from compaction.presentation.language import LANGUAGES, LanguageError, language, say, use_language


def _course_command(run: Callable[[Path], int]) -> int:
    """Run a course command in the course's root; a CourseError is one line on stderr and exit 2."""
    try:
        return run(course_root())
    except CourseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _cmd_lab(args: argparse.Namespace) -> int:
    return _course_command(lambda root: run_lab(root, args.lab_args, lab_language(args.lang)))


def _cmd_test(args: argparse.Namespace) -> int:
    return _course_command(lambda root: run_tests(root, args.workers))


def _cmd_build(args: argparse.Namespace) -> int:
    given = (args.solutions, args.exercises)
    if given == (None, None):  # every edition's exercises, from its solutions
        pairs = [(Path(s), Path(e)) for s, e in EXERCISE_FOLDERS if Path(s).is_dir()]
    else:
        pairs = [(Path(args.solutions or "solutions"), Path(args.exercises or "exercises"))]
    try:
        differing = [name for s, e in pairs for name in build_exercises(s, e, check=args.check)]
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
    path = Path(args.path)
    edition = language(start=path.resolve().parent)  # the notebook's edition speaks; a bad setting stops here
    nb = run_notebook(path, allow_errors=True)
    with use_language(edition):
        return _print_checks(nb)


def _print_checks(nb: nbformat.NotebookNode) -> int:
    """Every report of an executed notebook, row by row, its errors, a count and the verdict; exit code."""
    texts = report_texts(nb)
    lines = [text.split("\n", 1)[0] for text in texts]
    for line, text in zip(lines, texts, strict=True):
        print(line)
        for row in report_rows(text):
            print(f"    {row}")
    errors = error_lines(nb)
    for line in errors:
        print(say("error in {where}", where=line))
    if not lines:
        print(say("no check report found: run the check cells at the end of each exercise"))
    passed = bool(lines) and all(line.startswith("PASS") for line in lines)
    if lines:
        ok_reports = sum(line.startswith("PASS") for line in lines)
        print(say("{ok} of {total} check reports pass", ok=ok_reports, total=len(lines)))
    ok = passed and not errors
    if ok:
        print(say("all checks pass"))
    elif passed:
        print(
            say(
                "not yet: every check passes, but {errors} cell(s) raised an error; fill them in",
                errors=len(errors),
            )
        )
    else:
        failing = sum(not line.startswith("PASS") for line in lines)
        print(say("not yet: {failing} of {total} check reports fail", failing=failing, total=len(lines)))
    return 0 if ok else 1


def _cmd_render(args: argparse.Namespace) -> int:
    """Build the rendered edition; exit 1 when a link of it leads nowhere."""

    def run(root: Path) -> int:
        languages, out = args.lang or list(EDITIONS), Path(args.out)
        try:
            built = build(root, out, languages, args.chapters or (), args.widget_renderer, args.workers)
        except ValueError as exc:  # no notebook matched
            print(f"error: {exc}", file=sys.stderr)
            return 2
        for line in built.broken:
            print(f"broken link: {line}", file=sys.stderr)
        print(
            f"wrote {len(built.pages)} pages ({', '.join(languages)}) to {args.out} in {built.seconds:.1f} s;"
            f" widgets drawn by {built.renderer}; open {out / 'index.html'}"
        )
        return 1 if built.broken else 0

    return _course_command(run)


def _cmd_translation(args: argparse.Namespace) -> int:
    """status: what is out of step; sync: English code into ja; apply: a JSON of translations."""
    root = course_root()
    if args.action == "sync":
        sync_all(root)
    elif args.action == "apply":
        if len(args.files) != 2:
            print("error: translation apply JA_NOTEBOOK TEXTS.json", file=sys.stderr)
            return 2
        try:
            texts = json.loads(Path(args.files[1]).read_text(encoding="utf-8"))
            apply(Path(args.files[0]), texts, root)
        except (OSError, ValueError) as exc:  # a missing file, bad JSON, a cell id or notebook not found
            print(f"error: {args.files[1]}: {exc}", file=sys.stderr)
            return 2
    found = out_of_step(root)
    for line in found:
        print(line)
    print(f"{len(found)} cell(s) out of step" if found else "the ja edition is in step with the English")
    return 1 if found and args.action == "status" else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: lab, test, build-exercises, execute, check, translation, render."""
    parser = argparse.ArgumentParser(
        prog="python -m compaction.course", description="The course machinery: exercises, notebooks, checks."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    lab = sub.add_parser(
        "lab",
        help="open the course in JupyterLab at chapter 00 (what make lab does)",
        description="Any further argument is a JupyterLab flag, passed on (e.g. --no-browser).",
    )
    lab.add_argument(
        "--lang",
        choices=LANGUAGES,
        help="the edition to open: en or ja (default: COMPACTION_LANG, else the locale, else en)",
    )
    lab.set_defaults(run=_cmd_lab)
    test = sub.add_parser(
        "test", help="ruff, pytest and strict nbval over every notebook (what make test does)"
    )
    test.add_argument(
        "-n",
        "--workers",
        type=int,
        default=default_workers(),
        help="pytest processes (default: one more than the cores)",
    )
    test.set_defaults(run=_cmd_test)
    build = sub.add_parser(
        "build-exercises", help="write exercises/ from solutions/ (and ja/exercises/ from ja/solutions/)"
    )
    build.add_argument("--check", action="store_true", help="only compare; exit 1 when they differ")
    build.add_argument("--solutions", help="folder of solved notebooks (default: every edition's)")
    build.add_argument("--exercises", help="folder of generated exercises (default: every edition's)")
    build.set_defaults(run=_cmd_build)
    execute = sub.add_parser("execute", help="run notebooks and save their outputs in place")
    execute.add_argument("paths", nargs="+", metavar="PATH")
    execute.set_defaults(run=_cmd_execute)
    check = sub.add_parser("check", help="run an exercise notebook and print its check verdicts")
    check.add_argument("path", metavar="PATH")
    check.set_defaults(run=_cmd_check)
    translation = sub.add_parser("translation", help="the ja edition: status | sync | apply NOTEBOOK JSON")
    translation.add_argument("action", choices=("status", "sync", "apply"))
    translation.add_argument("files", nargs="*", metavar="FILE")
    translation.set_defaults(run=_cmd_translation)
    render = sub.add_parser(
        "render", help="build the static HTML edition: every chapter, exercise and solution, both languages"
    )
    render.add_argument("--out", default="build/edition", help="the site's folder, replaced (%(default)s)")
    render.add_argument("--lang", choices=LANGUAGES, action="append", help="an edition (default: all)")
    render.add_argument("--chapters", nargs="+", metavar="NN", help="only these chapters, by number")
    render.add_argument("--widget-renderer", metavar="URL", help="the widget renderer's address in the pages")
    render.add_argument("-n", "--workers", type=int, default=os.cpu_count() or 1, help="processes (cores)")
    render.set_defaults(run=_cmd_render)
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.lab_args = extra  # JupyterLab's own flags
    missing = [
        p for p in getattr(args, "paths", [getattr(args, "path", None)]) if p and not Path(p).is_file()
    ]
    if missing:
        parser.error(f"no such notebook: {', '.join(missing)}")
    try:
        return args.run(args)
    except LanguageError as exc:  # COMPACTION_LANG or a .course-language file names no known language
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
