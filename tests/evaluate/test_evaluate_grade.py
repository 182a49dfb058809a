"""Asking a model the probes (never the real API here: a scripted client) and the frontier plot."""

from __future__ import annotations

import pytest
from fake_summarizer import FakeClient

from compaction.core.messages import assistant, tool_result, tool_use, user, validate
from compaction.evaluate.frontier import frontier_plot
from compaction.evaluate.grade import ask_model, question_request
from compaction.evaluate.probes import Probe
from compaction.evaluate.replay.engine import replay_messages

CONTEXT = [
    user("Fix it. Never edit the tests."),
    assistant(tool_use("toolu_1", "bash", {"command": "pytest"})),
    user(tool_result("toolu_1", "KeyError: 'user_id'\n" + "trace line\n" * 30)),
]
PROBE = Probe("err", "recall", "Which error came up?", ("KeyError: 'user_id'",))


def test_the_question_joins_the_last_user_message_so_roles_still_alternate():
    request = question_request(CONTEXT, PROBE.question)
    validate(request)
    assert len(request) == 3 and request[-1]["content"][-1]["text"].endswith("Which error came up?")
    assert question_request(CONTEXT[:2] + CONTEXT[2:] + [assistant("ok")], "q")[-1]["role"] == "user"


def test_an_answer_is_graded_by_the_probes_evidence():
    right = ask_model([PROBE], CONTEXT, client=FakeClient("It was a keyerror: 'user_id'."), model="m")
    wrong = ask_model([PROBE], CONTEXT, client=FakeClient("A timeout."), model="m")
    assert right == {"err": ("It was a keyerror: 'user_id'.", True)}
    assert wrong["err"][1] is False


def test_the_frontier_plot_names_every_strategy_and_shares_a_legend_entry_at_one_point():
    replays = [replay_messages(CONTEXT, name, window=4_000, probes=[PROBE]) for name in ("none", "masking 3")]
    axes = frontier_plot(replays).axes[0]
    names = [t.get_text() for t in axes.get_legend().get_texts()]
    assert names == ["none = masking 3 (100%, 100%)"]  # the same point, one entry with its figures
    assert axes.get_xlabel().startswith("cost with prompt caching")
    with pytest.raises(ValueError, match="needs the 'none' replay"):
        frontier_plot(replays[1:])
