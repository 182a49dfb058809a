"""``LazyClient``: the backend checked at once, the client built at first use, offline in the process.

A replay gives one to its strategies. Nothing is built until a request is made; for the offline
model the client is a ``DirectClient`` (no SDK, no server thread); an unknown backend or a missing
key is said when the LazyClient is made, before a session is read.
"""

from __future__ import annotations

import copy

import pytest

from compaction.agent.backend_choice import BackendError
from compaction.agent.lazy_client import LazyClient
from compaction.offline.direct import DirectClient


def test_nothing_is_built_until_the_client_is_used():
    client = LazyClient("offline", context_window=8_000)
    assert not client.connected


def test_the_offline_model_answers_in_the_process_with_the_options_given():
    client = LazyClient("offline", context_window=8_000)
    answer = client.messages.create(
        model="claude-sonnet-4-5", max_tokens=64, messages=[{"role": "user", "content": "Hello there."}]
    )
    assert client.connected and isinstance(client._client, DirectClient)
    assert client._client.headers["x-compaction-window"] == "8000"
    assert answer.content[0]["type"] == "text"


def test_an_unknown_backend_is_said_at_once():
    with pytest.raises(BackendError, match="nope"):
        LazyClient("nope")


def test_the_real_api_without_a_key_is_said_at_once(monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):
        LazyClient("anthropic")


def test_copying_the_client_does_not_build_it():
    client = LazyClient("offline")
    copy.copy(client)
    assert not client.connected
