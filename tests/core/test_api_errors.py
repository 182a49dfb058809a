"""The API's signals that a request does not fit: both 400 wordings, the 413, and the stop reason."""

from __future__ import annotations

import anthropic
import pytest
from fake_summarizer import api_error

from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.core.api_errors import (
    WindowExceeded,
    context_limit_error,
    is_prompt_too_long,
    tokens_over,
    too_long_counts,
    window_exceeded,
)
from compaction.pipeline.hooks import Hooks

CONTEXT_LIMIT = (
    "input length and `max_tokens` exceed context limit: 199759 + 8192 > 200000, "
    "decrease input length or `max_tokens` and try again"
)


def test_both_400_wordings_and_the_413_are_refusals_of_a_request_too_big():
    assert is_prompt_too_long(api_error(400, "prompt is too long: 213021 tokens > 200000 maximum"))
    assert is_prompt_too_long(api_error(400, CONTEXT_LIMIT))
    assert is_prompt_too_long(api_error(413, "Request exceeds the maximum allowed number of bytes."))


@pytest.mark.parametrize(
    "error",
    [
        api_error(400, "max_tokens: 999999 > 64000, which is the maximum allowed number of output tokens"),
        api_error(
            400, "messages.3: `tool_use` ids were found without `tool_result` blocks immediately after"
        ),
        api_error(429, CONTEXT_LIMIT),
        ValueError(CONTEXT_LIMIT),
    ],
)
def test_other_errors_are_not(error):
    assert not is_prompt_too_long(error)
    assert tokens_over(error) is None


def test_the_counts_say_how_far_over_the_window_the_request_was():
    assert too_long_counts(api_error(400, "prompt is too long: 213021 tokens > 200000 maximum")) == (
        213021,
        200000,
    )
    assert too_long_counts(api_error(400, CONTEXT_LIMIT)) == (199759 + 8192, 200000)
    assert tokens_over(api_error(400, CONTEXT_LIMIT)) == 7951
    assert tokens_over(api_error(400, "prompt is too long")) is None  # the words without numbers


def test_context_limit_error_is_what_the_sdk_raises_for_that_answer():
    error = context_limit_error(3_905, 4_096, 8_000)
    assert isinstance(error, anthropic.BadRequestError) and error.status_code == 400
    assert error.body["error"]["message"].startswith(
        "input length and `max_tokens` exceed context limit: 3905 + 4096"
    )
    assert tokens_over(error) == 1


class CutOnce:
    """The offline client, except that its first answer stopped at the context window."""

    def __init__(self, client):
        self.inner, self.messages, self.calls = client, self, 0

    def create(self, **request):
        self.calls += 1
        response = self.inner.messages.create(**request)
        if self.calls == 1:
            return response.model_copy(update={"stop_reason": "model_context_window_exceeded"})
        return response


def test_an_answer_cut_off_by_the_window_is_dropped_and_the_loop_compacts_and_asks_again():
    client, compacted = CutOnce(connect("offline")), []

    def shrink(messages, error):
        compacted.append(error)
        return messages

    result = run_agent(client, workspace=new_workspace(), max_turns=2, hooks=Hooks(on_prompt_too_long=shrink))
    assert len(compacted) == 1 and isinstance(compacted[0], WindowExceeded)
    assert result.error is None and len(result.turns) == 3  # the cut call is recorded, as a refusal is
    cut, retry = result.turns[0], result.turns[1]
    assert cut.stop_reason == "model_context_window_exceeded" and cut.error.startswith("WindowExceeded")
    assert retry.index == cut.index == 0 and retry.error is None
    assert all(t.stop_reason != "model_context_window_exceeded" for t in result.turns[1:])


def test_without_a_hook_the_cut_off_answer_ends_the_session_and_is_not_kept():
    result = run_agent(CutOnce(connect("offline")), workspace=new_workspace(), max_turns=3)
    assert isinstance(result.error, WindowExceeded) and [t.error[:14] for t in result.turns] == [
        "WindowExceeded"
    ]
    assert result.messages == [result.messages[0]]  # the task alone: half an answer never joins the list
    assert window_exceeded(type("R", (), {"stop_reason": "model_context_window_exceeded"})())
