"""The command line: ``compaction demo`` runs offline until the API refuses the prompt.

Most tests call ``main(argv)`` in this process (``run_main``: its return value is the exit code,
output captured at the file descriptors); the two about the process itself run it for real
(``run_cli``): the API key never printed by ``python -m compaction``, and the console script.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from rich.console import Console

from compaction import __main__ as cli
from compaction.agent import demo

ROOT = Path(__file__).resolve().parents[2]


def offline_ready() -> bool:
    return (
        all(
            importlib.util.find_spec(name) is not None
            for name in ("compaction.agent.backend", "compaction.offline.server.loopback")
        )
        and (ROOT / "compaction" / "offline" / "project" / "run_tests.py").exists()
    )


needs_offline = pytest.mark.skipif(
    not offline_ready(), reason="the offline server and project are not built yet"
)


def run_cli(*args, env=None):
    environment = {k: v for k, v in os.environ.items() if k != "COMPACTION_BACKEND"} | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "compaction", *args],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_main(args, capfd, monkeypatch):
    """``main(args)`` as ``run_cli`` would run it (course folder, no COMPACTION_BACKEND), in this process."""
    monkeypatch.delenv("COMPACTION_BACKEND", raising=False)
    monkeypatch.chdir(ROOT)
    code = cli.main(list(args))
    out, err = capfd.readouterr()
    return SimpleNamespace(returncode=code, stdout=out, stderr=err)


def test_the_demo_options_have_the_documented_defaults():
    args = cli.build_parser().parse_args(["demo"])
    assert (args.turns, args.window, args.workdir, args.backend, args.compact) == (
        60,
        8000,
        None,
        None,
        False,
    )


@pytest.mark.parametrize(
    "bad", [["demo", "--turns", "0"], ["demo", "--window", "-5"], ["demo", "--backend", "x"]]
)
def test_bad_options_are_refused_by_name(bad, capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(bad)
    assert exit_info.value.code == 2
    assert bad[1] in capsys.readouterr().err


def test_compact_hands_over_to_run_compacted_demo(monkeypatch, tmp_path):
    seen = {}

    def run_compacted_demo(**kwargs):
        seen.update(kwargs)
        return 0

    monkeypatch.setattr(demo, "run_compacted_demo", run_compacted_demo)
    code = cli.main(["demo", "--compact", "--turns", "7", "--window", "9000", "--workdir", str(tmp_path)])
    assert code == 0
    assert (seen["turns"], seen["window"], seen["workdir"], seen["backend"]) == (7, 9000, tmp_path, None)
    assert isinstance(seen["console"], Console)


@needs_offline
def test_the_demo_ends_on_the_apis_prompt_too_long_error_with_exit_0(capfd, monkeypatch):
    done = run_main(["demo"], capfd, monkeypatch)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Tokens per turn (window 8,000)" in done.stdout
    assert "BadRequestError: Error code: 400" in done.stdout
    assert "prompt is too long:" in done.stdout and "> 8000 maximum" in done.stdout


@needs_offline
def test_the_demo_prints_one_row_per_turn(capfd, monkeypatch):
    done = run_main(["demo", "--window", "6000"], capfd, monkeypatch)
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    assert len(rows) >= 3
    assert "refused" in rows[-1]  # the call the API refused


@needs_offline
def test_too_few_turns_to_fill_the_window_exit_1(capfd, monkeypatch):
    done = run_main(["demo", "--turns", "2", "--window", "100000"], capfd, monkeypatch)
    assert done.returncode == 1
    assert "without filling the window" in done.stdout


@needs_offline
def test_workdir_keeps_the_workspace_and_its_files(tmp_path, capfd, monkeypatch):
    workdir = tmp_path / "kept"
    done = run_main(["demo", "--workdir", str(workdir)], capfd, monkeypatch)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (workdir / "run_tests.py").exists()
    assert "Workspace kept in" in done.stdout


@needs_offline
def test_the_demo_never_prints_the_api_key():
    done = run_cli("demo", "--turns", "2", env={"ANTHROPIC_API_KEY": "sk-ant-never-shown"})
    assert "sk-ant-never-shown" not in done.stdout + done.stderr


def test_the_anthropic_backend_without_a_key_fails_naming_the_variable(capfd, monkeypatch):
    if importlib.util.find_spec("compaction.agent.backend") is None:
        pytest.skip("compaction.agent.backend is not built yet")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    done = run_main(["demo", "--backend", "anthropic", "--turns", "1"], capfd, monkeypatch)
    assert done.returncode != 0
    assert "ANTHROPIC_API_KEY" in done.stdout + done.stderr


def test_the_console_script_is_installed_beside_python():
    script = Path(sys.executable).parent / "compaction"
    if not script.exists():
        pytest.skip("the package is not installed with its console script in this environment")
    done = subprocess.run([str(script), "demo", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--workdir" in done.stdout
