"""The loopback Messages API server: ``POST /v1/messages``, ``/v1/messages/count_tokens``, models.

It listens on 127.0.0.1 only, on a free port, in a daemon thread of the calling process, and
speaks the API's JSON over HTTP/1.1 keep-alive so the real ``anthropic`` SDK can talk to it:
200 with the answer (as server-sent events for ``stream: true``: ``streaming``), 400
``invalid_request_error`` for what the API refuses (see ``api``), 404
for other paths; every error body carries a ``request_id`` (``errors``). ``GET /v1/models/{id}``
tells a client its window (``models``). The server keeps one prompt cache (``caching``) on a
clock a test may replace. ``stop()`` closes the port and every open connection and joins the
threads. Nothing about requests is logged. Deliberately left out: TLS, authentication (the key
is ignored), and every other endpoint.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from compaction.offline.server import api, diagnostics, models, streaming
from compaction.offline.server.api import HEADER_SCENARIO, HEADER_SEED, HEADER_WINDOW
from compaction.offline.server.caching import PromptCache
from compaction.offline.server.errors import RequestError, error_body, request_id


class LoopbackHTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with a longer queue of connections waiting to be accepted.

    socketserver's default is 5: a client opening dozens of connections at once (a thread pool) on
    a busy machine overflowed it, and the kernel reset some of them ("connection reset by peer").
    """

    request_queue_size = 128


class OfflineServer:
    """A Messages API server on 127.0.0.1 in a daemon thread; ``start()``/``stop()`` or ``with``."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.tokens = api.TokenCounts()
        self.cache = PromptCache(clock)  # cached prompt prefixes, shared by every client
        self.fingerprints = diagnostics.Fingerprints()  # requests that asked for cache diagnostics
        self._httpd: LoopbackHTTPServer | None = None
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
        httpd = LoopbackHTTPServer(("127.0.0.1", 0), _make_handler(self))
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


def _make_handler(server: OfflineServer) -> type[BaseHTTPRequestHandler]:
    routes = {
        "/v1/messages": lambda body, headers: api.create(
            server.tokens, server.cache, body, headers, server.fingerprints
        ),
        "/v1/messages/count_tokens": lambda body, headers: api.count_tokens(server.tokens, body, headers),
    }

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the SDK reuses one connection
        wbufsize = 1 << 16  # headers and body leave in one write, flushed after each request
        timeout = 300  # seconds: an idle keep-alive connection is closed, and its thread ends

        def setup(self) -> None:
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # no 40 ms Nagle wait
            with server._lock:
                server._connections.add(self.connection)
                server._workers = {t for t in server._workers if t.is_alive()}  # forget finished ones
                server._workers.add(threading.current_thread())  # joined by stop(), even after finish()

        def finish(self) -> None:
            try:
                super().finish()
            except OSError:
                pass
            with server._lock:
                server._connections.discard(self.connection)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass  # quiet: nothing about requests (or their headers) is logged

        def do_POST(self) -> None:
            route = routes.get(self.path.split("?", 1)[0].rstrip("/"))
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            self.rid = request_id(self.path.encode() + raw)
            if route is None:
                return self._send(404, error_body("not_found_error", f"Not found: {self.path}", self.rid))
            try:
                body = json.loads(raw or b"null")
            except (ValueError, UnicodeDecodeError):
                message = "The request body is not valid JSON."
                return self._send(400, error_body("invalid_request_error", message, self.rid))
            stream = isinstance(body, dict) and body.get("stream") is True and route is routes["/v1/messages"]
            self._answer(lambda: route(body, self.headers), stream=stream)

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            self.rid = request_id(path.encode())
            if path == "/v1/models":
                return self._answer(lambda: models.model_list(api.config(self.headers)[0]))
            if path.startswith("/v1/models/") and path.count("/") == 3:
                model = path.rsplit("/", 1)[1]
                return self._answer(lambda: models.model_info(model, api.config(self.headers)[0]))
            self._send(404, error_body("not_found_error", f"Not found: {self.path}", self.rid))

        def _answer(self, compute: Callable[[], dict], stream: bool = False) -> None:
            try:
                answer = compute()
                if stream:
                    return self._send_bytes(200, streaming.events(answer), "text/event-stream")
                return self._send(200, answer)
            except RequestError as error:
                body = error_body("invalid_request_error", str(error), self.rid, error.details)
                return self._send(400, body)
            except Exception as error:  # noqa: BLE001 - a bug here must reach the client as a 500
                message = f"offline server error: {type(error).__name__}: {error}"
                return self._send(500, error_body("api_error", message, self.rid))

        def _send(self, status: int, payload: dict) -> None:
            self._send_bytes(
                status, json.dumps(payload, ensure_ascii=False).encode("utf-8"), "application/json"
            )

        def _send_bytes(self, status: int, data: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("content-type", kind)
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", getattr(self, "rid", "req_offline"))
            if status >= 500:
                self.send_header("x-should-retry", "false")
            self.end_headers()
            self.wfile.write(data)

    return Handler


__all__ = ["HEADER_SCENARIO", "HEADER_SEED", "HEADER_WINDOW", "OfflineServer"]
