"""The replay report: one self-contained HTML file, readable with no server and no network.

Per session: what the importer repaired or skipped (file and line), the compactions the recording
agent did itself, a table of the strategies, and per strategy a token timeline (an SVG line, the
window and threshold drawn, each compaction a tick in its layer's colour, the recorded compactions
dashed), the window gauge at the peak (what filled it, by kind), and what each compaction dropped
and where it is on disk. Every string passes through ``redact``. The page has no script and a
Content-Security-Policy that forbids any request. Deliberately left out: interactivity.
"""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

import compaction  # redact: detect-secrets loads with it (compaction/__init__.py)
from compaction.core.tokens import count_text
from compaction.evaluate.replay.columns import (
    COLUMNS,
    FAILURES,
    LEGEND,
    NUMERIC,
    cells,
    group_name,
    groups,
    ignored_text,
    probe_status,
    verdict,
)
from compaction.evaluate.replay.departures import departures
from compaction.evaluate.replay.engine import SessionReplay, StrategyRun
from compaction.evaluate.replay.fill import fill_by_kind
from compaction.evaluate.replay.readout import places
from compaction.layers.triggers import summary_threshold
from compaction.presentation.palette import KIND_LABELS, KINDS, LINES, layer_color

W, H, PAD = 720, 220, 48  # the timeline's size and margin, in pixels
CSP = "default-src 'none'; style-src 'unsafe-inline'"
STYLE = """body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;color:#24292f}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #d0d7de;padding:2px 8px}
td.n{text-align:right}h2{border-bottom:2px solid #24292f}.muted{color:#57606a}svg{display:block}
code{background:#f6f8fa;padding:0 3px}"""
MAX_ROWS = 40  # rows of a departures or problems list; the rest of the problems named in one row
SAME_AS = {"masking": "micro", "recent turns": "compact"}  # passes drawn in a pipeline layer's colour


def colour(layer: str) -> str:
    """The palette colour of a layer or pass (masking is micro's kind of clearing)."""
    return layer_color(SAME_AS.get(layer, layer))


def t(value: object) -> str:
    """Text for the page: redacted, then escaped."""
    return escape(compaction.redact(str(value)))


def write_report(
    replays: list[SessionReplay], path: str | Path, *, title: str = "Compaction replay", note: str = ""
) -> Path:
    """Write the report of ``replays`` to ``path`` (an .html file) and return the path; ``note`` heads it."""
    head = f'<p class="note">{t(note)}</p>' if note else ""
    body = (
        head
        + f'<p class="verdict"><strong>{t(verdict(replays))}</strong></p>'
        + "\n".join(session_section(r) for r in replays)
    )
    page = (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
        f"<title>{t(title)}</title><style>{STYLE}</style></head>"
        f"<body><h1>{t(title)}</h1>{body}</body></html>"
    )
    out = Path(path)
    out.write_text(page, encoding="utf-8")
    return out


def session_section(replay: SessionReplay) -> str:
    """Everything about one session."""
    s = replay.session
    head = (
        f'<section class="session"><h2>{t(s.file)}</h2><p class="muted">{t(s.format)}, '
        f"{len(replay.turn_of_message):,} messages, {len(set(replay.turn_of_message)):,} turns, "
        f"{s.skipped} records skipped, {s.off_branch} off the replayed branch</p>"
    )
    parts = [head, problems_list(replay), strategy_table(replay.runs), probe_table(replay)]
    for group in groups(replay.runs):
        run = group[0]
        parts.append(f'<h3 class="strategy">{t(group_name(group))}</h3>')
        parts.append(timeline(run, replay))
        parts.append(gauge(run))
        parts.append(departures_table(run, s.file))
    return "\n".join(parts) + "</section>"


def problems_list(replay: SessionReplay) -> str:
    """The importer's repairs and skips, and the recorded agent's own compactions."""
    s = replay.session
    items = [f"<li><code>{t(p.where)}</code> {t(p.rule)}: {t(p.detail)}</li>" for p in s.problems[:MAX_ROWS]]
    if len(s.problems) > MAX_ROWS:
        rest = s.problems[MAX_ROWS:]
        items.append(f"<li>and {len(rest)} more, at {t(places(rest))}</li>")
    for c in s.earlier_compactions:
        tokens = f", {c.tokens_before:,} tokens before" if c.tokens_before else ""
        items.append(
            f'<li class="earlier"><code>{t(c.where)}</code> the recorded agent compacted here '
            f"({t(c.trigger or 'trigger not recorded')}{tokens}); replayed from the full history "
            f"(turn {replay.turn_of(c.index)})</li>"
        )
    repairs = f'<ul class="problems">{"".join(items)}</ul>' if items else "<p>Imported with no repairs.</p>"
    left = (
        f'<p class="ignored">Left out by design (never sent to the model): {t(ignored_text(s.ignored))}.</p>'
        if s.ignored
        else ""
    )
    return repairs + left


def strategy_table(runs: list[StrategyRun]) -> str:
    """One row per strategy (identical ones where nothing fired collapsed into one), and the legend."""
    head = "".join(f"<th>{h}</th>" for h in COLUMNS)
    rows = []
    for group in groups(runs):
        row = [group_name(group), *cells(group[0])[1:]]
        rows.append(
            "<tr>"
            + "".join(
                f'<td class="{"n" if name in NUMERIC else ""}">{t(c)}</td>'
                for name, c in zip(COLUMNS, row, strict=True)
            )
            + "</tr>"
        )
    return (
        f'<table class="strategies"><tr>{head}</tr>{"".join(rows)}</table>'
        f'<p class="muted legend">{t(LEGEND)}</p>'
    )


def probe_table(replay: SessionReplay) -> str:
    """A row per probe: whether each strategy's final context still answers it, and who dropped it."""
    if not replay.probes:
        return ""
    head = "<th>probe</th><th>kind</th><th>evidence</th>" + "".join(
        f"<th>{t(r.strategy)}</th>" for r in replay.runs
    )
    rows = []
    for probe in replay.probes:
        cells = []
        for run in replay.runs:
            cells.append(probe_cell(run, probe.id))
        evidence = "; ".join(map(str, probe.evidence))[:80]
        rows.append(
            f"<tr><td>{t(probe.id)}</td><td>{t(probe.kind)}</td><td><code>{t(evidence)}</code></td>"
            + "".join(cells)
            + "</tr>"
        )
    return f'<table class="probes"><tr>{head}</tr>{"".join(rows)}</table>'


def probe_cell(run: StrategyRun, probe_id: str) -> str:
    """One probe under one strategy: kept, lost at a turn, not reached (so lost), not in the session."""
    lost = f'style="color:{LINES["error"]}"'
    if run.score is None or probe_id not in {*run.score.answered, *run.score.missed}:
        return '<td class="muted">not in the session</td>'
    if probe_id in run.score.answered:
        return "<td>kept</td>"
    if probe_id in run.unreached:
        return f'<td class="unreached" {lost}>{t(probe_status(run, probe_id))}</td>'
    return f"<td {lost}>{t(probe_status(run, probe_id))}</td>"


def timeline(run: StrategyRun, replay: SessionReplay) -> str:
    """Tokens per request as an SVG line, the window and threshold drawn, compactions as ticks."""
    first = run.turns[0].turn if run.turns else 1
    n = max((run.turns[-1].turn if run.turns else 1) - first, 1)
    threshold = summary_threshold(run.window)
    # the window is the top of the plot, unless the run went over it (then its peak is) or the
    # window is far above the line (then a note says so)
    top = max(run.window, run.peak) if run.window <= 2 * max(run.peak, 1) else max(run.peak, 1) * 1.15

    def x(turn: float) -> float:
        return PAD + (W - 2 * PAD) * (turn - first) / n

    def y(tokens: float) -> float:
        return H - PAD + -(H - 2 * PAD) * min(tokens, top) / top

    points = " ".join(f"{x(r.turn):.1f},{y(r.tokens):.1f}" for r in run.turns)
    parts = [
        f'<polyline class="tokens" fill="none" stroke="{LINES["tokens"]}" stroke-width="1.5" '
        f'points="{points}"/>'
    ]
    for value, name, line_colour in (
        (run.window, "window", LINES["window"]),
        (threshold, "threshold", LINES["threshold"]),
    ):
        if value <= top:
            parts.append(
                f'<line class="{name}" x1="{PAD}" x2="{W - PAD}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
                f'stroke="{line_colour}" stroke-dasharray="4 3"><title>{name} {value:,}</title></line>'
                f'<text x="{W - PAD + 2}" y="{y(value) + 4:.1f}" font-size="10">{name}</text>'
            )
    for event in run.events:
        if event.kind in FAILURES:  # nothing left the context: a failure, drawn as one
            parts.append(
                f'<line class="failure" data-layer="{t(event.kind)}" x1="{x(event.turn):.1f}" '
                f'x2="{x(event.turn):.1f}" y1="{PAD}" y2="{H - PAD}" stroke="{LINES["error"]}" '
                f'stroke-dasharray="1 3" stroke-width="2"><title>turn {event.turn}: '
                f"{t(event.kind.replace('_', ' '))}: {t(event.detail)}</title></line>"
            )
            continue
        parts.append(
            f'<line class="event" data-layer="{t(event.kind)}" x1="{x(event.turn):.1f}" '
            f'x2="{x(event.turn):.1f}" y1="{PAD}" y2="{H - PAD}" stroke="{colour(event.kind)}" '
            f'stroke-width="2"><title>turn {event.turn}: {t(event.kind)} {event.tokens_before:,} -> '
            f"{event.tokens_after:,} {t(event.detail)}</title></line>"
        )
    for c in replay.session.earlier_compactions:
        turn = replay.turn_of(c.index)
        parts.append(
            f'<line class="earlier" x1="{x(turn):.1f}" x2="{x(turn):.1f}" y1="{PAD}" y2="{H - PAD}" '
            f'stroke="{LINES["muted"]}" stroke-dasharray="2 2"><title>recorded compaction at '
            f"{t(c.where)}</title></line>"
        )
    axes = (
        f'<line x1="{PAD}" x2="{W - PAD}" y1="{H - PAD}" y2="{H - PAD}" stroke="#000"/>'
        + "".join(
            f'<text class="tick" x="{x(turn):.1f}" y="{H - PAD + 14}" text-anchor="middle" '
            f'font-size="10">{turn}</text>'
            for turn in turn_ticks(first, first + n)
        )
        + f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle" font-size="11">turn</text>'
        f'<text x="12" y="{H / 2}" font-size="11" transform="rotate(-90 12 {H / 2})" text-anchor="middle">'
        f"tokens (tiktoken)</text>"
        f'<text class="top" x="{PAD - 4}" y="{y(top) + 4:.1f}" text-anchor="end" font-size="10">'
        f"{int(top):,}</text>"
        f'<text x="{PAD - 4}" y="{H - PAD + 4}" text-anchor="end" font-size="10">0</text>'
    )
    note = "" if run.window <= top else f"window {run.window:,} tokens: above the top of the plot. "
    legend = ", ".join(
        f'<span style="color:{colour(layer)}">&#9646; {t(layer)}</span>'
        for layer in run.fired()
        if layer not in FAILURES
    )
    failed = ", ".join(
        f"{t(layer.replace('_', ' '))} x{n}" for layer, n in run.fired().items() if layer in FAILURES
    )
    said = "Compactions: " + legend if legend else "No compaction fired."
    if failed:
        said += f' <span style="color:{LINES["error"]}">&#8942; Failures (dotted): {failed}.</span>'
    if run.refused:
        said += f" {t(run.outcome)}."
    caption = f'<p class="muted">{note}{said}</p>'
    title = f"Token timeline: {t(run.strategy)}"
    return (
        f'<svg class="timeline" role="img" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
        f'xmlns="http://www.w3.org/2000/svg"><title>{title}</title>{axes}{"".join(parts)}</svg>{caption}'
    )


def turn_ticks(first: int, last: int, most: int = 10) -> list[int]:
    """Whole turns to label on the axis: at most about ``most``, evenly spaced, first and last included."""
    step = max(1, math.ceil((last - first) / (most - 1)))
    ticks = list(range(first, last + 1, step))
    if ticks[-1] != last:
        if len(ticks) > 1 and last - ticks[-1] < step / 2:
            ticks[-1] = last  # too close to the last to label both
        else:
            ticks.append(last)
    return ticks


def gauge(run: StrategyRun) -> str:
    """The window at the peak request: a bar per kind of content, scaled to the window."""
    fill = run.peak_fill or fill_by_kind(run.peak_context, lambda s: count_text(s, "tiktoken"))
    scale = max(run.window, run.peak, 1)
    left, parts = PAD, []
    for kind, tokens in fill.items():
        if tokens:
            width = (W - 2 * PAD) * tokens / scale
            parts.append(
                f'<rect class="kind" data-kind="{kind}" x="{left:.1f}" y="8" width="{width:.1f}" '
                f'height="22" fill="{KINDS[kind]}"><title>{KIND_LABELS[kind]}: {tokens:,}</title></rect>'
            )
            left += width
    edge = PAD + (W - 2 * PAD) * run.window / scale
    parts.append(
        f'<line class="window" x1="{edge:.1f}" x2="{edge:.1f}" y1="2" y2="36" stroke="{LINES["window"]}"/>'
    )
    share = run.peak / run.window if run.window else 0
    labels = ", ".join(
        f'<span style="color:{KINDS[k]}">&#9646;</span> {t(KIND_LABELS[k])} {v:,}'
        for k, v in fill.items()
        if v
    )
    return (
        f'<svg class="gauge" role="img" width="{W}" height="40" xmlns="http://www.w3.org/2000/svg">'
        f'<title>Window at the peak</title><rect x="{PAD}" y="8" width="{W - 2 * PAD}" height="22" '
        f'fill="{LINES["track"]}"/>{"".join(parts)}</svg>'
        f'<p class="muted">At the peak (turn {run.peak_turn}): '
        f"{run.peak:,} of {run.window:,} tokens ({share:.0%}). {labels}</p>"
    )


def departures_table(run: StrategyRun, source: str) -> str:
    """What each compaction dropped (tokens) and where it went."""
    rows = departures(run, source)
    if not rows:
        return "<p>Nothing left the context.</p>"
    body = "".join(
        f'<tr><td class="n">{d.turn}</td><td style="color:{colour(d.layer)}">{t(d.layer)}</td>'
        f'<td class="n">{d.freed:,}</td><td><code>{t(d.where)}</code></td></tr>'
        for d in rows[:MAX_ROWS]
    )
    more = f"<p>... {len(rows) - MAX_ROWS} more</p>" if len(rows) > MAX_ROWS else ""
    return (
        f'<table class="departures"><tr><th>turn</th><th>layer</th><th>tokens freed</th><th>on disk</th></tr>'
        f"{body}</table>{more}"
    )
