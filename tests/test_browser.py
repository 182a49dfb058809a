"""Like a learner: JupyterLab serves chapter 01, Chromium runs it, and the message list responds.

Starts JupyterLab from this Python on 127.0.0.1 with the course config and a known token, drives
Debian's chromium (never a downloaded browser) with Playwright, and screenshots to .artifacts/.
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

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
CHAPTER = "notebooks/01_messages.ipynb"
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
LIST, ROW = ".compaction-msglist", ".compaction-row"  # what compaction/widgets.py renders
SHOW_MORE = re.compile(r"show more", re.IGNORECASE)


def free_port() -> int:
    """A port nothing listens on right now, on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def jupyterlab(root: Path, log: Path):
    """Serve root with the course config; yield (base url, token); stop the server whatever happens."""
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


def run_chapter_and_click_show_more(
    base: str, token: str, notebook: str, screenshot: Path
) -> tuple[int, int, int]:
    """Open a notebook, run all, click the first "show more": rows before, after, news pop-ups seen."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.goto(f"{base}/lab/tree/{notebook}?token={token}")
            page.wait_for_function(
                "window.jupyterapp && window.jupyterapp.shell.currentWidget", timeout=30_000
            )
            page.wait_for_selector(".jp-Notebook", timeout=30_000)
            page.evaluate(RUN_ALL)
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
        finally:
            browser.close()


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: apt-get install -y chromium")
@pytest.mark.skipif(not (ROOT / CHAPTER).exists(), reason=f"{CHAPTER} is not written yet")
def test_chapter_01_runs_in_jupyterlab_and_show_more_reveals_more_rows(tmp_path):
    screenshot = ROOT / ".artifacts" / "browser_01_messages.png"
    with jupyterlab(ROOT, tmp_path / "jupyterlab.log") as (base, token):
        before, after, news = run_chapter_and_click_show_more(base, token, CHAPTER, screenshot)
    assert before > 0, "the MessageListView rendered no rows"
    assert after > before, f"show more went from {before} to {after} rows"
    assert news == 0, "the course config should silence the news pop-up"
