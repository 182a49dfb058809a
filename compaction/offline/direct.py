"""The offline model called in this process: the loopback server's answers without HTTP or the SDK.

``DirectClient(context_window=...)`` has ``messages.create(**request)`` and
``messages.count_tokens(**request)`` as the SDK's client has them. It sends the request's JSON
(``extra_body`` merged in, ``extra_headers`` added to the headers, as the SDK sends them) to the
same functions the loopback server answers with (``server.api``), so the answer is the server's to
the byte. An answer is an ``Answer``: the JSON body, a dict whose keys also read as attributes
(``answer.content``, ``answer.stop_reason``). A request the API refuses raises
``core.api_errors.Refusal`` (400 and the API's message), which the package's refusal questions
recognise like the SDK's ``BadRequestError``.

Why it exists: importing the SDK costs about two CPU-seconds, more than replaying a small session,
and ``compaction replay`` asks the offline model only for summaries. The course's notebooks and
agents keep the real SDK against the loopback server (``compaction.connect``). Deliberately left
out: streaming, retries, timeouts (``timeout`` is accepted and ignored: nothing waits on a socket),
``with_raw_response`` and every endpoint but these two.
"""

from __future__ import annotations

import json
from typing import Any

from compaction.core.api_errors import Refusal
from compaction.offline.server import api, diagnostics
from compaction.offline.server.caching import PromptCache
from compaction.offline.server.errors import RequestError

_TRANSPORT = {"timeout", "extra_body", "extra_headers", "extra_query"}  # the SDK's options, not the body's


class Answer(dict):
    """An answer's JSON body; its keys also read as attributes, as the SDK's objects have them."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def model_dump(self, mode: str = "json") -> dict:
        """The body as a plain dict (the name the SDK's objects use)."""
        return json.loads(json.dumps(self))


class DirectClient:
    """The offline model as a client object: ``client.messages.create`` answers in this process."""

    def __init__(self, *, context_window: int | None = None, seed: int = 0, scenario: str | None = None):
        self.headers: dict[str, str] = {api.HEADER_SEED: str(seed)}
        if context_window is not None:
            self.headers[api.HEADER_WINDOW] = str(context_window)
        if scenario is not None:
            self.headers[api.HEADER_SCENARIO] = scenario
        api.config(self.headers)  # a bad window, seed or scenario is said now, not at the first request
        self.tokens = api.TokenCounts()
        self.cache = PromptCache()
        self.fingerprints = diagnostics.Fingerprints()

    @property
    def messages(self) -> DirectClient:
        """``client.messages``: this object."""
        return self

    def create(self, **request: Any) -> Answer:
        """The answer to ``POST /v1/messages``; ``Refusal`` for what the API refuses."""
        if request.get("stream"):
            raise ValueError("DirectClient does not stream; use compaction.connect('offline') for streaming")
        body, headers = self._wire(request)
        return Answer(
            self._answer(lambda: api.create(self.tokens, self.cache, body, headers, self.fingerprints))
        )

    def count_tokens(self, **request: Any) -> Answer:
        """The answer to ``POST /v1/messages/count_tokens``."""
        body, headers = self._wire(request)
        return Answer(self._answer(lambda: api.count_tokens(self.tokens, body, headers)))

    def _wire(self, request: dict) -> tuple[Any, dict[str, str]]:
        """The body as the server would parse it off the wire, and the request's headers."""
        body = {k: v for k, v in request.items() if k not in _TRANSPORT}
        body.update(request.get("extra_body") or {})
        headers = dict(self.headers)
        headers.update({str(k).lower(): str(v) for k, v in (request.get("extra_headers") or {}).items()})
        return json.loads(json.dumps(body, ensure_ascii=False)), headers

    @staticmethod
    def _answer(compute: Any) -> dict:
        try:
            return json.loads(json.dumps(compute(), ensure_ascii=False))
        except RequestError as error:
            raise Refusal(400, str(error)) from error
