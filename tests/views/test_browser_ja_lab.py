"""JupyterLab in the Japanese edition: started as ``python -m compaction.course lab --lang ja`` starts
it, its own menus are in Japanese (the language pack the course installs, turned on by the edition's
setting defaults); the user's own settings are not used (a folder of the test's own).

A file of its own, so that pytest-xdist runs it beside the chapters of ``test_browser.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.views.test_browser import JA_LIST_CHAPTER, ROOT, chromium, jupyterlab, needs_chromium

MENU_BAR = "#jp-MainMenu .lm-MenuBar-itemLabel"  # JupyterLab's main menu: File, Edit, View, ...


def read_the_menu_bar(browser, base: str, token: str, notebook: str, screenshot: Path) -> list[str]:
    """Open a notebook (no kernel needed) and read the labels of JupyterLab's main menu."""
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(f"{base}/lab/tree/{notebook}?reset&token={token}")
        page.wait_for_selector(MENU_BAR, timeout=60_000)
        page.wait_for_selector(".jp-Notebook", timeout=30_000)
        screenshot.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(screenshot))
        return [label.inner_text() for label in page.locator(MENU_BAR).all()]
    finally:
        page.close()


@needs_chromium
@pytest.mark.skipif(JA_LIST_CHAPTER is None, reason="the ja edition has no messages chapter")
def test_jupyterlab_itself_speaks_japanese_in_the_japanese_edition(tmp_path):
    screenshot = ROOT / ".artifacts" / "browser_ja_menus.png"
    with jupyterlab(ROOT, tmp_path / "jupyterlab.log", "ja") as (base, token), chromium() as browser:
        labels = read_the_menu_bar(browser, base, token, JA_LIST_CHAPTER, screenshot)
    assert "ファイル" in labels and "編集" in labels, labels  # File, Edit
    assert "File" not in labels and "Edit" not in labels, labels
