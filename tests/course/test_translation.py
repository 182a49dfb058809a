"""The Japanese edition: kept in step with the English cell by cell, wired into the course's commands.

``differences`` on small notebooks made here (a changed English cell, code that differs, a missing
cell, an untranslated cell, all in step); the real ja edition against the English (fails, naming
chapter and cell, until every translation is in); the commands that serve, test and build the
edition; and ``check`` on a ja solution printing Japanese rows and verdict.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from compaction.course import commands
from compaction.course.__main__ import main
from compaction.course.exercises import build_exercises
from compaction.course.pytest_plugin import run_order
from compaction.course.translation import differences, out_of_step, source_hash, sync, translate

ROOT = Path(__file__).resolve().parents[2]
NAME = "ja/notebooks/09_x.ipynb"


def english() -> nbformat.NotebookNode:
    """A small English chapter: a heading, code, a paragraph."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Snip", id="head"),
        nbformat.v4.new_code_cell("x = 1", id="code"),
        nbformat.v4.new_markdown_cell("Snip keeps the head.", id="para"),
    ]
    return nb


def translated(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Its Japanese counterpart, every markdown cell translated."""
    ja = sync(nb, None)
    translate(nb, ja, {"head": "# スニップ", "para": "snip は先頭を残します。"})
    return ja


def test_in_step_there_is_nothing_to_say():
    nb = english()
    assert differences(nb, translated(nb), NAME) == []


def test_a_changed_english_cell_names_the_chapter_and_the_cell():
    nb = english()
    ja = translated(nb)
    nb.cells[2].source = "Snip keeps the head and the tail."
    (line,) = differences(nb, ja, NAME)
    assert line.startswith(f"{NAME}: cell 2 (markdown para: ") and line.endswith(
        "changed since it was translated"
    )
    assert "Snip keeps the head and the tail." in line


def test_code_that_differs_is_named():
    nb = english()
    ja = translated(nb)
    ja.cells[1].source = "x = 2"
    assert differences(nb, ja, NAME) == [
        f"{NAME}: cell 1 (code code: 'x = 1'): the code differs from the English (run translation sync)"
    ]


def test_a_missing_cell_is_named_either_way():
    nb = english()
    ja = translated(nb)
    shorter = copy.deepcopy(ja)
    shorter.cells.pop()
    assert differences(nb, shorter, NAME) == [
        f"{NAME}: cell 2 (markdown para: 'Snip keeps the head.') has no translated counterpart"
    ]
    ja.cells.append(nbformat.v4.new_markdown_cell("余分なセル", id="extra"))
    assert differences(nb, ja, NAME) == [
        f"{NAME}: translated cell 3 (markdown extra: '余分なセル') has no English counterpart"
    ]


def test_an_untranslated_cell_is_named():
    nb = english()
    ja = sync(nb, None)
    translate(nb, ja, {"head": "# スニップ"})
    assert differences(nb, ja, NAME) == [
        f"{NAME}: cell 2 (markdown para: 'Snip keeps the head.') is not translated"
    ]


def test_a_translation_records_the_english_cell_and_its_hash():
    nb = english()
    record = translated(nb).cells[2].metadata["translation"]
    assert record == {"of": "para", "sha256": source_hash("Snip keeps the head.")}


@pytest.mark.skipif(not (ROOT / "ja" / "notebooks").is_dir(), reason="no ja edition")
def test_the_ja_edition_is_in_step():
    found = out_of_step(ROOT)
    assert found == [], f"{len(found)} cell(s) out of step, first: {found[:5]}"


def test_the_ja_notebooks_are_tested_and_ranked_like_the_english():
    found = commands.notebooks(ROOT)
    assert "ja/notebooks/01_messages.ipynb" in found and "ja/solutions/05_micro.ipynb" in found
    assert run_order("ja/notebooks/04_snip.ipynb") == run_order("notebooks/04_snip.ipynb")
    assert run_order("ja/solutions/04_snip.ipynb") == run_order("solutions/04_snip.ipynb")
    assert run_order("ja/notebooks/04_snip.ipynb") < run_order("solutions/04_snip.ipynb")
    assert run_order("ja/solutions/04_snip.ipynb") < run_order("tests/test_budget.py")


def test_lab_opens_the_ja_chapter_00_when_asked():
    command = commands.lab_command(ROOT, ["--no-browser"], "ja")
    assert command[-2:] == ["--no-browser", "ja/notebooks/00_welcome.ipynb"]
    assert (ROOT / command[-1]).is_file()
    assert commands.lab_command(ROOT, [], "en")[-1] == "notebooks/00_welcome.ipynb"


@pytest.mark.parametrize(
    ("chosen", "environ", "edition"),
    [
        (None, {}, "en"),
        (None, {"LANG": "ja_JP.UTF-8"}, "ja"),
        (None, {"LANG": "en_US.UTF-8"}, "en"),
        (None, {"LANG": "ja_JP.UTF-8", "COMPACTION_LANG": "en"}, "en"),
        ("en", {"LANG": "ja_JP.UTF-8"}, "en"),
        ("ja", {}, "ja"),
    ],
)
def test_the_edition_lab_opens(chosen, environ, edition):
    assert commands.lab_language(chosen, environ) == edition


def test_a_bad_edition_is_named_where_it_was_set():
    with pytest.raises(commands.CourseError, match="the COMPACTION_LANG variable: unknown language 'fr'"):
        commands.lab_language(None, {"COMPACTION_LANG": "fr"})


def test_lab_lang_reaches_run_lab(monkeypatch):
    seen = {}
    monkeypatch.setattr(
        "compaction.course.__main__.run_lab", lambda root, args, language: seen.update(lang=language) or 0
    )
    monkeypatch.chdir(ROOT)
    assert main(["lab", "--lang", "ja", "--no-browser"]) == 0
    assert seen["lang"] == "ja"
    with pytest.raises(SystemExit):
        main(["lab", "--lang", "fr"])


def test_build_exercises_builds_every_edition(tmp_path, monkeypatch, capsys):
    for folder in ("solutions", "ja/solutions"):
        (tmp_path / folder).mkdir(parents=True)
        nb = nbformat.v4.new_notebook()
        nb.cells = [nbformat.v4.new_code_cell("### BEGIN SOLUTION\nx = 1\n### END SOLUTION", id="a")]
        nbformat.write(nb, tmp_path / folder / "01_x.ipynb")
    monkeypatch.chdir(tmp_path)
    assert main(["build-exercises", "--check"]) == 1
    assert "ja/exercises/01_x.ipynb (missing)" in capsys.readouterr().out
    assert main(["build-exercises"]) == 0
    assert (tmp_path / "exercises" / "01_x.ipynb").is_file() and (
        tmp_path / "ja/exercises/01_x.ipynb"
    ).is_file()
    assert main(["build-exercises", "--check"]) == 0


def test_the_committed_ja_exercises_are_built_from_the_ja_solutions():
    assert build_exercises(ROOT / "ja" / "solutions", ROOT / "ja" / "exercises", check=True) == []


def test_check_prints_a_ja_solution_in_japanese():
    environment = {k: v for k, v in os.environ.items() if k not in ("COMPACTION_BACKEND", "COMPACTION_LANG")}
    done = subprocess.run(
        [sys.executable, "-m", "compaction.course", "check", "ja/solutions/05_micro.ipynb"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "すべてのチェックに合格しました"
    assert "件のチェックに合格" in lines[0] and lines[0].startswith("PASS ")
    rows = [line.strip() for line in lines if line.startswith("    pass")]
    assert rows and all(any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in r) for r in rows)
    assert "check reports pass" not in done.stdout and "件が合格" in done.stdout


@pytest.mark.parametrize(
    ("target", "texts", "named"),
    [
        ("ja/notebooks/05_micro.ipynb", {"no-such-cell": "x"}, "no English markdown cell with id"),
        ("ja/notebooks/05_micro.ipynb", ["a list"], "a JSON object of cell id -> text, not list"),
        ("notebooks/05_micro.ipynb", {}, "not a notebook of the edition's folder"),
        ("ja/notebooks/99_none.ipynb", {}, "no such translated notebook"),
    ],
)
def test_translation_apply_names_what_is_wrong_and_writes_nothing(target, texts, named, tmp_path, capsys):
    before = (ROOT / "ja/notebooks/05_micro.ipynb").read_bytes()
    given = tmp_path / "texts.json"
    given.write_text(json.dumps(texts), encoding="utf-8")
    assert main(["translation", "apply", str(ROOT / target), str(given)]) == 2
    assert named in capsys.readouterr().err
    assert (ROOT / "ja/notebooks/05_micro.ipynb").read_bytes() == before


def test_translation_apply_of_a_missing_json_file_is_one_line(tmp_path, capsys):
    missing = tmp_path / "nothing.json"
    assert main(["translation", "apply", str(ROOT / "ja/notebooks/05_micro.ipynb"), str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {missing}") and "Traceback" not in err


def test_sync_keeps_the_translations_and_the_japanese_outputs_of_unchanged_code():
    nb = english()
    ja = translated(nb)
    ja.cells[1].outputs = [nbformat.v4.new_output("stream", text="チェックに合格\n")]
    nb.cells.append(nbformat.v4.new_code_cell("y = 2", id="more"))
    again = sync(nb, ja)
    assert [c.source for c in again.cells] == ["# スニップ", "x = 1", "snip は先頭を残します。", "y = 2"]
    assert again.cells[1].outputs[0].text == "チェックに合格\n"
    assert differences(nb, again, NAME) == []


def test_sync_takes_a_code_cell_the_english_changed_with_the_english_outputs():
    nb = english()
    ja = translated(nb)
    ja.cells[1].outputs = [nbformat.v4.new_output("stream", text="古い出力\n")]
    nb.cells[1].source = "x = 2"
    again = sync(nb, ja)
    assert again.cells[1].source == "x = 2" and again.cells[1].outputs == []
    assert differences(nb, again, NAME) == []


def test_check_with_an_unknown_language_is_one_error_line_before_any_kernel(monkeypatch, capsys):
    monkeypatch.setenv("COMPACTION_LANG", "fr")
    assert main(["check", str(ROOT / "exercises/11_condense.ipynb")]) == 2
    err = capsys.readouterr().err
    assert (
        err.startswith("error: the COMPACTION_LANG variable: unknown language 'fr'")
        and "Traceback" not in err
    )
