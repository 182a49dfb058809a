"""A tiny deterministic test runner: ``python run_tests.py [FILE ...] [-k WORD]``.

It imports every ``tests/test_*.py`` (or the files given), runs each function whose name
starts with ``test_`` in the order it is written, and prints one line per file, the
failures with tracebacks using relative paths, and a summary such as ``12 passed, 3 failed``.
It prints no timings, so two runs of the same code print the same bytes. Fixtures,
parametrisation and parallel runs are left out on purpose; use pytest for those.
"""

import importlib.util
import os
import sys
import traceback

ROOT = os.path.dirname(os.path.abspath(__file__))


def discover(paths):
    """The test files to run, as paths relative to the project root, sorted."""
    if not paths:
        folder = os.path.join(ROOT, "tests")
        paths = [os.path.join("tests", n) for n in os.listdir(folder) if n.startswith("test_")]
        paths = [p for p in paths if p.endswith(".py")]
    return sorted(os.path.relpath(os.path.abspath(p), ROOT) for p in paths)


def load(path):
    """Import one test file as a module."""
    name = "tests." + os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_functions(module):
    """The test functions of a module, in the order they appear in the file."""
    found = [f for n, f in vars(module).items() if n.startswith("test_") and callable(f)]
    return sorted(found, key=lambda f: f.__code__.co_firstlineno)


def describe(error):
    """A traceback of ``error`` with paths relative to the project, runner frames left out."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename != __file__]
    lines = []
    for frame in frames:
        path = os.path.relpath(frame.filename, ROOT) if frame.filename.startswith(ROOT) else frame.filename
        lines.append(f'  File "{path}", line {frame.lineno}, in {frame.name}')
        if frame.line:
            lines.append(f"    {frame.line}")
    message = str(error)
    lines.append(f"{type(error).__name__}: {message}" if message else type(error).__name__)
    return "\n".join(lines)


def run(paths, keyword=None):
    """Run the tests; return (passed, failed, report lines)."""
    passed, failed, out, failures = 0, 0, [], []
    for path in discover(paths):
        try:
            tests = test_functions(load(path))
        except Exception as error:  # noqa: BLE001 - an import error is a failure of the file
            failed += 1
            out.append(f"{path} E")
            failures.append((path, describe(error)))
            continue
        marks = ""
        for test in tests:
            if keyword and keyword not in test.__name__:
                continue
            try:
                test()
            except Exception as error:  # noqa: BLE001 - every exception fails the test
                failed += 1
                marks += "F"
                failures.append((f"{path}::{test.__name__}", describe(error)))
            else:
                passed += 1
                marks += "."
        out.append(f"{path} {marks}")
    for name, text in failures:
        out += ["", f"FAILED {name}", text]
    return passed, failed, out


def main(argv):
    """Parse the arguments, run, print; exit code 1 when anything failed."""
    keyword = None
    if "-k" in argv:
        at = argv.index("-k")
        keyword = argv[at + 1] if at + 1 < len(argv) else ""
        argv = argv[:at] + argv[at + 2 :]
    sys.path.insert(0, ROOT)
    passed, failed, lines = run(argv, keyword)
    print("\n".join(lines))
    print()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
