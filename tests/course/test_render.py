"""The rendered edition: a page per notebook of both editions, links between them that lead somewhere,
a bar to move around, and the widget state every widget needs to be drawn.

A small build (chapters 00 and 01) with the renderer's address given, so no npm is asked; the full
build's links are checked without building, from the notebooks' own links. The browser sees it in
tests/views/test_edition_browser.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from compaction.course import render
from compaction.course.__main__ import main
from compaction.course.commands import NOTEBOOK_FOLDERS
from compaction.presentation.texts_ja import TEXTS

ROOT = Path(__file__).resolve().parents[2]
RENDERER = "https://renderer.invalid/embed.js"  # any address: these tests do not draw the widgets
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """Chapters 00 and 01 of both editions, their exercises and solutions."""
    out = tmp_path_factory.mktemp("edition") / "site"
    return out, render.build(ROOT, out, ("en", "ja"), ("00", "01"), RENDERER)


def test_every_notebook_of_both_editions_has_a_page_where_the_repository_has_it():
    pages = render.course_pages(ROOT, ("en", "ja"))
    sources = {p.source for p in pages}
    assert sources == {
        str(p.relative_to(ROOT)) for folder in NOTEBOOK_FOLDERS for p in (ROOT / folder).glob("*.ipynb")
    } | {str(p.relative_to(ROOT)) for f in ("exercises", "ja/exercises") for p in (ROOT / f).glob("*.ipynb")}
    page = next(p for p in pages if p.source == "ja/exercises/05_micro.ipynb")
    assert (page.target, page.language, page.kind, page.stem) == (
        "ja/exercises/05_micro.html",
        "ja",
        "exercises",
        "05_micro",
    )


def test_a_small_build_writes_its_pages_and_an_index_per_edition_with_no_broken_link(site):
    out, built = site
    assert built.broken == []
    assert {p.target for p in built.pages} == {
        f"{lang}{kind}/{stem}.html"
        for lang in ("", "ja/")
        for kind, stem in [("notebooks", "00_welcome"), ("notebooks", "01_messages")]
        + [("exercises", "01_messages"), ("solutions", "01_messages")]
    }
    for page in built.pages:
        assert (out / page.target).is_file()
    english, japanese = (out / "index.html").read_text(), (out / "ja" / "index.html").read_text()
    assert 'href="notebooks/01_messages.html"' in english and 'href="exercises/01_messages.html"' in english
    assert "01 · Messages: the strict form" in english
    assert TEXTS["Context compaction, layer by layer"] in japanese and 'href="../index.html"' in japanese


def test_a_page_carries_the_widget_state_and_loads_the_renderer_and_nothing_else_from_outside(site):
    out, _ = site
    page = (out / "notebooks" / "01_messages.html").read_text()
    assert f'<script type="{WIDGET_STATE}">' in page
    assert page.count(f'<script type="{WIDGET_VIEW}">') >= 1
    external = set(re.findall(r'<(?:script|link)[^>]+(?:src|href)="(https?://[^"]+)"', page))
    assert external == {RENDERER}, external  # no require.js, MathJax or mermaid from a CDN
    assert '<html lang="en">' in page
    assert '<html lang="ja">' in (out / "ja/notebooks/01_messages.html").read_text()


def test_links_between_notebooks_become_links_between_pages():
    page = (
        '<a href="05_micro.ipynb">5</a> <a href="../exercises/05_micro.ipynb#Check-it">x</a>'
        ' <a href="https://example.org/a.ipynb">far</a> <a href="#Summary">here</a>'
    )
    assert render.local_links(page) == (
        '<a href="05_micro.html">5</a> <a href="../exercises/05_micro.html#Check-it">x</a>'
        ' <a href="https://example.org/a.ipynb">far</a> <a href="#Summary">here</a>'
    )


def test_chapter_00s_links_to_the_chapters_lead_to_their_pages(site):
    out, _ = site
    page = (out / "notebooks" / "00_welcome.html").read_text()
    assert 'href="01_messages.html"' in page and not re.search(r'href="[^"]*\.ipynb', page)


def bar_links(page: Path) -> dict[str, str]:
    """The links of a page's bar: text -> address."""
    bar = re.search(r'<nav class="edition">(.*?)</nav>', page.read_text()).group(1)
    return {text: href for href, text in re.findall(r'<a href="([^"]+)">(.*?)</a>', bar)}


def test_the_bar_links_the_index_the_neighbours_the_exercise_the_solution_and_the_other_language(site):
    out, _ = site
    links = bar_links(out / "notebooks/01_messages.html")
    assert links["Contents"] == "../index.html"
    assert links["◀ 00 · Welcome: how this course works"] == "../notebooks/00_welcome.html"
    assert links["exercise"] == "../exercises/01_messages.html"
    assert links["solution"] == "../solutions/01_messages.html"
    assert links["日本語"] == "../ja/notebooks/01_messages.html"
    ja_links = bar_links(out / "ja/exercises/01_messages.html")
    assert ja_links[TEXTS["Contents"]] == "../../ja/index.html"
    assert ja_links["English"] == "../../exercises/01_messages.html"


def test_a_link_to_no_page_is_reported_and_one_to_a_page_left_out_of_a_small_build_is_not(tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "a.html").write_text(
        '<a href="b.html">b</a> <a href="02_tokens.html">c</a> <a href="../../x.html">out</a>'
        ' <img src="data:image/png;base64,AAAA"> <a href="https://example.org/none.html">far</a>'
    )
    (tmp_path / "notebooks" / "b.html").write_text("")
    left_out = frozenset({"notebooks/02_tokens.html"})
    assert render.broken_links(tmp_path, left_out) == ["notebooks/a.html: ../../x.html"]
    assert render.broken_links(tmp_path) == [
        "notebooks/a.html: 02_tokens.html",
        "notebooks/a.html: ../../x.html",
    ]


def markdown_links(path: Path) -> list[str]:
    """The relative links to notebooks in a notebook's markdown cells."""
    notebook = nbformat.read(path, as_version=4)
    cells = [c.source for c in notebook.cells if c.cell_type == "markdown"]
    return [url for text in cells for url in re.findall(r"\]\(([^)\s#]+\.ipynb)(?:#[^)]*)?\)", text)]


def test_every_link_of_the_course_to_a_notebook_leads_to_one_that_the_edition_renders():
    pages = {p.source for p in render.course_pages(ROOT, ("en", "ja"))}
    broken = []
    for source in sorted(pages):
        for url in markdown_links(ROOT / source):
            target = (ROOT / source).parent / url
            if not target.is_file() or str(target.resolve().relative_to(ROOT)) not in pages:
                broken.append(f"{source}: {url}")
    assert broken == []
    assert markdown_links(ROOT / "notebooks" / "00_welcome.ipynb"), "chapter 00 links the chapters"


def widget_views(path: Path) -> tuple[set[str], set[str]]:
    """(the model ids a notebook's outputs show, the model ids its saved widget state holds)."""
    notebook = nbformat.read(path, as_version=4)
    shown = {
        output.data[WIDGET_VIEW]["model_id"]
        for cell in notebook.cells
        for output in cell.get("outputs", [])
        if WIDGET_VIEW in output.get("data", {})
    }
    saved = set(notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {}))
    return shown, saved


@pytest.mark.parametrize("folder", NOTEBOOK_FOLDERS)
def test_every_widget_a_committed_notebook_shows_has_its_saved_state(folder):
    """What the edition draws a widget from: execute saves it (nbclient's store_widget_state)."""
    with_widgets = 0
    for path in sorted((ROOT / folder).glob("*.ipynb")):
        shown, saved = widget_views(path)
        assert shown <= saved, f"{path.name}: no saved state for {sorted(shown - saved)[:3]}"
        with_widgets += bool(shown)
    assert folder.endswith("solutions") or with_widgets >= 5, "the chapters show widgets"


def test_render_from_the_command_line_names_what_it_wrote_and_fails_on_nothing_to_render(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "site"
    args = ["render", "--out", str(out), "--lang", "en", "--chapters", "00", "--widget-renderer", RENDERER]
    assert main(args) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote 1 pages (en) to {out} in ") and RENDERER in said
    assert (out / "notebooks" / "00_welcome.html").is_file() and not (out / "ja").exists()
    assert main([*args[:-4], "--chapters", "99", "--widget-renderer", RENDERER]) == 2
    assert "no notebook to render" in capsys.readouterr().err
