"""The strategy table's columns, shared by the terminal and the report, and the verdict over sessions.

One set of labels and cells for both places, a one-line legend, strategies whose results are
identical (and in which nothing fired) collapsed into one row named by a sentence, and a top-level
verdict that says plainly when no session reached the summary threshold, and how many runs were refused.
"""

from __future__ import annotations

from compaction.evaluate.cost import CACHE_READ, CACHE_WRITE
from compaction.evaluate.replay.departures import departures
from compaction.evaluate.replay.engine import INPUT_PRICE, SessionReplay, StrategyRun
from compaction.layers.triggers import summary_threshold

COLUMNS = (
    "strategy",
    "outcome",
    "peak",
    "final",
    "layers fired",
    "tokens sent",
    "cache breaks",
    f"cost (${INPUT_PRICE:g}/M input)",
    "probes kept",
    "left the context",
)
NUMERIC = frozenset({"peak", "final", "tokens sent", "cache breaks", COLUMNS[7], "probes kept"})
LEGEND = (
    "Legend: peak/final = tokens (tiktoken cl100k) of the largest/last request; tokens sent = every input "
    "token of every request, summary requests included, and for none, the uncompacted reference, its "
    "requests over the window too (from the turn its outcome names the API would refuse them, so its probes "
    "are held in a context the API would refuse); "
    "cache breaks = "
    f"requests that did not extend the one before; cost = input only at ${INPUT_PRICE:g}/M, cache reads "
    f"{CACHE_READ:g}x, writes {CACHE_WRITE:g}x; probes kept = facts the final context still holds, of those "
    "the session holds (- when no probe was found or given); not reached = facts a refused run stopped "
    "before, counted as lost; left the context = compactions that dropped tokens."
)
HELD_OVER = "(in a context the API would refuse)"  # the reference's probes, past the window
# events that free nothing: a failure, the breaker opening, the loop guard stopping summaries
FAILURES = frozenset({"summary_failed", "budget_failed", "breaker", "loop_guard"})
# records a format keeps on the user's machine, named so they are not mistaken for compactions
IGNORED_LABELS = {"summary": "title summary record", "meta": "meta record", "sidechain": "sidechain record"}


def outcome(run: StrategyRun) -> str:
    """How the replay ended (turns done, refused at a turn, over the window), and what stopped summaries."""
    stops = [", breaker open"] * run.breaker_open + [", loop guard stopped summaries"] * run.loop_stopped
    return run.outcome + "".join(stops)


def fired(run: StrategyRun) -> str:
    """``layer xN`` for each layer that fired, or a dash."""
    return ", ".join(f"{layer} x{n}" for layer, n in run.fired().items()) or "-"


def dollars(amount: float) -> str:
    """A cost to four decimals; an amount above zero that rounds to nothing says so (``<$0.0001``)."""
    return "<$0.0001" if 0 < amount < 0.00005 else f"${amount:.4f}"


def cells(run: StrategyRun) -> list[str]:
    """The row of ``run`` under ``COLUMNS`` (plain text, not yet redacted)."""
    gone = departures(run)
    kept = "-"
    if run.score:
        kept = f"{len(run.score.answered)}/{len(run.score.answered) + len(run.score.missed)}"
        kept += f" ({len(run.unreached)} not reached)" if run.unreached else ""
        kept += f" {HELD_OVER}" if run.over_window else ""
    return [
        run.strategy,
        outcome(run),
        f"{run.peak:,}",
        f"{run.final_tokens:,}",
        fired(run),
        f"{run.cost.sent:,}",
        f"{run.cost.breaks:,}",
        dollars(run.dollars),
        kept,
        f"{len(gone)} {'time' if len(gone) == 1 else 'times'}, {sum(d.freed for d in gone):,} tokens"
        if gone
        else "-",
    ]


def probe_status(run: StrategyRun, probe_id: str) -> str:
    """What became of a probe the session holds but ``run`` ended without: the one wording for it."""
    if probe_id in run.unreached:
        return f"not reached, so lost: {run.outcome.split(':')[0]} before it"
    turn, by = run.lost.get(probe_id, (0, ""))
    return f"lost at turn {turn} to {by}" if by else "lost (no pass recorded dropping it)"


def groups(runs: list[StrategyRun]) -> list[list[StrategyRun]]:
    """Runs grouped when nothing fired in them and every cell but the name is the same, in order."""
    out: list[list[StrategyRun]] = []
    for run in runs:
        same = next(
            (g for g in out if not run.events and not g[0].events and cells(g[0])[1:] == cells(run)[1:]), None
        )
        if same is None:
            out.append([run])
        else:
            same.append(run)
    return out


def group_name(group: list[StrategyRun]) -> str:
    """A strategy's name, or for a collapsed group a sentence: ``none and masking 10: the same, ...``."""
    names = [r.strategy for r in group]
    if len(names) == 1:
        return names[0]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return f"{listed}: the same result, since no layer fired in any of them"


def ignored_text(ignored: dict[str, int]) -> str:
    """``1 title summary record, 2 meta records``: what a format leaves out by design, named plainly."""
    parts = []
    for kind, n in sorted(ignored.items()):
        label = IGNORED_LABELS.get(kind, f"{kind} record")
        parts.append(f"{n} {label}{'s' if n != 1 else ''}")
    return ", ".join(parts)


def verdict(replays: list[SessionReplay]) -> str:
    """One sentence over all sessions: how near the threshold the peak came, what fired, refusals."""
    runs = [run for r in replays for run in r.runs]
    if not runs:
        return "No session was replayed."
    top = max(runs, key=lambda run: run.peak / max(run.window, 1))
    share = top.peak / max(top.window, 1)
    near = sum(any(run.peak >= summary_threshold(run.window) for run in r.runs) for r in replays)
    layers = sorted({layer for run in runs for layer in run.fired() if layer not in FAILURES})
    failed = sorted({layer for run in runs for layer in run.fired() if layer in FAILURES})
    fired_text = "no layer fired" if not layers else "layers fired: " + ", ".join(layers)
    fired_text += "; failures: " + ", ".join(failed) if failed else ""
    refused = sum(bool(run.refused) for run in runs)
    refused_text = f" {refused} of {len(runs)} strategy runs were refused (each row says why)."
    refused_text = refused_text if refused else ""
    if near == 0:
        threshold = summary_threshold(top.window)
        return (
            f"No session reached the summary threshold: the largest peak was {top.peak:,} of "
            f"{top.window:,} tokens ({share:.1%}), below the threshold of {threshold:,}; "
            f"{fired_text}.{refused_text}"
        )
    return f"{near} of {len(replays)} sessions reached the summary threshold; {fired_text}.{refused_text}"
