"""The live side of a view: the MIME bundle a notebook stores (text, static HTML, widget reference)."""

from __future__ import annotations

from typing import Any


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
