"""What a replay watches: every request the model answers, the session as it grows, each probe per pass.

``RecordingClient`` wraps a client and records each answered ``messages.create`` as a priced
``Request`` (summary requests marked); given a ``Pricer`` it prices each request as it comes, and
may keep none of them (a long replay's requests would hold every list it ever sent). ``Recorder``
rebuilds the uncompacted session from what reaches a strategy: every message it sees for the first
time, never a layer's own output.
``ProbeWatch`` scores every pass of every preparation and remembers which pass last dropped each
probe. Deliberately left out: responses' content (the final context holds what matters).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from compaction.core.summary_prompt import is_summary_request
from compaction.evaluate.cost import Pricer, Request, framing_tokens
from compaction.evaluate.probes import Answers, ContextTexts, Probe
from compaction.pipeline.compactor import Passes


class RecordingClient:
    """Wraps a client: every answered ``messages.create`` is recorded as a priced ``Request``."""

    def __init__(self, client: Any, pricer: Pricer | None = None, *, keep: bool = True):
        self._client = client
        self.requests: list[Request] = []  # every request recorded, when ``keep``
        self.pricer, self.keep = pricer, keep
        self.recorded = 0  # requests recorded, kept or not
        self._framing: dict[str, int] = {}  # framing key -> tokens

    @property
    def messages(self) -> RecordingClient:
        """``client.messages``: this object, so ``client.messages.create`` is recorded."""
        return self

    def create(self, **request: Any) -> Any:
        """Send the request through the wrapped client; record it when it is answered."""
        response = self._client.messages.create(**request)
        system, tools = request.get("system"), request.get("tools")
        key = json.dumps([system, tools], sort_keys=True, default=str)
        if key not in self._framing:
            self._framing[key] = framing_tokens(system, tools)
        sent = request.get("messages") or []
        summary = is_summary_request(sent) or "compaction" in (request.get("extra_body") or {})
        self.record(Request(tuple(sent), self._framing[key], key, summary))
        return response

    def record(self, request: Request) -> None:
        """Record a request the model answered (or, in a replay, would have): priced now with a pricer."""
        if self.pricer is not None:
            self.pricer.add(request)
        if self.keep:
            self.requests.append(request)
        self.recorded += 1

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)


class Recorder:
    """Every message a session produced, in order: what reached ``prepare`` new, plus the end."""

    def __init__(self) -> None:
        self.session: list[dict] = []
        self._known: set[int] = set()
        self._alive: list[list[dict]] = []  # keeps the dicts alive so their ids stay unique

    def see(self, messages: list[dict], produced: list[dict] | None = None) -> None:
        """Record the messages not seen before; ``produced`` (a layer's output) is not the session."""
        for m in messages:
            if id(m) not in self._known:
                self._known.add(id(m))
                self.session.append(m)
        if produced is not None:
            self._known.update(id(m) for m in produced)
            self._alive.append(produced)


class ProbeWatch:
    """Scores every pass against the probes and remembers which pass last dropped each probe."""

    def __init__(self, probes: Sequence[Probe], texts: ContextTexts | None = None):
        self.probes = list(probes)
        self.lost: dict[str, tuple[int, str]] = {}
        self.turn = 0
        self._answered = Answers(self.probes, texts)  # texts: shared by the strategies of a session

    def __call__(self, kind: str, passes: Passes) -> None:
        if not self.probes or all(m is passes[0][1] for _, m in passes):
            return  # no probe, or no pass changed the list: nothing can have been lost
        before = self._answered(passes[0][1])
        previous = passes[0][1]
        for name, messages in passes[1:]:
            if messages is previous:
                continue
            now = self._answered(messages)
            for probe_id in before - now:
                self.lost[probe_id] = (self.turn, name)
            before, previous = now, messages
