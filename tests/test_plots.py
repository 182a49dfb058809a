"""The token timeline: what it draws from turn records, the window and compaction events."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from matplotlib.figure import Figure

from compaction.agent import TurnRecord
from compaction.plots import token_timeline


@dataclass
class Event:
    turn: int
    layer: str


def records():
    return [
        TurnRecord(0, [], 1000, 1010, 20, ["glob"], "tool_use"),
        TurnRecord(1, [], 3000, 3050, 20, ["read_file"], "tool_use"),
        TurnRecord(2, [], 9000, None, None, [], None, "BadRequestError: prompt is too long"),
    ]


def line(ax, label):
    (found,) = [ln for ln in ax.get_lines() if ln.get_label() == label]
    return found


def test_it_returns_a_figure_with_estimated_and_api_tokens_per_turn():
    fig = token_timeline(records())
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    estimated = line(ax, "estimated (tiktoken)")
    assert list(estimated.get_xdata()) == [0, 1, 2]
    assert list(estimated.get_ydata()) == [1000, 3000, 9000]
    api = line(ax, "API input tokens")
    assert list(api.get_xdata()) == [0, 1] and list(api.get_ydata()) == [1010, 3050]


def test_the_window_is_a_horizontal_line_named_in_the_legend():
    ax = token_timeline(records(), window=8000).axes[0]
    window = line(ax, "window (8,000)")
    assert list(window.get_ydata()) == [8000, 8000]
    assert "window (8,000)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_events_are_vertical_ticks_with_one_legend_entry_per_layer():
    events = [Event(1, "micro"), {"turn": 2, "layer": "summarize"}, Event(2, "micro")]
    ax = token_timeline(records(), events=events).axes[0]
    vertical = [ln for ln in ax.get_lines() if list(ln.get_xdata())[0] == list(ln.get_xdata())[-1]]
    assert sorted(list(ln.get_xdata())[0] for ln in vertical) == [1, 2, 2]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend.count("micro") == 1 and legend.count("summarize") == 1
    micro = [ln for ln in vertical if ln.get_label() == "micro" or list(ln.get_xdata())[0] == 1]
    assert micro[0].get_color() != line(ax, "summarize").get_color()


def test_dict_turns_work_like_records():
    turns = [{"index": 0, "estimated_tokens": 10, "input_tokens": 12}]
    ax = token_timeline(turns).axes[0]
    assert list(line(ax, "API input tokens").get_ydata()) == [12]


def test_it_draws_on_a_given_axes():
    fig = Figure()
    ax = fig.add_subplot()
    assert token_timeline(records(), ax=ax) is fig
    assert ax.get_lines()


def test_the_same_input_renders_the_same_image():
    def png():
        buffer = io.BytesIO()
        token_timeline(records(), window=8000, events=[Event(1, "snip")]).savefig(
            buffer, format="png", metadata={"Software": None}
        )
        return buffer.getvalue()

    assert png() == png()


@pytest.mark.parametrize(
    "turns, events, message",
    [
        ([{"estimated_tokens": 3}], (), "index"),
        (records(), [{"turn": 1}], "layer"),
    ],
)
def test_malformed_input_is_refused_with_the_missing_field_named(turns, events, message):
    with pytest.raises(ValueError, match=message):
        token_timeline(turns, events=events)


def test_in_a_notebook_the_returned_figure_is_shown_exactly_once():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    source = (
        "from compaction.plots import token_timeline\n"
        "token_timeline([{'index': 0, 'estimated_tokens': 5, 'input_tokens': 5}], window=10)"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, [o.get("output_type") for o in outputs]
