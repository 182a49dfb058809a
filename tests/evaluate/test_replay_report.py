"""The replay report: self-contained, a timeline per strategy with each layer marked, the gauge,
what left and where, the importer's problems and earlier compactions, and nothing key-shaped."""

from __future__ import annotations

import json
import re

import pytest

from compaction.agent.backend import connect
from compaction.agent.loop import SAMPLE_WINDOW
from compaction.core.messages import tool_result_blocks
from compaction.core.placeholders import is_cleared
from compaction.evaluate.find import find_probes
from compaction.evaluate.replay.engine import SessionReplay, replay, turn_index
from compaction.evaluate.replay.report import write_report
from compaction.evaluate.replay.sample import write_sample
from compaction.evaluate.strategy_names import REPLAYED as STRATEGIES
from compaction.importers import load
from compaction.presentation.palette import KIND_LABELS, KINDS

KEY = "sk-ant-api03-" + "Q7w8E9r0T1y2U3i4O5p6" * 3
WINDOW = 6_000


def claude_code_file(path, turns=25):
    """A linked Claude Code session: a compaction Claude Code did, a bad line, a key in an output."""
    records, parent = [], None

    def add(kind, content, **extra):
        nonlocal parent
        uuid = f"r{len(records)}"
        records.append(
            json.dumps(
                {
                    "type": kind,
                    "uuid": uuid,
                    "parentUuid": parent,
                    "message": {"role": kind, "content": content},
                    **extra,
                }
            )
        )
        parent = uuid

    add("user", "Read the files.")
    for i in range(turns):
        add(
            "assistant",
            [{"type": "tool_use", "id": f"t{i}", "name": "Read", "input": {"file_path": f"f{i}.py"}}],
        )
        body = "\n".join(f"f{i}.py:{n}: total = {n * i}" for n in range(60)) + (
            f"\nANTHROPIC_API_KEY={KEY}" if i == 3 else ""
        )
        add("user", [{"type": "tool_result", "tool_use_id": f"t{i}", "content": body}])
        if i == 10:
            records.append(
                json.dumps(
                    {
                        "type": "system",
                        "subtype": "compact_boundary",
                        "uuid": "b",
                        "parentUuid": None,
                        "logicalParentUuid": parent,
                        "compactMetadata": {"trigger": "auto", "preTokens": 9000},
                    }
                )
            )
            parent = "b"
            add("user", "Summary of the work so far", isCompactSummary=True)
        if i == 12:
            add("user", "Do not touch setup.py.")  # a rule said later: the first message's are no probes
    records.append(json.dumps({"type": KEY}))  # an unknown record type that happens to look like a key
    path.write_text("\n".join(records) + "\n")
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    session = load(claude_code_file(tmp / "session.jsonl"))
    client = connect(context_window=SAMPLE_WINDOW)
    probes = find_probes(session.messages)
    runs = [
        replay(session.messages, name, window=WINDOW, workdir=tmp / name, client=client, probes=probes)
        for name in STRATEGIES
    ]
    result = SessionReplay(session, runs, turn_index(session.messages), probes)
    path = write_report([result], tmp / "r.html")
    return result, path.read_text()


def test_the_report_is_one_file_that_asks_for_nothing_over_the_network(report):
    _, html = report
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert "<script" not in html
    assert not re.search(r'(src|href)="(?!#)', html)


def test_each_strategy_has_a_timeline_with_a_point_per_turn_and_a_tick_per_event(report):
    result, html = report
    timelines = re.findall(r'<svg class="timeline".*?</svg>', html, re.S)
    assert len(timelines) == len(STRATEGIES)
    for run, svg in zip(result.runs, timelines, strict=True):
        points = re.search(r'class="tokens"[^>]*points="([^"]*)"', svg).group(1).split()
        assert len(points) == len(run.turns)
        assert re.findall(r'data-layer="([^"]+)"', svg) == [e.kind for e in run.events]
        if run.window <= 2 * run.peak:
            assert 'class="window"' in svg
        else:  # a window far above the line is said, not drawn (the plot would be a flat line)
            assert 'class="window"' not in svg
            assert f"window {run.window:,} tokens: above the top of the plot" in html


def test_the_pipeline_timeline_marks_its_layers_and_the_recorded_compaction(report):
    result, html = report
    pipeline = re.findall(r'<svg class="timeline".*?</svg>', html, re.S)[STRATEGIES.index("pipeline")]
    layers = set(re.findall(r'data-layer="([^"]+)"', pipeline))
    assert layers == set(result.runs[STRATEGIES.index("pipeline")].fired()) and "micro" in layers
    assert 'class="earlier"' in pipeline
    assert "the recorded agent compacted here (auto, 9,000 tokens before)" in html


def test_the_gauge_at_the_peak_shows_what_filled_the_window(report):
    result, html = report
    none = result.runs[STRATEGIES.index("none")]
    assert f"At the peak (turn {none.peak_turn}): {none.peak:,} of {WINDOW:,} tokens" in html
    gauges = re.findall(r'<svg class="gauge".*?</svg>', html, re.S)
    assert len(gauges) == len(result.runs)
    for run, gauge in zip(result.runs, gauges, strict=True):  # a bar for each kind the peak request held
        held = {
            "tool_results" if not is_cleared(b.get("content")) else "placeholders"
            for m in run.peak_context
            for b in tool_result_blocks(m)
        }
        shown = set(re.findall(r'data-kind="([^"]+)"', gauge))
        assert held <= shown and shown <= set(KINDS)
    assert 'data-kind="tool_results"' in gauges[STRATEGIES.index("none")]
    legend = html.split(f"At the peak (turn {none.peak_turn})")[1].split("</p>")[0]
    swatch = f'<span style="color:{KINDS["tool_results"]}">&#9646;</span>'
    assert f"{swatch} {KIND_LABELS['tool_results']}" in legend


def test_what_left_is_listed_with_the_file_that_holds_it(report):
    result, html = report
    pipeline = result.runs[STRATEGIES.index("pipeline")]
    for path in {str(p) for p in (pipeline.workdir / ".transcripts").iterdir()}:
        if f"<code>{path}</code>" in html:
            break
    else:
        pytest.fail("no transcript of the pipeline run is named in the report")


def test_the_importers_problems_are_listed_with_their_line(report):
    _, html = report
    assert re.search(r"<code>line \d+</code> unknown_record", html)


def test_the_probe_table_names_each_probe_and_what_each_strategy_kept(report):
    result, html = report
    table = re.search(r'<table class="probes">.*?</table>', html, re.S).group(0)
    assert table.count("<tr>") == len(result.probes) + 1
    assert "instruction" in table  # "Do not touch setup.py.", said after the first message
    assert "kept" in table


def test_key_shaped_strings_are_redacted(report):
    _, html = report
    assert KEY not in html
    assert "[redacted anthropic]" in html


def _small_window_report(tmp_path, window):
    session = load(claude_code_file(tmp_path / "session.jsonl"))
    client = connect(context_window=SAMPLE_WINDOW)
    probes = find_probes(session.messages)
    runs = [
        replay(session.messages, name, window=window, workdir=tmp_path / name, client=client, probes=probes)
        for name in STRATEGIES
    ]
    result = SessionReplay(session, runs, turn_index(session.messages), probes)
    return result, write_report([result], tmp_path / "r.html").read_text()


def test_the_window_is_drawn_at_the_window_and_whole_turns_are_labelled(report):
    result, html = report
    svg = html.split('class="timeline"')[2].split("</svg>")[0]  # masking 10: never over the window
    top = re.search(r'<text class="top"[^>]*>([\d,]+)</text>', svg).group(1)
    assert top == f"{WINDOW:,}"  # the top tick is the window, not 1.05 x it
    y_top = re.search(r'<text class="top" x="[\d.]+" y="([\d.]+)"', svg).group(1)
    y_window = re.search(r'<line class="window"[^>]*y1="([\d.]+)"', svg).group(1)
    assert float(y_top) - 4 == pytest.approx(float(y_window))
    ticks = [int(n) for n in re.findall(r'<text class="tick"[^>]*>(\d+)</text>', svg)]
    run = result.runs[1]
    assert ticks[0] == run.turns[0].turn and ticks[-1] == run.turns[-1].turn and 2 <= len(ticks) <= 11


def test_failed_summaries_are_drawn_as_failures_and_unreached_probes_as_lost(tmp_path):
    result, html = _small_window_report(tmp_path, 700)  # summaries fail: the request cannot fit
    failed = [e for run in result.runs for e in run.events if e.kind == "summary_failed"]
    assert failed, [run.outcome for run in result.runs]
    assert html.count('<line class="failure" data-layer="summary_failed"') == len(failed)
    assert 'class="event" data-layer="summary_failed"' not in html
    refused = [run for run in result.runs if run.refused]
    assert refused and all(run.unreached for run in refused), [r.outcome for r in refused]
    assert "not reached, so lost: refused at turn" in html and "lost at turn None" not in html
    for run in refused:  # the score counts what it never reached as lost: no better than a finished run
        assert set(run.unreached) <= set(run.score.missed)


def test_a_long_list_of_repairs_names_every_place_past_its_rows(tmp_path):
    from compaction.evaluate.replay.report import MAX_ROWS, problems_list
    from compaction.importers import Problem

    session = load(write_sample(tmp_path / "s.jsonl", turns=2))
    session.problems = [Problem("s.jsonl", f"line {n}", "not_json") for n in range(1, MAX_ROWS + 4)]
    text = problems_list(SessionReplay(session, [], turn_index(session.messages)))
    assert f"line {MAX_ROWS}</code>" in text
    assert f"and 3 more, at lines {MAX_ROWS + 1}, {MAX_ROWS + 2} and {MAX_ROWS + 3}" in text
