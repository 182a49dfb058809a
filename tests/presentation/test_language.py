"""Which language the package speaks: use_language, COMPACTION_LANG, a .course-language file, the locale."""

from __future__ import annotations

from pathlib import Path

import pytest

from compaction.presentation import language as lang
from compaction.presentation.language import LanguageError, language, say, translated, use_language

LOCALE = ("LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def clean(monkeypatch, tmp_path):
    """No variable, no locale, a working folder with no marker above it: English."""
    for name in (lang.VARIABLE, *LOCALE):
        monkeypatch.delenv(name, raising=False)
    folder = tmp_path / "course" / "ja" / "notebooks"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    return folder


def test_english_when_nothing_says_otherwise(clean):
    assert language() == "en"
    assert say("all checks pass") == "all checks pass"


def test_the_locale_chooses_japanese(clean, monkeypatch):
    monkeypatch.setenv("LANG", "ja_JP.UTF-8")
    assert language() == "ja"
    monkeypatch.setenv("LC_ALL", "en_US.UTF-8")  # the first locale variable set wins
    assert language() == "en"


def test_a_marker_above_the_folder_beats_the_locale(clean, monkeypatch):
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    (clean.parent / lang.MARKER).write_text("ja\n", encoding="utf-8")
    assert language() == "ja"
    (clean / lang.MARKER).write_text("en", encoding="utf-8")  # the nearest marker wins
    assert language() == "en"
    assert language(start=clean.parent) == "ja"


def test_the_variable_beats_the_marker(clean, monkeypatch):
    (clean / lang.MARKER).write_text("en", encoding="utf-8")
    monkeypatch.setenv(lang.VARIABLE, "ja")
    assert language() == "ja"
    assert say("all checks pass") == "すべてのチェックに合格しました"


def test_use_language_beats_everything_and_nests(clean, monkeypatch):
    monkeypatch.setenv(lang.VARIABLE, "ja")
    with use_language("en"):
        assert language() == "en"
        with use_language("ja"):
            assert say("show more") == "さらに表示"
        assert say("show more") == "show more"
    assert language() == "ja"


def test_a_bad_variable_is_named(clean, monkeypatch):
    monkeypatch.setenv(lang.VARIABLE, "fr")
    with pytest.raises(LanguageError, match="the COMPACTION_LANG variable: unknown language 'fr'"):
        language()


def test_a_bad_marker_names_its_file(clean):
    marker = clean.parent / lang.MARKER
    marker.write_text("klingon", encoding="utf-8")
    with pytest.raises(LanguageError, match=f"{marker}: unknown language 'klingon'"):
        language()


def test_a_bad_use_language_is_named(clean):
    with pytest.raises(LanguageError, match="use_language: unknown language 'de'"):
        with use_language("de"):
            pass
    assert language() == "en"  # nothing left on the stack


def test_say_fills_fields_in_either_language(clean):
    english = "{ok} of {total} check reports pass"
    assert say(english, ok=2, total=3) == "2 of 3 check reports pass"
    with use_language("ja"):
        assert say(english, ok=2, total=3) == "3 件のチェック結果のうち 2 件が合格"


def test_a_text_without_an_entry_stays_english(clean):
    with use_language("ja"):
        assert say("a sentence nobody translated") == "a sentence nobody translated"
        assert translated("a sentence nobody translated") == "a sentence nobody translated"


def test_translated_fills_a_template_and_translates_its_parts(clean):
    name = "course session 1 (9,990 tokens), 4 budgets"
    assert translated(name) == name
    with use_language("ja"):
        assert translated(name) == "コースのセッション 1（9,990 トークン）、4 通りの予算"
        # a template whose field would hold untranslated prose is not taken
        assert translated("course session 1, something new") == "course session 1, something new"


def test_the_course_folders_carry_their_markers():
    root = Path(__file__).resolve().parents[2]
    assert lang.marked_language(root / "notebooks") == "en"
    assert lang.marked_language(root / "ja" / "notebooks") == "ja"
    assert lang.marked_language(root / "ja" / "solutions") == "ja"


def test_a_removed_working_folder_falls_back_to_the_locale(monkeypatch):
    def gone():
        raise FileNotFoundError("the working folder was removed")

    monkeypatch.delenv("COMPACTION_LANG", raising=False)
    monkeypatch.setattr(lang.Path, "cwd", staticmethod(gone))
    monkeypatch.setenv("LC_ALL", "ja_JP.UTF-8")
    assert lang.language() == "ja"
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    assert lang.language() == "en"
