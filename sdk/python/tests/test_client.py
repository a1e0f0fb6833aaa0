"""The client against a fake hub: paths, bodies, headers, errors, retries."""
from __future__ import annotations

import base64
import os
import re
import socket
import time
import unittest
from unittest import mock

import hostgate
from hostgate import controls as ctl
from hostgate._transport import Transport

from tests.fakehub import FakeHub

GO_SDK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "go")
KEY = "ak_x.y"
H = "/v1/api/hosts/h1"


class OperationsTest(unittest.TestCase):
    """Each method sends the route, method and body the Go SDK sends."""

    def setUp(self) -> None:
        self.answers = {}
        self.hub = FakeHub(lambda r: (200, self.answers.get(r.path.split("?")[0], {})))
        self.c = hostgate.Client(self.hub.url + "/", KEY, timeout=5)

    def tearDown(self) -> None:
        self.hub.close()

    def last(self):
        return self.hub.requests[-1]

    def check(self, call, method, path, body):
        call()
        r = self.last()
        self.assertEqual((r.method, r.path), (method, path))
        self.assertEqual(r.json(), body)
        self.assertEqual(r.headers.get("Authorization"), "Bearer " + KEY)
        if body is not None:
            self.assertEqual(r.headers.get("Content-Type"), "application/json")

    def test_table(self):
        c = self.c
        dl = hostgate.DownloadOptions(url="https://x/y.zip", max_bytes=10)
        cases = [
            (lambda: c.list_hosts(), "GET", "/v1/api/hosts", None),
            (lambda: c.get_host("h1"), "GET", H, None),
            (lambda: c.create_host("web"), "POST", "/v1/api/hosts", {"name": "web", "with_credentials": False}),
            (lambda: c.create_host("web", 2222, True), "POST", "/v1/api/hosts",
             {"name": "web", "with_credentials": True, "listen_port": 2222}),
            (lambda: c.delete_host("h1"), "DELETE", H, None),
            (lambda: c.install_token("h1"), "POST", H + "/install-token", None),
            (lambda: c.rotate_secret("h1"), "POST", H + "/rotate-secret", None),
            (lambda: c.ping("h1"), "POST", H + "/ping", None),
            (lambda: c.put_l1_config("h1", hostgate.L1Config(7, "ab" * 16, "https://r/l1", "B")), "PUT",
             H + "/l1-config", {"bid": 7, "secret_key": "ab" * 16, "url": "https://r/l1", "webhook_format": "B"}),
            (lambda: c.put_l1_config("h1", hostgate.L1Config(7, "ab" * 16)), "PUT", H + "/l1-config",
             {"bid": 7, "secret_key": "ab" * 16, "url": ""}),
            (lambda: c.webhook_deliveries("h1", 10), "GET", "/v1/user/hosts/h1/webhook-deliveries?limit=10", None),
            (lambda: c.webhook_deliveries("h1"), "GET", "/v1/user/hosts/h1/webhook-deliveries", None),
            (lambda: c.retry_webhook_delivery("h1", "d1"), "POST", "/v1/user/hosts/h1/webhook-deliveries/d1/retry",
             None),
            (lambda: c.make_dir("h1", "/a"), "POST", H + "/files/dir", {"controls": 1, "path": "/a"}),
            (lambda: c.remove_dir("h1", "/a"), "POST", H + "/files/dir", {"controls": 2, "path": "/a"}),
            (lambda: c.create_file("h1", "/f", "x"), "POST", H + "/files/text",
             {"controls": 4, "path": "/f", "data": "x"}),
            (lambda: c.remove_file("h1", "/f"), "POST", H + "/files/text", {"controls": 8, "path": "/f"}),
            (lambda: c.append_string("h1", "/f", "s"), "POST", H + "/files/text",
             {"controls": 16, "path": "/f", "data": "s"}),
            (lambda: c.read_string("h1", "/f"), "POST", H + "/files/text", {"controls": 32, "path": "/f"}),
            (lambda: c.remove_string("h1", "/f", "s"), "POST", H + "/files/text",
             {"controls": 64, "path": "/f", "data": "s"}),
            (lambda: c.unzip("h1", "/z.zip", "/d"), "POST", H + "/files/zip",
             {"controls": 128, "path": "/z.zip", "data": "/d"}),
            (lambda: c.download("h1", "/y.zip", dl), "POST", H + "/files/download",
             {"controls": 256, "path": "/y.zip", "data": {"url": "https://x/y.zip", "max_bytes": 10}}),
            (lambda: c.exec("h1", "/bin/true", ""), "POST", H + "/process/exec",
             {"controls": 1024, "path": "/bin/true"}),
            (lambda: c.exec("h1", "/bin/echo", "a b"), "POST", H + "/process/exec",
             {"controls": 1024, "path": "/bin/echo", "data": "a b"}),
            (lambda: c.shell("h1", "/bin/sh", "-c 'echo hi'", 5), "POST", H + "/process/shell",
             {"controls": 8192, "path": "/bin/sh", "data": {"args": "-c 'echo hi'", "timeout_s": 5}}),
            (lambda: c.shell("h1", "sh", "", 0), "POST", H + "/process/shell",
             {"controls": 8192, "path": "sh", "data": {"args": ""}}),
            (lambda: c.kill("h1", "x.exe", 3), "POST", H + "/process/kill",
             {"controls": 4096, "path": "x.exe", "data": {"timeout_s": 3}}),
            (lambda: c.kill("h1", "x.exe"), "POST", H + "/process/kill", {"controls": 4096, "path": "x.exe"}),
            (lambda: c.list_processes("h1", ""), "POST", H + "/process/list", {"controls": 1 << 21}),
            (lambda: c.system_info("h1"), "POST", H + "/system/info", {"controls": 1 << 24}),
            (lambda: c.metrics("h1"), "POST", H + "/system/metrics", {"controls": 1 << 25}),
            (lambda: c.service_ctl("h1", "svc", hostgate.ServiceRequest("start")), "POST", H + "/service/ctl",
             {"controls": 1 << 26, "path": "svc", "data": {"action": "start"}}),
            (lambda: c.registry("h1", "HKLM\\Software", hostgate.RegistryRequest("get", name="v")), "POST",
             H + "/registry/rw", {"controls": 1 << 27, "path": "HKLM\\Software", "data": {"action": "get", "name": "v"}}),
            (lambda: c.scheduled_task("h1", "", hostgate.TaskRequest("list")), "POST", H + "/scheduled-task/ctl",
             {"controls": 1 << 28, "data": {"action": "list"}}),
            (lambda: c.raw("h1", ctl.CTL_STR_RD, "/f", None), "POST", H + "/controls/raw",
             {"controls": 32, "path": "/f"}),
            (lambda: c.orchestrate_start("h1", "/g d", hostgate.OrchestrateStart(run_gate_count=3,
                                                                                   spawn_delay_ms=0)),
             "POST", H + "/orchestrate/start?base_path=%2Fg%20d", {"run_gate_count": 3, "spawn_delay_ms": 0}),
            (lambda: c.orchestrate_shutdown("h1", "/g", hostgate.OrchestrateShutdown(timeout_override_s=0)),
             "POST", H + "/orchestrate/shutdown?base_path=%2Fg", {"timeout_override_s": 0}),
            (lambda: c.orchestrate_shutdown("h1", "/g"), "POST", H + "/orchestrate/shutdown?base_path=%2Fg", {}),
            (lambda: c.open_shell("h1"), "POST", H + "/shell/session/open", {"cols": 0, "rows": 0}),
        ]
        for call, method, path, body in cases:
            with self.subTest(path=path, body=body):
                self.check(call, method, path, body)

    def test_host_id_is_escaped(self):
        self.c.shell("h/1", "/bin/sh", "", 0)
        self.assertEqual(self.last().path, "/v1/api/hosts/h%2F1/process/shell")

    def test_typed_results(self):
        # The answer of the Go SDK's TestOperationBodies.
        self.answers[H + "/process/shell"] = {"stdout": "hi\n", "exit_code": 0, "timed_out": False, "new": 1}
        self.answers["/v1/api/hosts"] = {"items": [{"id": "h1", "name": "web", "bid": 5, "online": True}]}
        self.answers[H + "/process/list"] = {"processes": [{"pid": 1, "name": "init"}]}
        self.answers[H + "/ping"] = {"rtt_ms": 3, "agent_version": "1.2.3"}
        self.answers[H + "/service/ctl"] = {"services": [{"name": "a", "state": "running"}]}
        res = self.c.shell("h1", "/bin/sh", "-c 'echo hi'", 5)
        self.assertIsInstance(res, hostgate.ShellResult)
        self.assertEqual((res.stdout, res.stderr, res.exit_code, res.timed_out), ("hi\n", "", 0, False))
        hosts = self.c.list_hosts()
        self.assertEqual((hosts[0].id, hosts[0].bid, hosts[0].online), ("h1", 5, True))
        self.assertEqual(self.c.list_processes("h1")[0].name, "init")
        self.assertEqual(self.c.ping("h1"), hostgate.PingResult(3, "1.2.3"))
        self.assertEqual(self.c.service_ctl("h1", "", hostgate.ServiceRequest("list")).services[0].state, "running")

    def test_create_host_with_credentials(self):
        self.answers["/v1/api/hosts"] = {"host": {"id": "h9", "name": "n"}, "credentials": {
            "host_id": "h9", "install_token": "tok", "install_command": {"shell": "curl x | sudo sh"}}}
        host, cr = self.c.create_host("n", None, True)
        self.assertEqual(host.id, "h9")
        self.assertEqual((cr.install_token, cr.install_command.shell), ("tok", "curl x | sudo sh"))
        self.answers["/v1/api/hosts"] = {"host": {"id": "h9"}}
        self.assertIsNone(self.c.create_host("n")[1])

    def test_installer(self):
        self.answers[H + "/installer"] = (b"MZ\x00bin", {"Content-Type": "application/octet-stream",
                                                         "Content-Disposition": 'attachment; filename="a.exe"'})
        inst = self.c.installer("h1", "exe")
        self.assertEqual(self.last().path, H + "/installer?format=exe")
        self.assertEqual((inst.content, inst.filename), (b"MZ\x00bin", "a.exe"))

    def test_shell_session(self):
        reads = [{"data": base64.b64encode(b"hel").decode(), "eof": False},
                 {"data": "", "eof": False},
                 {"data": base64.b64encode(b"lo").decode(), "eof": True, "exit_code": 4}]
        sid = "/shell/session/s%201"

        def answer(r):
            if r.path.endswith("/open"):
                return 200, {"stream_id": "s 1"}
            if r.path.endswith("/read"):
                return 200, reads.pop(0)
            return 200, {"ok": True}

        self.hub.answer = answer
        with self.c.open_shell("h1", 100, 30) as s:
            self.assertEqual(s.id, "s 1")
            s.write("echo hello; exit 4\n")
            s.resize(120, 40)
            outs = list(s.outputs(wait_s=0.5))
        self.assertEqual(b"".join(o.data for o in outs), b"hello")
        self.assertEqual(outs[-1].exit_code, 4)
        got = [(r.path.replace(H + sid, ""), r.json()) for r in self.hub.requests]
        self.assertEqual(got, [
            (H + "/shell/session/open", {"cols": 100, "rows": 30}),
            ("/write", {"input": "echo hello; exit 4\n"}),
            ("/resize", {"cols": 120, "rows": 40}),
            ("/read", {"max": 0, "wait_ms": 500}), ("/read", {"max": 0, "wait_ms": 500}),
            ("/read", {"max": 0, "wait_ms": 500}),
            ("/close", None),
        ])


class ErrorsTest(unittest.TestCase):
    def test_mapping_and_predicates(self):
        # The cases of the Go SDK's TestErrorsAndHelpers.
        cases = [
            (402, {"error": "insufficient_balance", "message": "low"}, hostgate.is_insufficient_balance,
             "insufficient_balance", "low"),
            (409, {"error": "host_offline", "message": "gone"}, hostgate.is_host_offline, "host_offline", "gone"),
            (404, {"error": "not_found", "message": "host not found"}, hostgate.is_not_found, "not_found",
             "host not found"),
            (504, {"error": "agent_timeout", "message": "slow"}, hostgate.is_agent_timeout, "agent_timeout", "slow"),
            (502, b"<html>bad gateway</html>", lambda e: True, "http_502", "<html>bad gateway</html>"),
        ]
        for status, body, pred, code, msg in cases:
            with self.subTest(status=status), FakeHub(lambda r: (status, body)) as hub:
                with self.assertRaises(hostgate.HostgateError) as cm:
                    hostgate.Client(hub.url, KEY).shell("h", "sh", "", 0)
                e = cm.exception
                self.assertEqual((e.status, e.error, e.message), (status, code, msg))
                self.assertTrue(pred(e))
                self.assertEqual(hostgate.error_code(e), code)
                self.assertEqual(len(hub.requests), 1)
        self.assertFalse(hostgate.is_host_offline(None))
        self.assertFalse(hostgate.is_insufficient_balance(ValueError("x")))
        self.assertFalse(hostgate.is_insufficient_balance(hostgate.HostgateError(409, "host_offline", "")))


def refused_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return "http://127.0.0.1:%d" % port


class RetryTest(unittest.TestCase):
    def client(self, url, **kw):
        return hostgate.Client(url, KEY, backoff_s=0.001, **kw)

    def test_get_retried_on_503(self):
        n = {"i": 0}

        def answer(r):
            n["i"] += 1
            return (503, {"error": "unavailable", "message": "x"}) if n["i"] < 3 else (200, {"items": []})

        with FakeHub(answer) as hub:
            self.assertEqual(self.client(hub.url).list_hosts(), [])
            self.assertEqual(len(hub.requests), 3)

    def test_get_gives_up(self):
        with FakeHub(lambda r: (503, {"error": "unavailable", "message": "x"})) as hub:
            with self.assertRaises(hostgate.HostgateError) as cm:
                self.client(hub.url, max_retries=2).get_host("h1")
            self.assertEqual(cm.exception.status, 503)
            self.assertEqual(len(hub.requests), 3)

    def test_charged_commands_never_retried(self):
        c_calls = [
            lambda c: c.shell("h1", "sh", "", 0),
            lambda c: c.read_string("h1", "/f"),
            lambda c: c.create_host("x"),
            lambda c: c.raw("h1", ctl.CTL_SYSTEM_INFO, "", None),
            lambda c: c.installer("h1"),
        ]
        for status in (503, 504, 502):
            for call in c_calls:
                with self.subTest(status=status), FakeHub(lambda r: (status, {"error": "e", "message": ""})) as hub:
                    with self.assertRaises(hostgate.HostgateError):
                        call(self.client(hub.url))
                    self.assertEqual(len(hub.requests), 1)

    def test_post_timeout_not_retried(self):
        with FakeHub(delay_s=0.6) as hub:
            t0 = time.monotonic()
            with self.assertRaises(hostgate.TimeoutError) as cm:
                self.client(hub.url).ping("h1", timeout=0.2)
            self.assertLess(time.monotonic() - t0, 0.55)
            self.assertTrue(cm.exception.sent)
            time.sleep(0.5)
            self.assertEqual(len(hub.requests), 1)

    def test_client_timeout(self):
        with FakeHub(delay_s=0.5) as hub:
            with self.assertRaises(hostgate.TimeoutError):
                self.client(hub.url, timeout=0.1, max_retries=0).list_hosts()
            with self.assertRaises(hostgate.TransportError):
                self.client(hub.url, timeout=0.1, max_retries=0).metrics("h1")

    def test_shell_timeout_outlasts_timeout_s(self):
        with mock.patch.object(Transport, "call", return_value=(200, {}, b"{}")) as call:
            self.client("http://unused", timeout=1).shell("h1", "sh", "", 120)
            self.assertEqual(call.call_args.kwargs["timeout"], 135)

    def test_connection_refused_retried_for_any_method(self):
        url = refused_url()
        for call in (lambda c: c.list_hosts(), lambda c: c.shell("h1", "sh", "", 0)):
            sleeps = []
            with mock.patch.object(Transport, "_sleep", lambda self, a: sleeps.append(a) or a + 1):
                with self.assertRaises(hostgate.TransportError) as cm:
                    call(self.client(url, max_retries=3))
            self.assertFalse(cm.exception.sent)
            self.assertEqual(sleeps, [0, 1, 2])  # 3 retries: 4 attempts

    def test_refused_then_up(self):
        hub = FakeHub(lambda r: (200, {"items": [{"id": "a"}]}))
        c = self.client(hub.url)
        real = Transport._once
        n = {"i": 0}

        def flaky(self, *a):
            n["i"] += 1
            if n["i"] == 1:
                raise hostgate.TransportError("refused", sent=False)
            return real(self, *a)

        with hub, mock.patch.object(Transport, "_once", flaky):
            self.assertEqual(c.create_host("a")[0].id, "")  # POST sent once after the refusal
            self.assertEqual(len(hub.requests), 1)


class ControlsTest(unittest.TestCase):
    def test_identical_to_go_sdk(self):
        with open(os.path.join(GO_SDK, "controls.go")) as f:
            src = f.read()
        go = {}
        for name, expr in re.findall(r"^\s*(Ctl\w+)\s+int64\s*=\s*([^\n/]+)", src, re.M):
            expr = expr.strip()
            m = re.fullmatch(r"1 << (\d+)", expr)
            go[name] = 1 << int(m.group(1)) if m else int(expr)
        self.assertEqual(len(go), 28)
        self.assertEqual(go, ctl.GO_NAMES)
        ours = {k: v for k, v in vars(ctl).items() if k.startswith("CTL_")}
        self.assertEqual(sorted(ours.values()), sorted(go.values()))


if __name__ == "__main__":
    unittest.main()
