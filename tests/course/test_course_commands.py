"""``python -m compaction.course lab|test`` (what make calls), and the one temporary folder of a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import pytest
from jupyterlab_server.translation_utils import get_language_packs

from compaction.course import commands, scratch
from compaction.course.__main__ import main

ROOT = Path(__file__).resolve().parents[2]
TRANSLATION = "@jupyterlab/translation-extension:plugin"  # JupyterLab's language setting
LOCALES = {"en": "en", "ja": "ja_JP"}  # edition -> JupyterLab's locale for it


def test_test_runs_ruff_then_one_pytest_over_the_tests_and_every_notebook_strictly():
    ruff, pytest_run = commands.test_commands(ROOT, workers=2)
    assert ruff[1:] == ["-m", "ruff", "check", "."]
    assert pytest_run[1:3] == ["-m", "pytest"]
    assert pytest_run[pytest_run.index("-n") + 1] == "2"
    assert pytest_run[pytest_run.index("--dist") + 1] == "loadfile"  # a notebook's cells share one kernel
    assert "tests" in pytest_run and "--nbval" in pytest_run
    assert pytest_run[pytest_run.index("--nbval-sanitize-with") + 1] == str(
        Path("tests") / "nbval_sanitize.cfg"
    )
    expected = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("notebooks/*.ipynb"))
    expected += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("solutions/*.ipynb"))
    expected += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("ja/notebooks/*.ipynb"))
    expected += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("ja/solutions/*.ipynb"))
    assert [a for a in pytest_run if a.endswith(".ipynb")] == expected


def test_a_course_without_notebooks_runs_no_nbval(tmp_path):
    (tmp_path / "notebooks").mkdir()
    assert "--nbval" not in commands.test_commands(tmp_path, workers=1)[1]


def test_the_tests_always_run_on_the_offline_model_with_their_temporary_files_in_the_run_folder(
    monkeypatch, tmp_path
):
    monkeypatch.setenv("COMPACTION_BACKEND", "anthropic")
    env = commands.offline_env(tmp_path)
    assert "COMPACTION_BACKEND" not in env
    assert env["TMPDIR"] == env["TEMP"] == env["TMP"] == str(tmp_path)


def test_missing_test_tools_are_named_with_the_install_command(monkeypatch):
    real = commands.importlib.util.find_spec
    monkeypatch.setattr(commands.importlib.util, "find_spec", lambda m: None if m == "xdist" else real(m))
    with pytest.raises(commands.CourseError, match=r"pytest-xdist.*pip install -e '\.\[course,test\]'"):
        commands.run_tests(ROOT)


def test_outside_the_course_the_commands_say_where_to_run_them(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["test"]) == 2
    assert "is not the course's folder" in capsys.readouterr().err
    assert main(["lab", "--no-browser"]) == 2


def test_lab_opens_chapter_00_with_the_course_config_and_passes_jupyterlab_flags_on():
    command = commands.lab_command(ROOT, ["--no-browser", "--port=8899"])
    assert command[1:3] == ["-m", "jupyterlab"]
    assert f"--config={ROOT / '.jupyter' / 'jupyter_lab_config.py'}" in command
    assert command[-3:] == ["--no-browser", "--port=8899", "notebooks/00_welcome.ipynb"]
    assert (ROOT / command[-1]).is_file()


def overrides(language: str) -> dict:
    """The edition's JupyterLab setting defaults."""
    return json.loads((commands.lab_settings(ROOT, language) / "overrides.json").read_text())


@pytest.mark.parametrize("language", ["en", "ja"])
def test_lab_sets_jupyterlabs_own_language_to_the_editions_for_that_server_only(language):
    command = commands.lab_command(ROOT, ["--no-browser"], language)
    folder = commands.lab_settings(ROOT, language)
    flag = f"--LabApp.app_settings_dir={folder}"
    assert flag in command and command.index(flag) < command.index("--no-browser")  # the user's flag wins
    assert overrides(language)[TRANSLATION]["locale"] == LOCALES[language]
    assert not any(arg.startswith("--LabApp.user_settings_dir") for arg in command)


def test_the_editions_setting_defaults_differ_only_in_the_language():
    en, ja = (overrides(language) for language in ("en", "ja"))
    assert en.pop(TRANSLATION) != ja.pop(TRANSLATION)
    assert en == ja
    config = (ROOT / commands.LAB_CONFIG).read_text()
    assert '"lab-settings" / "en"' in config  # JupyterLab started with the config alone speaks English


def test_the_course_install_brings_the_japanese_language_pack():
    packs, message = get_language_packs()
    assert LOCALES["ja"] in packs, f"the course extra installs jupyterlab-language-pack-ja-JP ({message})"


def test_the_lab_flags_reach_the_command_line_parser_unchanged(monkeypatch):
    seen = {}
    monkeypatch.setattr(
        "compaction.course.__main__.run_lab",
        lambda root, args, language="en": seen.setdefault("args", list(args)) and 0,
    )
    monkeypatch.chdir(ROOT)
    main(["lab", "--no-browser", "--ServerApp.port=0"])
    assert seen["args"] == ["--no-browser", "--ServerApp.port=0"]


def test_a_run_folder_lives_under_the_course_folder_and_is_removed_even_after_an_error():
    with pytest.raises(RuntimeError), scratch.run_folder() as folder:
        assert folder.parent == scratch.parent_folder() and folder.is_dir()
        (folder / "left-behind").mkdir()
        raise RuntimeError("a failing run")
    assert not folder.exists()


def test_only_run_folders_older_than_the_limit_are_removed(tmp_path):
    old, new, other = tmp_path / "run-old", tmp_path / "run-new", tmp_path / "not-a-run"
    for folder in (old, new, other):
        folder.mkdir()
    long_ago = time.time() - scratch.STALE_AFTER - 60
    os.utime(old, (long_ago, long_ago))
    os.utime(other, (long_ago, long_ago))
    assert scratch.remove_stale(tmp_path) == [old]
    assert not old.exists() and new.exists() and other.exists()


def test_a_process_pointed_at_a_folder_is_put_back(tmp_path):
    before, env_before = tempfile.gettempdir(), os.environ.get("TMPDIR")
    with scratch.this_process_in(tmp_path):
        assert tempfile.gettempdir() == str(tmp_path) and os.environ["TMPDIR"] == str(tmp_path)
        assert os.environ["TIKTOKEN_CACHE_DIR"]  # the warm tokenizer cache is still found
    assert tempfile.gettempdir() == before and os.environ.get("TMPDIR") == env_before


def test_check_prints_no_kernel_warning_and_the_notebooks_temporary_files_go_with_the_run(tmp_path):
    notebook = tmp_path / "probe.ipynb"
    cell = "import tempfile\nprint(tempfile.mkdtemp(prefix='chapter-'))"
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, notebook)
    env = {k: v for k, v in os.environ.items() if k != "COMPACTION_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "compaction.course", "execute", str(notebook)]
    result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    assert result.returncode == 0, result.stderr
    assert "without encryption" not in result.stdout + result.stderr
    made = Path(nbformat.read(notebook, as_version=4).cells[0].outputs[0]["text"].strip())
    assert made.parent.name.startswith("run-") and made.parent.parent.name == scratch.PARENT, made
    assert not made.parent.exists(), "the run's folder should be gone with the run"
