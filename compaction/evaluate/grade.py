"""Asking a real model the probes' questions against a final context, and grading its answers.

The deterministic score (``probes.score``) asks whether the evidence is still in the text. With the
real API (``COMPACTION_BACKEND=anthropic``), ``ask_model`` also asks the model each question with
the final context in front of it, and grades the answer by the same evidence: answered when every
evidence item is in the answer. It costs one request per probe, so it never runs in the tests.
Deliberately left out: a model as judge (grading stays deterministic) and retries.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compaction.core.messages import blocks, text
from compaction.evaluate.probes import Probe, answers, normalized

QUESTION = "Answer from the conversation above only, in one or two sentences, quoting exact names: {question}"


def question_request(messages: Sequence[dict], question: str) -> list[dict]:
    """The final context with the question added as the user's last words (roles still alternate)."""
    ask = text(QUESTION.format(question=question))
    messages = list(messages)
    if messages and messages[-1].get("role") == "user":
        return [*messages[:-1], {**messages[-1], "content": [*blocks(messages[-1]), ask]}]
    return [*messages, {"role": "user", "content": [ask]}]


def ask_model(
    probes: Sequence[Probe], messages: Sequence[dict], *, client: Any, model: str, **request: Any
) -> dict[str, tuple[str, bool]]:
    """probe id -> (the model's answer, graded answered) for each probe, asked against ``messages``."""
    out = {}
    for p in probes:
        response = client.messages.create(
            model=model, max_tokens=300, messages=question_request(messages, p.question), **request
        )
        answer = "".join(getattr(b, "text", "") for b in getattr(response, "content", []) or [])
        out[p.id] = (answer, answers(normalized(answer), p))
    return out
