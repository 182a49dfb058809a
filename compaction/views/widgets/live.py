"""The live side of a view: an HTML widget that fills the cell's width, and the MIME bundle a notebook stores.

The bundle holds text/plain (one line), the static HTML (what GitHub shows and nbval compares) and
the reference to the live widget, so a front end with a kernel shows the widget and any other
shows the same information as HTML.
"""

from __future__ import annotations

from typing import Any

FLOW = "white-space:normal;min-width:0;max-width:100%;overflow-x:auto"  # wraps in a narrow pane
# ipywidgets lays an HTML widget out as a no-wrap flex row: let ours shrink to the pane and wrap
LIVE_STYLE = (
    "<style>.compaction-live{white-space:normal;min-width:0}"
    ".compaction-live>.widget-html-content{min-width:0;white-space:normal;line-height:normal}</style>"
)


def live_value(value: str) -> str:
    """What a live HTML widget holds: the saved notebook's HTML, after the style that lets it wrap."""
    return LIVE_STYLE + value


def html_widget(value: str, css_class: str) -> Any:
    """An ipywidgets HTML that spans the output area and wraps, with a class a browser test can find."""
    import ipywidgets as w  # optional: without it a view still has its static HTML

    widget = w.HTML(live_value(value), layout=w.Layout(width="100%"))
    widget.add_class("compaction-live")
    widget.add_class(css_class)
    return widget


def bundle(view: Any) -> dict:
    """text/plain, the static HTML, and the live widget for a front end that has a kernel."""
    widget = view.widget
    return {
        "text/plain": repr(view),
        "text/html": view._repr_html_(),
        "application/vnd.jupyter.widget-view+json": {
            "version_major": 2,
            "version_minor": 0,
            "model_id": widget.model_id,
        },
    }
