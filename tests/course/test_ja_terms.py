"""The Japanese edition says one thing one way: the glossary's terms and headings in every chapter.

``ja/GLOSSARY.md`` fixes the word for each idea; a variant a translator reached for instead (見てみる for
見る, つなぎ込む for 組み込む, 厳密な形式 for 厳格な形式, 思考ブロック for thinking ブロック,
下敷き for シード) reads as another idea, and a heading the English repeats in every chapter (Build
it, Check it, Plug it in, See it, What production adds, Summary) has one Japanese form.
Paragraphs are one line (a break between Japanese words shows as a space).
Held for chapters and solutions 00-12, whose translations this test was written with;
chapters 13-18 are left to their own pass.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from compaction.course.exercises import strip_solutions
from compaction.presentation.texts_ja import HINTS

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = (ROOT / "ja" / "GLOSSARY.md").read_text(encoding="utf-8")
VARIANTS = {
    "見てみる": "見る",
    "つなぎ込": "組み込む",
    "厳密な形式": "厳格な形式",
    "思考ブロック": "thinking ブロック",
    "下敷き": "シード",  # the seed (learn-claude-code s08), as the glossary writes it
}
HEADINGS = {  # the English heading's start -> the Japanese heading's start
    "## Build it": "## 作る",
    "## Check it": "## チェックする",
    "## Plug it in": "## 組み込む",
    "## See it": "## 見る",
    "## What production adds": "## 本番実装が加えるもの",
    "## Summary": "## まとめ",
}
CJK = r"[\u3040-\u30ff\u3400-\u9fff]"
PAIRS = [
    (p, ROOT / "ja" / p.relative_to(ROOT))
    for folder in ("notebooks", "solutions")
    for p in sorted((ROOT / folder).glob("*.ipynb"))
]


def markdown(path: Path) -> list[str]:
    return [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown"]


def test_the_glossary_names_each_word_this_test_holds():
    for word in (*VARIANTS.values(), "成否", "処理", "出力レベル", "フェーズレベル", "セッションレベル"):
        assert word in GLOSSARY, f"ja/GLOSSARY.md does not name {word}"


@pytest.mark.parametrize(("english", "japanese"), PAIRS, ids=[p[1].name for p in PAIRS])
def test_one_term_per_idea_and_one_heading_per_english_heading(english, japanese):
    for index, (en, ja) in enumerate(zip(markdown(english), markdown(japanese), strict=True)):
        where = f"{japanese.relative_to(ROOT)}, markdown cell {index}"
        for variant, word in VARIANTS.items():
            assert variant not in ja, f"{where}: {variant!r}; the glossary says {word!r}"
        en_heads = [line for line in en.splitlines() if line.startswith("## ")]
        ja_heads = [line for line in ja.splitlines() if line.startswith("## ")]
        for en_head, ja_head in zip(en_heads, ja_heads, strict=True):
            for start, wanted in HEADINGS.items():
                if en_head.startswith(start):
                    assert ja_head.startswith(wanted), (
                        f"{where}: {ja_head!r} translates {en_head!r}: {wanted!r}"
                    )


@pytest.mark.parametrize(("english", "japanese"), PAIRS, ids=[p[1].name for p in PAIRS])
def test_no_line_break_between_japanese_words(english, japanese):
    for index, ja in enumerate(markdown(japanese)):
        broken = re.search(rf"{CJK}\n{CJK}", ja)
        assert not broken, f"{japanese.relative_to(ROOT)}, markdown cell {index}: a break inside a paragraph"


HINT = re.compile(r"# Hint: (.+)")


def hints(path: Path) -> list[str]:
    """The hints of a notebook's solution regions or stubs, in order."""
    return [
        m
        for c in nbformat.read(path, as_version=4).cells
        if c.cell_type == "code"
        for m in HINT.findall(c.source)
    ]


def test_the_ja_exercises_give_every_hint_of_chapters_01_12_and_18_in_japanese():
    for solution in sorted((ROOT / "solutions").glob("*.ipynb")):
        if int(solution.name[:2]) > 12 and int(solution.name[:2]) != 18:  # 13-17: not translated yet
            continue
        english = hints(solution)
        japanese = hints(ROOT / "ja" / "exercises" / solution.name)
        assert english and len(japanese) == len(english), solution.name
        for en, ja in zip(english, japanese, strict=True):
            assert HINTS.get(en) == ja, f"ja/exercises/{solution.name}: {ja!r} is not the Japanese of {en!r}"
            assert re.search(CJK, ja), ja
        assert hints(ROOT / "exercises" / solution.name) == english  # the English edition keeps its own


def test_a_stub_of_the_ja_edition_says_its_hint_in_japanese_in_the_comment_and_the_error():
    hint = "one counter; look at event.kind, and return event.turn when the counter reaches the limit"
    region = f"def f():\n    ### BEGIN SOLUTION\n    # Hint: {hint}\n    return 1\n    ### END SOLUTION"
    stub = strip_solutions(region, edition="ja")
    assert stub.count("カウンターは 1 つ") == 2 and "return 1" not in stub
    assert "one counter" in strip_solutions(region)
