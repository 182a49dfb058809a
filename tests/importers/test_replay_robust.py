"""``compaction replay`` over bad input: mutated copies of every shared session, windows from 1 token.

Never a traceback; the exit status is one the help promises (0 replayed, 2 refused up front);
every problem and refusal goes to stderr and names the path as given on the command line (a
refused file also the line, when a line is to blame); no input file changes; and the command
leaves no temporary folder behind. Driven in-process through ``main(argv)`` to stay fast.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compaction import __main__ as cli
from compaction.importers import session_paths
from compaction.importers.nesting import MAX_DEPTH

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
SESSIONS = session_paths(DATA) if DATA.is_dir() else []  # every session the command would find
needs_data = pytest.mark.skipif(not SESSIONS, reason=f"the shared session data is not at {DATA}")
TIKTOKEN_CACHE = "data-gym-cache"  # tiktoken's encodings, cached in the temp folder on first use
NESTED = b"[" * 100_000 + b"]" * 100_000 + b"\n"  # past any recursive parser's stack


def _middle(lines: list[bytes]) -> int:
    return len(lines) // 2


def mutate(data: bytes, kind: str) -> bytes:
    """``data`` changed the way ``kind`` says (the kinds the issue lists)."""
    lines = data.splitlines(keepends=True)
    if kind.startswith("cut at "):
        num, den = kind.removeprefix("cut at ").split("/")
        return data[: len(data) * int(num) // int(den)]
    if kind == "a binary garbage line":
        at = _middle(lines)
        return b"".join([*lines[:at], b"\x00\xff\xfe\x80garbage\x9c\x01\n", *lines[at:]])
    if kind == "every line twice":
        return b"".join(line if line.endswith(b"\n") else line + b"\n" for line in lines for _ in (0, 1))
    if kind == "a line removed":
        at = _middle(lines)
        return b"".join(lines[:at] + lines[at + 1 :])
    if kind == "CRLF and a BOM":
        return b"\xef\xbb\xbf" + data.replace(b"\n", b"\r\n")
    if kind == "latin-1 bytes":
        at = _middle(lines)
        lines[at] = lines[at].replace(b'": "', b'": "caf\xe9 \xe0 ', 1)
        return b"".join(lines)
    if kind == "a deeply nested first line":
        return NESTED + data
    if kind == "an empty file":
        return b""
    raise ValueError(kind)


MUTATIONS = (
    "cut at 1/4",
    "cut at 1/2",
    "cut at 3/4",
    "a binary garbage line",
    "every line twice",
    "a line removed",
    "CRLF and a BOM",
    "latin-1 bytes",
    "a deeply nested first line",
    "an empty file",
)
WINDOWS = st.one_of(st.integers(1, 1_200), st.integers(1_200, 30_000))


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    """``compaction replay`` in-process: (status, stdout, stderr); any exception fails the test."""
    status = cli.main(["replay", *argv])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_run(capsys, path: Path, window: int, mutation: str) -> None:
    """One run's promises, as the module docstring lists them."""
    before = digest(path)
    status, out, err = run(capsys, [str(path), "--window", str(window)])
    given = f"{path} ({mutation}, --window {window})"
    assert "Traceback" not in out + err, given
    assert status in (0, 2), given
    assert digest(path) == before, f"{given}: the input file changed"
    for line in err.splitlines():
        if line.strip() and not line.startswith("  "):  # indented lines continue the one above
            assert str(path) in line, f"{given}: a line on stderr does not name the file: {line!r}"
    if status == 2:
        (line,) = [line for line in err.splitlines() if line.startswith("error:")]
        assert line.startswith(f"error: {path}"), given
        assert out == "", f"{given}: a refused file printed a table"
        if re.search(r"JSON|nested", line):
            assert re.search(r"line \d+", line), f"{given}: a parse refusal names no line: {line!r}"
    else:
        assert f"{path}: " in out and "strategy" in out, f"{given}: no table on stdout"
        if mutation == "a deeply nested first line":
            assert re.search(rf"{re.escape(str(path))}:line 1: .*nested deeper than {MAX_DEPTH}", err), given
        for row in re.findall(r"refused at turn \d+[^│|\n]*", out):
            assert ":" in row and not re.search(r"[\s(]-\d", row), (
                f"{given}: a refusal without a reason: {row!r}"
            )


@needs_data
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    session=st.sampled_from(SESSIONS or [Path("absent")]),
    mutation=st.sampled_from(MUTATIONS),
    window=WINDOWS,
)
def test_replay_over_a_mutated_session_never_crashes_and_names_every_refusal(
    capsys, monkeypatch, session, mutation, window
):
    with tempfile.TemporaryDirectory() as private:
        work, temp = Path(private) / "in", Path(private) / "tmp"
        work.mkdir()
        temp.mkdir()
        monkeypatch.setattr(tempfile, "tempdir", str(temp))
        path = work / session.name
        path.write_bytes(mutate(session.read_bytes(), mutation))
        try:
            check_run(capsys, path, window, mutation)
        finally:
            monkeypatch.setattr(tempfile, "tempdir", None)
        left = [p.name for p in temp.iterdir() if p.name != TIKTOKEN_CACHE]
        assert not left, f"left behind in the temp folder: {left}"


@needs_data
@pytest.mark.parametrize("window", [20, 300, 1000])
def test_every_shared_session_at_a_small_window_exits_0_with_a_reason_on_every_row(capsys, window):
    status, out, err = run(capsys, [str(DATA), "--window", str(window)])
    assert status == 0, err
    for path in SESSIONS:
        assert f"{path}: " in out, f"{path} is not reported"
    rows = re.findall(r"^[│|] ?(none|masking 10|summary only|pipeline)\b.*$", out, re.M)
    assert rows, out
    for reason in re.findall(r"refused (?:at|before) turn \d+: ([^│|]*)", out):
        assert reason.strip() and not re.search(r"[\s(]-\d", reason), reason
    assert "summary failed" not in err or "Traceback" not in err
