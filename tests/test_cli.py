"""The command line: ``compaction demo`` runs offline until the API refuses the prompt."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from compaction import __main__ as cli

ROOT = Path(__file__).resolve().parents[1]


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

    monkeypatch.setattr(cli, "run_compacted_demo", run_compacted_demo)
    code = cli.main(["demo", "--compact", "--turns", "7", "--window", "9000", "--workdir", str(tmp_path)])
    assert code == 0
    assert (seen["turns"], seen["window"], seen["workdir"], seen["backend"]) == (7, 9000, tmp_path, None)
    assert isinstance(seen["console"], Console)


@needs_offline
def test_the_demo_ends_on_the_apis_prompt_too_long_error_with_exit_0():
    done = run_cli("demo")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Tokens per turn (window 8,000)" in done.stdout
    assert "BadRequestError: Error code: 400" in done.stdout
    assert "prompt is too long:" in done.stdout and "> 8000 maximum" in done.stdout


@needs_offline
def test_the_demo_prints_one_row_per_turn():
    done = run_cli("demo", "--window", "6000")
    rows = [line for line in done.stdout.splitlines() if line.startswith("│")]
    assert len(rows) >= 3
    assert "refused" in rows[-1]  # the call the API refused


@needs_offline
def test_too_few_turns_to_fill_the_window_exit_1():
    done = run_cli("demo", "--turns", "2", "--window", "100000")
    assert done.returncode == 1
    assert "without filling the window" in done.stdout


@needs_offline
def test_workdir_keeps_the_workspace_and_its_files(tmp_path):
    workdir = tmp_path / "kept"
    done = run_cli("demo", "--workdir", str(workdir))
    assert done.returncode == 0, done.stdout + done.stderr
    assert (workdir / "run_tests.py").exists()
    assert "Workspace kept in" in done.stdout


@needs_offline
def test_the_demo_never_prints_the_api_key():
    done = run_cli("demo", "--turns", "2", env={"ANTHROPIC_API_KEY": "sk-ant-never-shown"})
    assert "sk-ant-never-shown" not in done.stdout + done.stderr


def test_the_anthropic_backend_without_a_key_fails_naming_the_variable():
    if importlib.util.find_spec("compaction.agent.backend") is None:
        pytest.skip("compaction.agent.backend is not built yet")
    environment = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run(
        [sys.executable, "-m", "compaction", "demo", "--backend", "anthropic", "--turns", "1"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "ANTHROPIC_API_KEY" in done.stdout + done.stderr


def test_the_console_script_is_installed_beside_python():
    script = Path(sys.executable).parent / "compaction"
    if not script.exists():
        pytest.skip("the package is not installed with its console script in this environment")
    done = subprocess.run([str(script), "demo", "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "--workdir" in done.stdout
