"""The loopback Messages API server: ``POST /v1/messages`` and ``/v1/messages/count_tokens``.

It listens on 127.0.0.1 only, on a free port, in a daemon thread of the calling process, and
speaks the API's JSON so the real ``anthropic`` SDK can talk to it. It rejects what the API
rejects: the list rules come from ``compaction.messages.validate`` (the one source of them), and
a request over the context window gets ``prompt is too long: N tokens > M maximum``. Both
endpoints count with ``estimate_tokens(..., "tiktoken")``, so they always agree.

Each client's settings travel with each request as headers (``x-compaction-window``,
``-scenario``, ``-seed``), so one server per process serves clients with different windows.
Deliberately left out: streaming, batches, files, images' real token cost, rate limits, and
the ``max_tokens`` + input check of some models.
"""

from __future__ import annotations

import hashlib
import json
import marshal
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from compaction.messages import InvalidConversation, validate
from compaction.offline import scenario
from compaction.tokens import count_text, estimate_tokens

DEFAULT_WINDOW = 200_000
HEADER_WINDOW = "x-compaction-window"
HEADER_SCENARIO = "x-compaction-scenario"
HEADER_SEED = "x-compaction-seed"


class RequestError(Exception):
    """A request the API would refuse with HTTP 400 ``invalid_request_error``."""


class _TokenCache:
    """Per-message token counts keyed by the message's content, so a long list is counted once."""

    def __init__(self, limit: int = 50_000):
        self._counts: dict[bytes, int] = {}  # digest of a message -> tokens of that message alone
        self._limit = limit
        self._lock = threading.Lock()

    def count(self, messages: list, system: Any = None, tools: Any = None) -> int:
        """The same figure as ``estimate_tokens(messages, "tiktoken", system=, tools=)``."""
        total = estimate_tokens([], "tiktoken", system=system, tools=tools) if (system or tools) else 0
        for message in messages:
            key = _key(message)
            hit = self._counts.get(key)
            if hit is None:
                hit = estimate_tokens([message], "tiktoken")
                with self._lock:
                    if len(self._counts) >= self._limit:
                        self._counts.clear()
                    self._counts[key] = hit
            total += hit
        return total


def _key(message: Any) -> bytes:
    """A short digest of a JSON-decoded message; equal digests mean equal messages."""
    return hashlib.blake2b(marshal.dumps(message), digest_size=16).digest()


def _system_text(system: Any) -> str | None:
    """The system prompt as one string (a list of text blocks is joined)."""
    if system is None or isinstance(system, str):
        return system
    if isinstance(system, list):
        return "\n".join(str(b.get("text", "")) for b in system if isinstance(b, dict))
    raise RequestError(f"system: Input should be a valid string or list, not {type(system).__name__}")


def _config(headers: Any) -> tuple[int, str, int]:
    """(context window, scenario name, seed) from a request's headers."""
    try:
        window = int(headers.get(HEADER_WINDOW) or DEFAULT_WINDOW)
        seed = int(headers.get(HEADER_SEED) or 0)
    except ValueError as error:
        raise RequestError(f"{HEADER_WINDOW} and {HEADER_SEED} must be integers") from error
    name = headers.get(HEADER_SCENARIO) or scenario.DEFAULT_SCENARIO
    if name not in scenario.SCENARIOS:
        raise RequestError(
            f"unknown offline scenario {name!r}; choose one of: {', '.join(scenario.SCENARIOS)}"
        )
    return window, name, seed


def _checked(body: Any, *, create: bool) -> tuple[list, str | None, list | None]:
    """The messages, system text and tools of a request body, or a RequestError in API wording."""
    if not isinstance(body, dict):
        raise RequestError("body: Input should be a valid dictionary")
    for name in ("model", "messages") + (("max_tokens",) if create else ()):
        if name not in body:
            raise RequestError(f"{name}: Field required")
    if create and body.get("stream"):
        raise RequestError("stream: streaming is not supported by the offline model")
    messages, tools = body["messages"], body.get("tools")
    if tools is not None and not isinstance(tools, list):
        raise RequestError("tools: Input should be a valid list")
    try:
        validate(messages)
    except InvalidConversation as error:
        raise RequestError(error.api_message) from error
    return messages, _system_text(body.get("system")), tools


class OfflineServer:
    """A Messages API server on 127.0.0.1 in a daemon thread; ``start()``/``stop()`` or ``with``."""

    def __init__(self) -> None:
        self.tokens = _TokenCache()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()  # open keep-alive sockets, closed on stop
        self._workers: set[threading.Thread] = set()  # threads serving those sockets
        self._lock = threading.Lock()

    @property
    def port(self) -> int:
        """The port the server listens on (only while running)."""
        if self._httpd is None:
            raise RuntimeError("the offline server is not running; call start() first")
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """The base URL to give the SDK, e.g. ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        """True between start() and stop()."""
        return self._httpd is not None

    def start(self) -> OfflineServer:
        """Bind 127.0.0.1 on a free port and serve in a daemon thread; returns self."""
        if self._httpd is not None:
            return self
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        httpd.daemon_threads = True
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, name="compaction-offline", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close every connection and the port, and join the threads."""
        httpd, thread = self._httpd, self._thread
        if httpd is None:
            return
        httpd.shutdown()
        with self._lock:
            open_now = list(self._connections)
        for conn in open_now:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)
        with self._lock:
            workers = list(self._workers)
        for worker in workers:
            worker.join(timeout=5)
        self._httpd = self._thread = None

    def __enter__(self) -> OfflineServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------ the two endpoints

    def count_tokens(self, body: Any, headers: Any) -> dict:
        """The body of a count_tokens answer."""
        _config(headers)
        messages, system, tools = _checked(body, create=False)
        return {"input_tokens": self.tokens.count(messages, system, tools)}

    def create(self, body: Any, headers: Any) -> dict:
        """The body of a messages answer: the scenario's turn, or an error in the API's words."""
        window, name, seed = _config(headers)
        messages, system, tools = _checked(body, create=True)
        used = self.tokens.count(messages, system, tools)
        if used > window:
            raise RequestError(f"prompt is too long: {used} tokens > {window} maximum")
        content, stop_reason = scenario.respond(name, messages, tools=tools or [], seed=seed)
        output = sum(
            count_text(json.dumps(b) if b["type"] != "text" else b["text"], "tiktoken") for b in content
        )
        return {
            "id": scenario.message_id(messages, seed),
            "type": "message",
            "role": "assistant",
            "model": str(body["model"]),
            "content": content,
            "stop_reason": stop_reason,
            "stop_sequence": None,
            "usage": {
                "input_tokens": used,
                "output_tokens": output,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            },
        }


def _make_handler(server: OfflineServer) -> type[BaseHTTPRequestHandler]:
    routes = {"/v1/messages": server.create, "/v1/messages/count_tokens": server.count_tokens}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the SDK reuses one connection
        wbufsize = 1 << 16  # headers and body leave in one write, flushed after each request

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle wait
            with server._lock:
                server._connections.add(self.connection)
                server._workers.add(threading.current_thread())

        def finish(self) -> None:
            try:
                super().finish()
            except OSError:
                pass
            with server._lock:
                server._connections.discard(self.connection)
                server._workers.discard(threading.current_thread())

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass  # quiet: nothing about requests (or their headers) is logged

        def do_POST(self) -> None:
            route = routes.get(self.path.split("?", 1)[0].rstrip("/"))
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            if route is None:
                return self._send(404, _error("not_found_error", f"Not found: {self.path}"))
            try:
                body = json.loads(raw or b"null")
            except (ValueError, UnicodeDecodeError):
                return self._send(400, _error("invalid_request_error", "The request body is not valid JSON."))
            try:
                return self._send(200, route(body, self.headers))
            except RequestError as error:
                return self._send(400, _error("invalid_request_error", str(error)))
            except Exception as error:  # noqa: BLE001 - a bug here must reach the client as a 500
                return self._send(
                    500, _error("api_error", f"offline server error: {type(error).__name__}: {error}")
                )

        def do_GET(self) -> None:
            self._send(404, _error("not_found_error", f"Not found: {self.path}"))

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", "req_offline")
            if status >= 500:
                self.send_header("x-should-retry", "false")
            self.end_headers()
            self.wfile.write(data)

    return Handler


def _error(kind: str, message: str) -> dict:
    return {"type": "error", "error": {"type": kind, "message": message}}
