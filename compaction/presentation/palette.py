"""The course's one palette: every plot and widget takes its colours from here.

A layer keeps its colour everywhere (budget is always the same brown, micro the same purple), so a
learner who has seen a colour once can read it in the next chapter. The keys are the names the
package already uses: event kinds (``CompactionEvent.kind``), the levels and their signals,
phases, roles, what fills the window (``WindowGauge`` kinds), and what a diff row can be.
An event whose layer is a variant (``summary_failed``, ``snip_skipped``) takes its layer's colour
(``layer_color``). Deliberately left out: themes and a dark mode; colours are picked to read on
white and to stay apart for the common colour-vision deficiencies (Okabe-Ito based).
"""

from __future__ import annotations

# event layer -> colour: the pipeline's layers, the manual compact, and the levels
LAYERS = {
    "budget": "#a6761d",  # brown: outputs moved to disk
    "snip": "#e69f00",  # orange: the middle cut out
    "micro": "#cc79a7",  # purple-pink: old results cleared
    "summary": "#0072b2",  # blue: the history summarized
    "reactive": "#d55e00",  # vermilion: the emergency summary
    "compact": "#009e73",  # green: the model asked for it
    "breaker": "#000000",  # black: automatic summaries stopped
    "condense": "#56b4e9",  # level 1: condensed outputs
    "phase_summary": "#332288",  # level 2: a phase summarized
    "checkpoint": "#117733",  # level 3: a session checkpoint
    "memory": "#882255",  # wine: the agent's own notes (the memory tool)
}
# signal kind (compaction.signals) -> colour
SIGNALS = {
    "long_session": "#6a51a3",
    "repetition": "#cb181d",
    "already_discussed": "#e6550d",
    "phase_transition": "#252525",
    "large_output": "#3182bd",
}
# phase kind (compaction.phases) -> band colour
PHASES = {"research": "#9ecae1", "implementation": "#a1d99b", "verification": "#fdd0a2"}
ROLES = {"user": "#0969da", "assistant": "#8250df", "other": "#57606a"}
# what fills the context window, in the order the gauge stacks it
KINDS = {
    "system_tools": "#8c8c8c",
    "user_text": "#0969da",
    "assistant_text": "#8250df",
    "tool_calls": "#b392f0",
    "tool_results": "#79c0ff",
    "placeholders": "#e69f00",
    "summary": "#0072b2",
}
KIND_LABELS = {
    "system_tools": "system and tools",
    "user_text": "user text",
    "assistant_text": "assistant text",
    "tool_calls": "tool calls",
    "tool_results": "tool results",
    "placeholders": "placeholders and markers",
    "summary": "summary",
}
# what a row of a diff is -> its background (light, so text on it stays readable)
CHANGES = {"changed": "#fff8c5", "dropped": "#ffebe9", "added": "#dafbe1", "collapsed": "#f6f8fa"}
# lines and text that are not a layer
LINES = {
    "estimated": "#333333",  # the data lines stay neutral: colour is for the layers
    "api": "#8c8c8c",
    "tokens": "#333333",
    "window": "#000000",
    "threshold": "#cf222e",
    "muted": "#57606a",
    "error": "#cf222e",
    "track": "#eaeef2",
}
OTHER = "#999999"  # a layer or kind this palette does not name


def layer_color(layer: str) -> str:
    """The colour of an event layer; a variant (``summary_failed``) takes its layer's colour."""
    if layer in LAYERS:
        return LAYERS[layer]
    if layer in SIGNALS:
        return SIGNALS[layer]
    base = layer.split("_")[0]
    return LAYERS.get(base, OTHER)


def all_colors() -> frozenset[str]:
    """Every colour of the palette (lower case), for tests that check a view uses no other."""
    tables = (LAYERS, SIGNALS, PHASES, ROLES, KINDS, CHANGES, LINES)
    return frozenset(c.lower() for table in tables for c in table.values()) | {OTHER}
