"""The rendered edition in a browser: from the index to chapter 01, whose message list the Jupyter
widgets' HTML manager draws from the state saved in the notebook, with no kernel and no request
leaving 127.0.0.1; then the same page of the Japanese edition, its widget in Japanese.

A small build (chapters 00 and 01 of both editions) served by Python's http.server on 127.0.0.1,
opened by Debian's chromium through Playwright; the renderer comes from the npm registry as the
real build fetches it (skipped without npm). Screenshots go to .artifacts/.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import shutil
import threading
from pathlib import Path

import pytest

from compaction.course import render
from compaction.presentation.texts_ja import TEXTS
from tests.views.test_browser import CHROMIUM, ROOT, chromium

RENDERED = ".widget-vbox.compaction-msglist"  # MessageListView's box: the HTML manager drew it
ROW = ".compaction-row"

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: apt-get install -y chromium"),
    pytest.mark.skipif(shutil.which("npm") is None, reason="no npm: the build fetches the renderer with it"),
]


class Quiet(http.server.SimpleHTTPRequestHandler):
    """A static file server that keeps its request log to itself."""

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@contextlib.contextmanager
def serving(folder: Path):
    """``folder`` over HTTP on 127.0.0.1; yield its base URL; stop at the end."""
    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


@pytest.fixture(scope="module")
def edition(tmp_path_factory):
    """Chapters 00 and 01 of both editions, with the widget renderer in the site."""
    out = tmp_path_factory.mktemp("edition") / "site"
    built = render.build(ROOT, out, ("en", "ja"), ("00", "01"))
    assert built.renderer == f"{render.STATIC}/embed.js", built.renderer  # npm pack worked
    assert built.broken == []
    return out


def drawn_list(page) -> dict:
    """Wait for the drawn message list; its rows, its button's text and the page's title."""
    widget = page.locator(RENDERED).first
    widget.wait_for(timeout=30_000)
    return {
        "rows": widget.locator(ROW).count(),
        "button": page.locator(".widget-button").first.inner_text(),
        "title": page.title(),
    }


def test_a_reader_goes_from_the_index_to_chapter_01_and_sees_its_widget_drawn_from_the_saved_state(edition):
    screenshots = ROOT / ".artifacts"
    screenshots.mkdir(exist_ok=True)
    with serving(edition) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        requested = []
        page.on("request", lambda request: requested.append(request.url))
        page.goto(f"{base}/index.html")
        page.get_by_role("link", name="01 · Messages: the strict form").click()
        page.wait_for_url(f"{base}/notebooks/01_messages.html")
        english = drawn_list(page)
        page.locator(RENDERED).first.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshots / "edition_messages.png"))
        page.locator("nav.edition").first.get_by_role("link", name="日本語").click()
        page.wait_for_url(f"{base}/ja/notebooks/01_messages.html")
        japanese = drawn_list(page)
        page.screenshot(path=str(screenshots / "edition_ja_messages.png"))
    assert english["rows"] > 0 and english["button"].startswith("show more"), english
    assert japanese["rows"] == english["rows"] and japanese["button"].startswith(TEXTS["show more"]), japanese
    assert "01 · Messages" in english["title"]
    assert [url for url in requested if not url.startswith(base)] == []
    assert f"{base}/_static/html-manager/embed.js" in requested
