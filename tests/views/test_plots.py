"""The token timeline: what it draws from turn records, the window, the threshold and compaction events."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pytest
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from compaction.agent.loop import TurnRecord, sample_session
from compaction.layers.triggers import summary_threshold
from compaction.levels.session_map import session_map
from compaction.presentation.palette import LAYERS, PHASES, all_colors
from compaction.views.plots import token_timeline


@dataclass
class Event:
    turn: int
    kind: str


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
    estimated = line(ax, "estimated (tiktoken cl100k)")
    assert list(estimated.get_xdata()) == [0, 1, 2]
    assert list(estimated.get_ydata()) == [1000, 3000, 9000]
    api = line(ax, "API input tokens")
    assert list(api.get_xdata()) == [0, 1] and list(api.get_ydata()) == [1010, 3050]


def test_the_window_is_a_horizontal_line_named_in_the_legend():
    ax = token_timeline(records(), window=8000).axes[0]
    window = line(ax, "window (8,000)")
    assert list(window.get_ydata()) == [8000, 8000]
    assert "window (8,000)" in [t.get_text() for t in ax.get_legend().get_texts()]


def test_summaries_are_lines_and_cheap_layers_are_ticks_one_row_and_one_legend_entry_each():
    events = [Event(1, "micro"), {"turn": 2, "kind": "summary"}, Event(2, "micro"), Event(2, "snip")]
    ax = token_timeline(records(), events=events).axes[0]
    summary = line(ax, "summary")
    assert list(summary.get_xdata()) == [2, 2]  # a vertical line at turn 2
    micro, snip = line(ax, "micro (2)"), line(ax, "snip (1)")
    assert list(micro.get_xdata()) == [1, 2] and list(snip.get_xdata()) == [2]
    assert micro.get_linestyle() == "None" and micro.get_marker() == "|"
    assert micro.get_ydata()[0] != snip.get_ydata()[0], "two layers' ticks share a row"
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend.count("summary") == 1 and legend.count("micro (2)") == 1


def test_each_layer_has_its_palette_colour_whatever_fires_first():
    first = token_timeline(records(), events=[Event(0, "summary"), Event(1, "micro")]).axes[0]
    second = token_timeline(records(), events=[Event(0, "micro"), Event(1, "summary")]).axes[0]
    for ax in (first, second):
        assert to_hex(line(ax, "micro (1)").get_color()) == LAYERS["micro"]
        assert to_hex(line(ax, "summary").get_color()) == LAYERS["summary"]


def test_a_failed_summary_is_a_cross_in_the_summary_colour():
    ax = token_timeline(records(), events=[Event(1, "summary_failed")]).axes[0]
    failed = line(ax, "summary_failed (1)")
    assert failed.get_marker() == "x" and to_hex(failed.get_color()) == LAYERS["summary"]


def test_the_threshold_defaults_to_the_compactors_for_the_window_and_0_draws_none():
    ax = token_timeline(records(), window=8000).axes[0]
    assert list(line(ax, f"threshold ({summary_threshold(8000):,})").get_ydata())[0] == summary_threshold(
        8000
    )
    ax = token_timeline(records(), window=8000, threshold=5000).axes[0]
    assert list(line(ax, "threshold (5,000)").get_ydata()) == [5000, 5000]
    ax = token_timeline(records(), window=8000, threshold=0).axes[0]
    assert not [ln for ln in ax.get_lines() if ln.get_label().startswith("threshold")]


def test_every_plot_has_a_title_whole_turn_ticks_and_room_for_the_window():
    fig = token_timeline([{"index": i, "estimated_tokens": 100 * i} for i in range(3)], window=9000)
    ax = fig.axes[0]
    fig.canvas.draw()
    assert ax.get_title() == "tokens per turn"
    assert all(float(t).is_integer() for t in ax.get_xticks())
    assert ax.get_ylim()[1] > 9000
    assert token_timeline(records(), title="chapter 08").axes[0].get_title() == "chapter 08"
    assert ax.get_ylabel() == "tokens (tiktoken cl100k)"


def test_every_colour_of_the_plot_comes_from_the_palette():
    events = [Event(t, layer) for t, layer in enumerate(["budget", "snip", "micro", "summary", "reactive"])]
    events += [Event(1, "compact"), Event(2, "breaker"), Event(2, "summary_failed"), Event(1, "repetition")]
    ax = token_timeline(records(), window=8000, events=events).axes[0]
    used = {to_hex(ln.get_color()) for ln in ax.get_lines()}
    assert used <= all_colors(), used - all_colors()
    assert len(used) >= 10


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
        (records(), [{"turn": 1}], "kind"),
    ],
)
def test_malformed_input_is_refused_with_the_missing_field_named(turns, events, message):
    with pytest.raises(ValueError, match=message):
        token_timeline(turns, events=events)


def test_in_a_notebook_the_returned_figure_is_shown_exactly_once():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    source = (
        "from compaction.views.plots import token_timeline\n"
        "token_timeline([{'index': 0, 'estimated_tokens': 5, 'input_tokens': 5}], window=10)"
    )
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    outputs = notebook.cells[0].outputs
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) == 1, [o.get("output_type") for o in outputs]


def test_the_session_map_of_the_levels_draws_in_the_palettes_colours_too():
    session = sample_session()
    ax = session_map(session).axes[0]
    used = {to_hex(ln.get_color()) for ln in ax.get_lines()}
    used |= {to_hex(p.get_facecolor()) for p in ax.patches}
    used |= {to_hex(c.get_facecolor()[0]) for c in ax.collections}
    assert used <= all_colors(), used - all_colors()
    assert {to_hex(p.get_facecolor()) for p in ax.patches} <= set(PHASES.values())
    ax.figure.canvas.draw()
    assert ax.get_title() and all(float(t).is_integer() for t in ax.get_xticks())


@dataclass
class Acted:
    turn: int
    kind: str
    tokens_before: int
    tokens_after: int


def test_where_compaction_acted_the_estimate_before_it_is_drawn_above_the_point_after_it():
    events = [Acted(1, "micro", 3600, 3300), Acted(1, "summary", 3300, 900), Acted(2, "budget", 0, 0)]
    ax = token_timeline(records(), window=8000, events=events).axes[0]
    before = line(ax, "estimate before compaction")
    assert list(before.get_xdata()) == [1] and list(before.get_ydata()) == [3600]  # the first layer's figure
    assert before.get_linestyle() == "None" and before.get_markerfacecolor() == "none"
    (joined,) = ax.collections[:1]
    (segment,) = joined.get_segments()
    assert [tuple(p) for p in segment] == [(1, 3000), (1, 3600)]  # down to the request as sent
    ax = token_timeline(records(), events=[Event(1, "summary")]).axes[0]
    assert not [ln for ln in ax.get_lines() if ln.get_label() == "estimate before compaction"]
