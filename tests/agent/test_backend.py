"""connect() gives a real anthropic client: offline by default, the real API only with a key.

The key is read from the environment and never shows up in the client's repr, in logs, or in
an error message; a missing key is reported by naming the variable to set.
"""

from __future__ import annotations

import gc
import logging
import ssl
import warnings

import anthropic
import pytest

from compaction.agent.backend import (
    CLAUDE_MODEL,
    OFFLINE_KEY,
    BackendError,
    backend_name,
    connect,
    default_model,
    tls_context,
)
from compaction.core.messages import user
from compaction.offline import shared_server

FAKE_KEY = "sk-ant-api03-" + "Zz9" * 30  # shaped like a real key, valid nowhere


@pytest.fixture
def no_backend_env(monkeypatch):
    for name in ("COMPACTION_BACKEND", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def test_the_default_client_is_a_real_sdk_client_on_loopback(no_backend_env):
    client = connect()
    assert isinstance(client, anthropic.Anthropic)
    assert str(client.base_url).startswith("http://127.0.0.1:")
    assert str(client.base_url).rstrip("/") == shared_server().url


def test_offline_clients_share_one_tls_context_and_each_still_answers(no_backend_env, monkeypatch):
    made = []
    real = ssl.create_default_context
    monkeypatch.setattr(ssl, "create_default_context", lambda *a, **k: made.append(1) or real(*a, **k))
    tls_context.cache_clear()
    clients = [connect(context_window=8_000) for _ in range(3)]
    assert len(made) == 1, f"{len(made)} TLS contexts for 3 clients"
    for client in clients:
        reply = client.messages.create(
            model=default_model(), max_tokens=50, messages=[{"role": "user", "content": "hi"}]
        )
        assert reply.content


def test_a_dropped_offline_client_closes_its_connection_without_a_resource_warning(no_backend_env):
    gc.collect()  # what earlier tests left behind warns now, not inside the block
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client = connect(context_window=8_000)
        client.messages.create(model=default_model(), max_tokens=50, messages=[user("hi")])
        del client
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_the_offline_key_does_not_look_like_a_real_key(no_backend_env):
    assert connect().api_key == OFFLINE_KEY
    assert not OFFLINE_KEY.startswith("sk-")


def test_the_offline_client_retries_little(no_backend_env):
    assert connect().max_retries <= 2


def test_the_window_scenario_and_seed_travel_as_headers(no_backend_env):
    headers = connect(context_window=8_000, scenario="textstats", seed=3).default_headers
    assert headers["x-compaction-window"] == "8000"
    assert headers["x-compaction-scenario"] == "textstats"
    assert headers["x-compaction-seed"] == "3"


def test_the_default_offline_window_is_200_000(no_backend_env):
    assert connect().default_headers["x-compaction-window"] == "200000"


def test_a_bad_window_is_refused_by_name(no_backend_env):
    with pytest.raises(ValueError, match="context_window"):
        connect(context_window=0)


def test_the_anthropic_backend_without_a_key_names_the_variable(no_backend_env):
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):
        connect("anthropic")


def test_the_environment_can_choose_the_anthropic_backend(no_backend_env, monkeypatch):
    monkeypatch.setenv("COMPACTION_BACKEND", "anthropic")
    assert backend_name() == "anthropic"
    with pytest.raises(BackendError, match="ANTHROPIC_API_KEY"):
        connect()


def test_an_unknown_backend_is_refused(no_backend_env):
    with pytest.raises(BackendError, match="offline"):
        connect("openai")


def test_the_key_never_appears_in_the_clients_repr_or_str(no_backend_env, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    client = connect("anthropic")
    assert isinstance(client, anthropic.Anthropic)
    assert FAKE_KEY not in repr(client) and FAKE_KEY not in str(client)
    assert "api.anthropic.com" in str(client.base_url)


def test_the_key_never_appears_in_debug_logs(no_backend_env, monkeypatch, caplog):
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", shared_server().url)  # the offline server stands in
    caplog.set_level(logging.DEBUG)
    response = connect("anthropic").messages.create(model="m", max_tokens=50, messages=[user("hi")])
    assert response.content
    assert caplog.records, "debug logging was not captured"
    assert FAKE_KEY not in caplog.text


def test_compaction_model_overrides_the_default_model(monkeypatch):
    monkeypatch.setenv("COMPACTION_MODEL", "claude-test-model")
    assert default_model() == "claude-test-model"
    monkeypatch.delenv("COMPACTION_MODEL")
    assert default_model() == CLAUDE_MODEL


def test_the_default_model_is_a_current_claude_model():
    deprecated = pytest.importorskip("anthropic._data").DEPRECATED_MODELS  # the SDK's own list
    assert CLAUDE_MODEL.startswith("claude-")
    assert CLAUDE_MODEL not in deprecated


def test_an_unknown_scenario_is_refused_by_connect_and_by_the_server(no_backend_env):
    with pytest.raises(ValueError, match="textstats"):
        connect(scenario="chess")
    client = connect().with_options(default_headers={"x-compaction-scenario": "chess"})
    with pytest.raises(anthropic.BadRequestError, match="unknown offline scenario 'chess'"):
        client.messages.create(model="m", max_tokens=10, messages=[user("hi")])
