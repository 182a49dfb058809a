"""The session map: one band per phase, one marker per signal, tokens after every turn."""

from __future__ import annotations

import pytest
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure

from compaction.course.checks.levels import fix_session
from compaction.levels.phases import detect_phases
from compaction.levels.session_map import session_map, tokens_per_turn
from compaction.levels.signals import detect_signals


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    return fix_session(tmp_path_factory.mktemp("ws"))


def test_tokens_are_counted_after_every_turn_and_only_grow(session):
    tokens = tokens_per_turn(session)
    assert len(tokens) == sum(m["role"] == "assistant" for m in session)
    assert tokens == sorted(tokens) and tokens[0] > 0


def test_the_map_draws_a_band_per_phase_and_a_marker_per_signal(session):
    fig = session_map(session)
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    bands = [p for p in ax.patches]
    assert len(bands) == len(detect_phases(session))
    markers = [c for c in ax.collections if isinstance(c, PathCollection)]
    assert len(markers) == len(detect_signals(session))


def test_given_phases_and_signals_are_drawn_instead_of_detected(session):
    ax = session_map(session, phases=[], signals=[]).axes[0]
    assert not ax.patches and not ax.collections
