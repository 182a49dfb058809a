"""Like a learner: JupyterLab serves the chapters, Chromium runs them, and the widgets respond.

Chapter 01's message list reveals more rows on "show more" (and, in the Japanese edition ``ja/``,
reads its legend and button in Japanese); the snip chapter's before/after shows,
in the live widget, the gap where messages were dropped and the placeholder's own words, and a row
opens onto its content on a click. Starts JupyterLab from this Python on 127.0.0.1 with the course
config and a known token, drives Debian's chromium (never a downloaded browser) with Playwright,
and screenshots to .artifacts/.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from compaction.course.commands import lab_settings
from compaction.presentation.texts_ja import TEXTS
from compaction.views.widgets import legend

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")


def chapter(pattern: str) -> str | None:
    """The chapter whose file name matches (chapters are renumbered as the course grows)."""
    found = sorted(ROOT.glob(f"notebooks/{pattern}.ipynb"))
    return str(found[0].relative_to(ROOT)) if found else None


LIST_CHAPTER, SNIP_CHAPTER = chapter("0[0-9]_messages*"), chapter("[0-9][0-9]_snip")
PIPELINE_CHAPTER = chapter("[0-9][0-9]_pipeline")
JA_LIST_CHAPTER = f"ja/{LIST_CHAPTER}" if LIST_CHAPTER and (ROOT / "ja" / LIST_CHAPTER).is_file() else None
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LIST, ROW = ".compaction-msglist", ".compaction-row"  # what compaction/views/widgets renders
LIVE_DIFF = ".compaction-before-after-live"  # the live BeforeAfter widget (not the saved HTML)
SHOW_MORE = re.compile(r"show more", re.IGNORECASE)


def free_port() -> int:
    """A port nothing listens on right now, on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: Path, log: Path, language: str = "en"):
    """Serve root with the course config in ``language``; yield (base url, token); stop it at the end."""
    port, token = free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "COMPACTION_BACKEND"}
    env["JUPYTERLAB_SETTINGS_DIR"] = str(log.parent / "lab-settings")  # the learner's own stay untouched
    env["JUPYTERLAB_WORKSPACES_DIR"] = str(log.parent / "lab-workspaces")
    # never autosave: the run must not rewrite a committed notebook
    docmanager = log.parent / "lab-settings" / "@jupyterlab" / "docmanager-extension"
    docmanager.mkdir(parents=True, exist_ok=True)
    (docmanager / "plugin.jupyterlab-settings").write_text('{"autosave": false}')
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        f"--config={ROOT / '.jupyter' / 'jupyter_lab_config.py'}",
        f"--LabApp.app_settings_dir={lab_settings(ROOT, language)}",  # as `lab --lang` passes it
        f"--ServerApp.root_dir={root}",
        "--no-browser",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}",
        "--LabApp.expose_app_in_browser=True",
    ]
    with open(log, "w") as out:
        server = subprocess.Popen(command, cwd=root, env=env, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start:\n{log.read_text()[-3000:]}") from None
                time.sleep(0.3)
        yield base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


RUN_ALL = """async () => {
  const app = window.jupyterapp;
  const panel = app.shell.currentWidget;
  await panel.context.ready;
  await panel.sessionContext.ready;
  await app.commands.execute('notebook:clear-all-cell-outputs');
  await app.commands.execute('notebook:run-all-cells');
}"""


SHUT_DOWN = """async () => {
  await window.jupyterapp.shell.currentWidget.sessionContext.shutdown();
}"""


@contextlib.contextmanager
def chromium():
    """Debian's chromium under Playwright, closed whatever happens."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


def open_and_run(browser, base: str, token: str, notebook: str):
    """A new page with the notebook open and every cell sent to the kernel."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(f"{base}/lab/tree/{notebook}?reset&token={token}")  # reset: not the last page's workspace
    page.wait_for_function(
        "path => window.jupyterapp && window.jupyterapp.shell.currentWidget"
        " && window.jupyterapp.shell.currentWidget.context"
        " && window.jupyterapp.shell.currentWidget.context.path === path",
        arg=notebook,
        timeout=30_000,
    )
    page.wait_for_selector(".jp-Notebook", timeout=30_000)
    page.evaluate(RUN_ALL)
    return page


@contextlib.contextmanager
def running(browser, base: str, token: str, notebook: str):
    """The notebook running (``open_and_run``); then its kernel shut down and the page closed."""
    page = open_and_run(browser, base, token, notebook)
    try:
        yield page
    finally:
        with contextlib.suppress(Exception):  # a failed test's page may be gone already
            page.evaluate(SHUT_DOWN)
        page.close()


def run_chapter_and_click_show_more(browser, base: str, token: str, notebook: str, screenshot: Path):
    """Open a notebook, run all, click the first "show more": rows before, after, news pop-ups seen."""
    with running(browser, base, token, notebook) as page:
        widget = page.locator(LIST, has=page.get_by_role("button", name=SHOW_MORE)).first
        widget.wait_for(timeout=45_000)
        widget.scroll_into_view_if_needed()
        view = widget.element_handle()  # pinned: once all rows show, its button disappears
        before = len(view.query_selector_all(ROW))
        view.query_selector("button").click()
        page.wait_for_function(
            "([view, row, n]) => view.querySelectorAll(row).length !== n", arg=[view, ROW, before]
        )
        after = len(view.query_selector_all(ROW))
        news = page.get_by_text("official Jupyter news").count()
        screenshot.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(screenshot))
        return before, after, news


def read_the_snip_diff(browser, base: str, token: str, notebook: str, screenshot: Path) -> dict:
    """Run the snip chapter; in its live before/after read the gap and the placeholder, open a row."""
    with running(browser, base, token, notebook) as page:
        diff = page.locator(LIVE_DIFF).filter(has=page.locator(".compaction-gap")).first
        diff.wait_for(timeout=120_000)
        diff.scroll_into_view_if_needed()
        gap = diff.locator(".compaction-gap").first.inner_text()
        changed = diff.locator(".compaction-row.compaction-changed").first
        words = changed.locator(".compaction-words").first
        content = changed.locator(".compaction-content")
        hidden_before = not content.is_visible()
        changed.locator("summary").first.click()
        content.wait_for(state="visible", timeout=5_000)
        screenshot.parent.mkdir(exist_ok=True)
        changed.scroll_into_view_if_needed()
        page.screenshot(path=str(screenshot))
        return {
            "gap": gap,
            "words": words.inner_text() if words.is_visible() else "",
            "hidden_before": hidden_before,
            "content": content.inner_text(),
            "legend": diff.locator(".compaction-legend").count(),
        }


def step_through(browser, base: str, token: str, notebook: str, screenshot: Path) -> tuple[str, str, bool]:
    """Run the pipeline chapter; in its live stepper click "next": the label before and after."""
    with running(browser, base, token, notebook) as page:
        stepper = page.locator(".compaction-stepper").filter(has=page.locator(".compaction-next")).first
        stepper.wait_for(timeout=120_000)
        stepper.scroll_into_view_if_needed()
        label = stepper.locator(".compaction-label-live")
        label.wait_for(timeout=30_000)
        page.wait_for_function("el => el.innerText.trim().length > 0", arg=label.element_handle())  # drawn
        first = label.inner_text()
        next_button = stepper.locator(".compaction-next")
        if next_button.is_disabled():  # opened on the last pass: step back instead
            stepper.locator(".compaction-prev").click()
        else:
            next_button.click()
        page.wait_for_function("([el, text]) => el.innerText !== text", arg=[label.element_handle(), first])
        screenshot.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(screenshot))
        return (
            first,
            label.inner_text(),
            stepper.locator(".compaction-pass-live .compaction-gauge").count() > 0,
        )


@pytest.fixture(scope="module")
def browser():
    """One browser for the module (Playwright's sync API allows one at a time)."""
    with chromium() as opened:
        yield opened


@pytest.fixture(scope="module")
def lab(tmp_path_factory, browser):
    """One JupyterLab server and the browser, for the chapters this module opens."""
    log = tmp_path_factory.mktemp("lab") / "jupyterlab.log"
    with jupyterlab(ROOT, log) as (base, token):
        yield browser, base, token


needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: apt-get install -y chromium"
)


@needs_chromium
@pytest.mark.skipif(LIST_CHAPTER is None, reason="the messages chapter is not written yet")
def test_the_messages_chapter_runs_in_jupyterlab_and_show_more_reveals_more_rows(lab):
    browser, base, token = lab
    screenshot = ROOT / ".artifacts" / "browser_messages.png"
    before, after, news = run_chapter_and_click_show_more(browser, base, token, LIST_CHAPTER, screenshot)
    assert before > 0, "the MessageListView rendered no rows"
    assert after > before, f"show more went from {before} to {after} rows"
    assert news == 0, "the course config should silence the news pop-up"


@needs_chromium
@pytest.mark.skipif(SNIP_CHAPTER is None, reason="the snip chapter is not written yet")
def test_the_snip_chapter_shows_the_gap_and_the_placeholder_and_a_row_opens(lab):
    browser, base, token = lab
    seen = read_the_snip_diff(browser, base, token, SNIP_CHAPTER, ROOT / ".artifacts" / "browser_snip.png")
    assert re.fullmatch(r"✂ messages \d+-\d+ dropped: \d+ messages, [\d,]+ tokens, .+", seen["gap"]), seen[
        "gap"
    ]
    assert re.match(r"\[snip\] \d+ earlier messages were removed", seen["words"]), seen["words"]
    assert seen["hidden_before"], "a row's content should wait for a click"
    assert "[snip]" in seen["content"] and "[text]" in seen["content"], seen["content"][:300]
    assert seen["legend"] == 1


@needs_chromium
@pytest.mark.skipif(PIPELINE_CHAPTER is None, reason="the pipeline chapter is not written yet")
def test_the_pipeline_chapter_steps_from_pass_to_pass_with_a_gauge(lab):
    browser, base, token = lab
    screenshot = ROOT / ".artifacts" / "browser_stepper.png"
    first, second, gauge = step_through(browser, base, token, PIPELINE_CHAPTER, screenshot)
    assert re.match(r"pass \d+/\d+: \w+, tokens [\d,]+ -> [\d,]+", first), first
    assert second != first and re.match(r"pass \d+/\d+: ", second), second
    assert gauge or "did nothing" in second, "a pass that changed something shows its window gauge"


def read_the_japanese_list(browser, base: str, token: str, notebook: str, screenshot: Path) -> dict:
    """Run a ja chapter; in its live message list (found by its Japanese button) read the legend."""
    with running(browser, base, token, notebook) as page:
        button = page.get_by_role("button", name=re.compile(re.escape(TEXTS["show more"])))
        widget = page.locator(LIST, has=button).first
        widget.wait_for(timeout=60_000)
        widget.scroll_into_view_if_needed()
        screenshot.parent.mkdir(exist_ok=True)
        page.screenshot(path=str(screenshot))
        return {
            "legend": widget.locator(".compaction-legend").first.inner_text(),
            "button": widget.locator("button").first.inner_text(),
        }


@needs_chromium
@pytest.mark.skipif(JA_LIST_CHAPTER is None, reason="the ja edition has no messages chapter")
def test_a_ja_chapter_shows_its_widget_legend_in_japanese(lab):
    browser, base, token = lab
    screenshot = ROOT / ".artifacts" / "browser_ja_messages.png"
    seen = read_the_japanese_list(browser, base, token, JA_LIST_CHAPTER, screenshot)
    for english in (legend.OPEN_ROW, legend.BARS):
        assert TEXTS[english] in seen["legend"], seen["legend"]
        assert english not in seen["legend"]
    assert seen["button"].startswith(TEXTS["show more"]), seen["button"]

