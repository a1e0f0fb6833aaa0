"""The minimal receiver of docs/sdk-python.md runs as written: it adopts
the secret of each delivery, so a Format A delivery followed by a Format B
one signed with the adopted secret both verify; repeats and forgeries too."""
from __future__ import annotations

import json
import os
import threading
import time
import unittest
import urllib.error
import urllib.request
from http.server import ThreadingHTTPServer
from unittest import mock

from hostgate import webhooks

DOC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "sdk-python.md")


def example_source() -> str:
    with open(DOC) as f:
        s = f.read()
    start = s.index("```python", s.index("### A minimal receiver")) + len("```python\n")
    return s[start:s.index("```", start)]


class ReceiverExampleTest(unittest.TestCase):
    def setUp(self) -> None:
        if not os.path.exists(DOC):
            self.skipTest("docs not beside the SDK")
        ns: dict = {"__name__": "receiver_example"}
        with mock.patch.dict(os.environ, {"HOST_SECRET_KEY": "s0" * 16}), \
                mock.patch.object(ThreadingHTTPServer, "serve_forever", lambda self: None), \
                mock.patch.object(ThreadingHTTPServer, "__init__", _bind_any_port):
            exec(compile(example_source(), DOC, "exec"), ns)
        self.ns = ns
        quiet = type("QuietReceiver", (ns["Receiver"],), {"log_message": lambda *a: None})
        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), quiet)
        threading.Thread(target=self.srv.serve_forever, args=(0.02,), daemon=True).start()
        self.url = "http://127.0.0.1:%d/l1" % self.srv.server_address[1]

    def tearDown(self) -> None:
        self.srv.shutdown()
        self.srv.server_close()

    def post(self, headers, body) -> int:
        req = urllib.request.Request(self.url, data=body, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=5) as r:
                return r.status
        except urllib.error.HTTPError as e:
            return e.code

    def test_chain(self):
        t = int(time.time())
        a = json.dumps({"event": webhooks.EVENT_A, "delivery_id": "d-1", "host_id": "h",
                        "data": {"bid": 1, "secret_key": "s1" * 16, "url": self.url}}).encode()
        ha = {"X-Gateway-Event": webhooks.EVENT_A, "X-Gateway-Delivery": "d-1",
              "X-Gateway-Signature": webhooks.sign_a("s0" * 16, t, a)}
        b = json.dumps({"event": webhooks.EVENT_B, "delivery_id": "wd_d-2", "host_id": "h",
                        "after": {"bid": 1, "secret_key": "s2" * 16, "report_url": self.url}}).encode()
        hb = {"X-Gateway-Event": webhooks.EVENT_B, "X-Gateway-Delivery": "wd_d-2", "X-Gateway-Timestamp": str(t),
              "X-Gateway-Signature": webhooks.sign_b("s1" * 16, t, b)}
        self.assertEqual(self.post(hb, b), 401)  # out of order: not yet the secret it was signed with
        self.assertEqual(self.post(ha, a), 200)
        self.assertEqual(self.ns["state"]["secret"], "s1" * 16)
        self.assertEqual(self.post(ha, a), 200)  # a repeat, answered without verifying
        self.assertEqual(self.post(hb, b + b" "), 401)  # tampered
        self.assertEqual(self.post(hb, b), 200)
        self.assertEqual(self.ns["state"]["secret"], "s2" * 16)


_real_init = ThreadingHTTPServer.__init__


def _bind_any_port(self, addr, handler, *a, **kw):  # the example's fixed port may be taken
    _real_init(self, ("127.0.0.1", 0), handler, *a, **kw)
    self.server_close()


if __name__ == "__main__":
    unittest.main()
