"""A fake hub for the tests: an http.server in a thread that records each
request and answers from a script."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional, Tuple

Answer = Tuple[int, Any]  # (status, JSON value or bytes)


class Recorded:
    def __init__(self, method: str, path: str, headers: Dict[str, str], body: bytes) -> None:
        self.method, self.path, self.headers, self.body = method, path, headers, body

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class FakeHub:
    """answer(req) -> (status, body) decides each answer; default 200 {}."""

    def __init__(self, answer: Optional[Callable[[Recorded], Answer]] = None, delay_s: float = 0.0) -> None:
        self.requests: List[Recorded] = []
        self.answer = answer or (lambda r: (200, {}))
        self.delay_s = delay_s
        hub = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                n = int(self.headers.get("Content-Length") or 0)
                r = Recorded(self.command, self.path, {k: v for k, v in self.headers.items()}, self.rfile.read(n))
                hub.requests.append(r)
                if hub.delay_s:
                    threading.Event().wait(hub.delay_s)
                status, body = hub.answer(r)
                extra: Dict[str, str] = {}
                if isinstance(body, tuple):
                    body, extra = body
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", extra.pop("Content-Type", "application/json"))
                    for k, v in extra.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

            def log_message(self, *a: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.server.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> "FakeHub":
        return self

    def __exit__(self, *a: Any) -> None:
        self.close()
