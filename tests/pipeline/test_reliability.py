"""Reliability: bad input never crashes deep inside, faults lose nothing, the server holds under load.

Each public entry point is given malformed lists, wrong types, None, binary-ish and Unicode text
and a 50 MB result. It either raises a clear error (a TypeError, ValueError or OSError whose
message names what is wrong) or handles the input and returns a valid list with every byte that
left the context on disk. Faults are injected as OSError from the disk, a model that fails, and a
server stopped in the middle of a session.
"""

from __future__ import annotations

import copy
import os
import socket
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import anthropic
import pytest

import compaction.pipeline.compactor as pipeline
from compaction.agent.backend import connect
from compaction.agent.loop import new_workspace, run_agent
from compaction.core import messages as M
from compaction.core.store import OutputStore
from compaction.core.tokens import TokenCounter, estimate_tokens
from compaction.core.transcript import read_transcript, write_transcript
from compaction.layers.budget import Budget, tool_result_budget
from compaction.layers.micro import Micro, micro_compact
from compaction.layers.reactive import Reactive
from compaction.layers.snip import Snip, snip_compact
from compaction.layers.summarize import Summary
from compaction.offline import OfflineServer
from compaction.offline.server.loopback import LoopbackHTTPServer
from compaction.pipeline.compactor import Compactor

CLEAR_ERRORS = (TypeError, ValueError, OSError)

# name -> what goes in the list; each must be rejected by validate and by every layer
MALFORMED = {
    "not a list": "hello",
    "None": None,
    "a number": 42,
    "a list with None": [None],
    "a message without content": [{"role": "user"}],
    "an unknown role": [{"role": "system", "content": "x"}],
    "content of the wrong type": [{"role": "user", "content": 3}],
    "a block without a type": [{"role": "user", "content": [{"text": "x"}]}],
    "a block that is a string": [{"role": "user", "content": ["x"]}],
    "an orphan tool result": [M.user(M.tool_result("toolu_x", "out"))],
}


def _layers(tmp_path: Path) -> dict:
    store = OutputStore(tmp_path / "store")
    compactor = Compactor(store=store, context_window=8_000, transcript_dir=tmp_path / "t")
    return {
        "validate": M.validate,
        "estimate_tokens": estimate_tokens,
        "TokenCounter.count": TokenCounter("chars").count,
        "tool_result_budget": lambda m: tool_result_budget(m, store=store, max_chars=10),
        "snip_compact": lambda m: snip_compact(m, max_messages=4, keep_head=1),
        "micro_compact": lambda m: micro_compact(m, keep_recent=0, min_chars=1),
        "Compactor.prepare": compactor.prepare,
        "write_transcript": lambda m: write_transcript(m, tmp_path / "t2"),
    }


def _assert_clear(exc: BaseException) -> None:
    assert isinstance(exc, CLEAR_ERRORS), f"{type(exc).__name__} is not a clear error: {exc}"
    assert len(str(exc)) > 10, f"the message says too little: {exc!r}"


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize(
    "layer",
    [
        "validate",
        "estimate_tokens",
        "TokenCounter.count",
        "tool_result_budget",
        "snip_compact",
        "micro_compact",
        "Compactor.prepare",
        "write_transcript",
    ],
)
def test_every_entry_point_rejects_malformed_input_with_a_clear_error_or_handles_it(tmp_path, layer, case):
    fn = _layers(tmp_path)[layer]
    value = copy.deepcopy(MALFORMED[case])
    try:
        out = fn(value)
    except CLEAR_ERRORS as exc:
        _assert_clear(exc)
        return
    except Exception as exc:  # noqa: BLE001 - the point of the test
        pytest.fail(f"{layer} on {case}: {type(exc).__name__} from deep inside: {exc}")
    assert value == MALFORMED[case], f"{layer} changed its input"
    if isinstance(out, list) and layer not in ("write_transcript",):
        # a layer that accepts a list the API rejects must not make it worse than it was
        assert not M.is_valid(MALFORMED[case]) or M.is_valid(out)


def _session_with(result: str) -> list[dict]:
    return [
        M.user("Read the big file."),
        M.assistant(M.tool_use("toolu_big", "read_file", {"path": "big.txt"})),
        M.user(M.tool_result("toolu_big", result)),
    ]


@pytest.mark.parametrize(
    "content",
    [
        "x" * 50_000_000,
        "\x00\x01\x02\xff\ufffd binary-ish \x7f" * 20_000,
        "日本語のテキスト 🧪 \U0001f600 Ελληνικά " * 20_000,
        "\ud800 lone surrogate " * 20_000,
    ],
    ids=["50 MB", "binary-ish", "unicode", "lone surrogate"],
)
def test_a_huge_or_strange_result_is_persisted_byte_for_byte_and_the_list_stays_valid(tmp_path, content):
    messages = _session_with(content)
    store = OutputStore(tmp_path)
    out = tool_result_budget(messages, store=store, max_chars=200_000)
    M.validate(out)
    marker = M.text_of(out[-1]["content"][0]["content"])
    assert "<persisted-output>" in marker and len(marker) < 10_000
    assert store.load("toolu_big") == content
    assert messages[-1]["content"][0]["content"] is content  # the input is untouched


def test_a_disk_that_refuses_writes_keeps_the_result_in_the_context(tmp_path, monkeypatch):
    messages = _session_with("y" * 300_000)
    store = OutputStore(tmp_path)

    def full(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "save", full)
    events = []
    out = tool_result_budget(messages, store=store, max_chars=200_000, on_event=events.append)
    assert out[-1]["content"][0]["content"] == "y" * 300_000
    assert events and "No space left" in str(events[-1])


def test_an_unwritable_transcript_folder_means_nothing_is_snipped_or_summarized(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(pipeline, "write_transcript", refuse)
    messages = [M.user("task")]
    for i in range(30):
        messages += [
            M.assistant(M.tool_use(f"t{i}", "bash", {"command": "ls"})),
            M.user(M.tool_result(f"t{i}", "ok")),
        ]
    compactor = Compactor(
        [Budget(), Snip(max_messages=10), Micro()],
        store=OutputStore(tmp_path / "s"),
        transcript_dir=tmp_path / "t",
        context_window=10**6,
    )
    out = compactor.prepare(messages)
    assert out == messages, "messages left the context although no transcript could be written"
    assert any("transcript" in e.detail for e in compactor.events)


def test_the_offline_server_answers_200_concurrent_requests_without_mixing_them_up():
    with OfflineServer() as server:
        client = anthropic.Anthropic(api_key="offline-model-needs-no-key", base_url=server.url, max_retries=0)

        def ask(i: int) -> tuple[int, int]:
            listed = [M.user(f"request {i}: " + "word " * i)]
            got = client.messages.count_tokens(model="offline", messages=listed).input_tokens
            return got, estimate_tokens(listed, "tiktoken")

        with ThreadPoolExecutor(max_workers=32) as pool:
            answers = list(pool.map(ask, range(200)))
    assert len(answers) == 200
    assert all(got == expected for got, expected in answers)
    assert len({got for got, _ in answers}) > 150  # the requests really were different


def test_the_offline_server_queues_many_connections_before_it_accepts_them():
    # socketserver's default queue of 5 overflowed under a thread pool on a busy machine, and the
    # kernel reset connections: here nothing accepts, so every connection waits in that queue
    listener = LoopbackHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    waiting: list[socket.socket] = []
    try:
        for _ in range(64):
            waiting.append(socket.create_connection(listener.server_address, timeout=5))
    finally:
        for conn in waiting:
            conn.close()
        listener.server_close()
    assert len(waiting) == 64


def test_a_server_stopped_mid_session_ends_it_with_a_clear_error_and_keeps_every_message(tmp_path):
    server = OfflineServer().start()
    client = anthropic.Anthropic(api_key="offline-model-needs-no-key", base_url=server.url, max_retries=0)
    stopped = threading.Event()

    def stop_after_three(record) -> None:
        if record.index == 2 and not stopped.is_set():
            server.stop()
            stopped.set()

    try:
        result = run_agent(
            client, workspace=new_workspace(tmp_path / "ws"), max_turns=10, on_turn=stop_after_three
        )
    finally:
        server.stop()
    assert isinstance(result.error, anthropic.APIConnectionError)
    assert len(result.turns) >= 3
    M.validate(result.messages)
    assert result.messages[0]["content"] == result.turns[0].messages[0]["content"]


def test_every_transcript_written_during_a_compacted_session_reads_back_valid(tmp_path):
    compactor = Compactor(
        store=OutputStore(tmp_path / "store"),
        client=connect(context_window=6_000),
        transcript_dir=tmp_path / "transcripts",
        context_window=6_000,
        layers=[Budget(), Snip(max_messages=20), Micro(), Summary(), Reactive()],
        workspace=tmp_path / "ws",
    )
    result = run_agent(
        connect(context_window=6_000),
        workspace=new_workspace(tmp_path / "ws"),
        max_turns=40,
        hooks=compactor.hooks(),
    )
    assert result.error is None, result.error
    files = sorted((tmp_path / "transcripts").glob("*.jsonl"))
    assert files, "the session was long enough to compact, so transcripts were written"
    for path in files:
        M.validate(read_transcript(path))


OFFLINE_RUN = """
import socket

real_connect = socket.socket.connect

def loopback_only(self, address):
    host = address[0] if isinstance(address, tuple) else address
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise OSError(101, f"network is unreachable (test): {address!r}")
    return real_connect(self, address)

real_create = socket.create_connection

def create_loopback_only(address, *args, **kwargs):
    if address[0] not in ("127.0.0.1", "::1", "localhost"):
        raise OSError(101, f"network is unreachable (test): {address!r}")
    return real_create(address, *args, **kwargs)

socket.socket.connect = loopback_only
socket.create_connection = create_loopback_only

import tempfile
from pathlib import Path

from compaction.agent.loop import new_workspace, run_agent
from compaction.agent.backend import connect
from compaction.pipeline.compactor import Compactor
from compaction.core.store import OutputStore

tmp = Path(tempfile.mkdtemp())
compactor = Compactor(store=OutputStore(tmp / "s"), client=connect(context_window=3_000),
                      transcript_dir=tmp / "t", context_window=3_000, workspace=tmp / "ws")
result = run_agent(connect(context_window=3_000), workspace=new_workspace(tmp / "ws"), max_turns=40,
                   hooks=compactor.hooks())
assert result.error is None, result.error
print("turns", len(result.turns), "summaries", compactor.counts()["summary"])
"""


def test_the_course_runs_with_the_network_cut_off_except_loopback(tmp_path):
    env = {**os.environ, "TIKTOKEN_CACHE_DIR": str(tmp_path / "empty-cache")}
    env.pop("COMPACTION_BACKEND", None)
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE_RUN], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    turns, summaries = done.stdout.split()[1], done.stdout.split()[3]
    assert int(turns) == 40 and int(summaries) >= 1
