"""The replay report in a real browser: Debian's Chromium opens it from disk, with no console error,
no request over the network, and a timeline drawn for every strategy.

The report is written by ``compaction replay`` on the shared Claude Code sessions (the Done-when of
issue 14) and on a generated session long enough for every layer to fire in a small window.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from compaction import __main__ as cli
from compaction.evaluate.strategy_names import REPLAYED

CHROMIUM = Path("/usr/bin/chromium")
DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"{CHROMIUM} is absent: apt-get install -y chromium"
)


def long_session(path: Path) -> Path:
    lines = [json.dumps({"type": "user", "message": {"role": "user", "content": "Read them all."}})]
    for i in range(30):
        call = {"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"f{i}.py"}}
        result = {"type": "tool_result", "tool_use_id": f"t{i}", "content": f"f{i}.py: " + "x = 1\n" * 300}
        lines.append(json.dumps({"type": "assistant", "message": {"role": "assistant", "content": [call]}}))
        lines.append(json.dumps({"type": "user", "message": {"role": "user", "content": [result]}}))
    path.write_text("\n".join(lines) + "\n")
    return path


def open_in_chromium(report: Path, screenshot: Path) -> tuple[list[str], list[str], int]:
    """(console errors and page errors, requests other than the file itself, timelines drawn)."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url) if r.url != report.as_uri() else None)
            page.goto(report.as_uri())
            page.wait_for_load_state("load")
            drawn = sum(
                1 for svg in page.query_selector_all("svg.timeline") if svg.bounding_box()["width"] > 100
            )
            screenshot.parent.mkdir(exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=False)
        finally:
            browser.close()
    return errors, requests, drawn


@pytest.mark.skipif(not DATA.is_dir(), reason=f"the shared session data is not at {DATA}")
def test_the_report_of_the_shared_claude_code_sessions_opens_with_no_console_error(tmp_path, capsys):
    report = tmp_path / "r.html"
    status = cli.main(
        [
            "replay",
            str(DATA / "claude-code-transcripts"),
            "--report",
            str(report),
            "--workdir",
            str(tmp_path / "work"),
        ]
    )
    capsys.readouterr()
    assert status == 0
    errors, requests, drawn = open_in_chromium(report, Path(".artifacts") / "browser_replay_report.png")
    assert errors == [] and requests == []
    assert drawn == 4  # four sessions; nothing fired, so the identical strategies share one timeline


def test_a_report_where_every_layer_fires_opens_with_no_console_error(tmp_path, capsys):
    report = tmp_path / "r.html"
    status = cli.main(
        [
            "replay",
            str(long_session(tmp_path / "long.jsonl")),
            "--window",
            "6000",
            "--report",
            str(report),
            "--workdir",
            str(tmp_path / "work"),
        ]
    )
    capsys.readouterr()
    assert status == 0
    errors, requests, drawn = open_in_chromium(report, Path(".artifacts") / "browser_replay_layers.png")
    assert errors == [] and requests == []
    assert drawn == len(REPLAYED)
    assert 'data-layer="summary"' in report.read_text() or 'data-layer="micro"' in report.read_text()
