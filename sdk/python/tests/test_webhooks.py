"""Webhook verification: Format A and B, golden vectors shared with Go."""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import threading
import unittest

import hostgate
from hostgate import webhooks
from hostgate.webhooks import DeliveryDedupe, VerificationError, verify

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
GO_GOLDEN = os.path.join(REPO, "internal", "webhooks", "request_test.go")

OLD = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"
NEW = "8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b"
T = 1767268830

# The golden deliveries of the hub's Go tests (internal/webhooks/request_test.go,
# TestGoldenRequests) and docs/webhooks.md; test_go_vectors_unchanged keeps
# these copies equal to the Go file. (sdk/go has no webhook vectors.)
BODY_A = (b'{"event":"host.l1_config_updated","delivery_id":"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13",'
          b'"user_id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d",'
          b'"source":"web","occurred_at":"2026-01-01T12:00:00Z","data":{"bid":4821936602771,'
          b'"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","url":"https://hooks.example.com/l1"}}')
SIG_A = "t=1767268830,v1=8bf413fc057d2efee63d86bfabd4cea8fcd421bdd496402b4dad829bb928ace5"
BODY_B = (b'{"event":"host.l1_config.updated","delivery_id":"wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13",'
          b'"timestamp":"2026-01-01T12:00:00Z","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d",'
          b'"host_name":"web-1","changed_by":{"kind":"user","id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d",'
          b'"ip":"203.0.113.7"},"before":{"bid":4821936602771,"report_url":"https://old.example.com/l1"},'
          b'"after":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b",'
          b'"report_url":"https://hooks.example.com/l1"}}')
SIG_B = "sha256=f8245af2a924668a83831d3dfab3a591468fb1ee83cbb10afafca23a3fac1bbf"


def headers_a(sig=SIG_A, delivery="6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13"):
    return {"Content-Type": "application/json", "User-Agent": "gateway-webhook/1.0",
            "X-Gateway-Event": "host.l1_config_updated", "X-Gateway-Delivery": delivery,
            "X-Gateway-Signature": sig}


def headers_b(sig=SIG_B, ts=str(T)):
    return {"Content-Type": "application/json", "User-Agent": "gateway-new-webhook/1.0",
            "X-Gateway-Event": "host.l1_config.updated",
            "X-Gateway-Delivery": "wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13",
            "X-Gateway-Timestamp": ts, "X-Gateway-Signature": sig}


def hex_mac(secret: str, t: int, body: bytes) -> str:
    """The signature as docs/webhooks.md §1 defines it, computed here
    without the SDK."""
    return hmac.new(secret.encode(), b"%d." % t + body, hashlib.sha256).hexdigest()


class GoldenTest(unittest.TestCase):
    def test_go_vectors_unchanged(self):
        if not os.path.exists(GO_GOLDEN):
            self.skipTest("no Go sources beside the SDK")
        with open(GO_GOLDEN) as f:
            src = f.read()
        consts = {m[0]: m[1] or m[2] for m in re.findall(r'(golden\w+)\s*=\s*(?:`([^`]*)`|"([^"]*)")', src)}
        self.assertEqual(consts["goldenBodyA"].encode(), BODY_A)
        self.assertEqual(consts["goldenSigA"], SIG_A)
        self.assertEqual(consts["goldenBodyB"].encode(), BODY_B)
        self.assertEqual(consts["goldenSigB"], SIG_B)
        self.assertIn(f'oldSecret = "{OLD}"', src)

    def test_independent_mac_agrees_with_go(self):
        self.assertEqual("t=%d,v1=%s" % (T, hex_mac(OLD, T, BODY_A)), SIG_A)
        self.assertEqual("sha256=" + hex_mac(OLD, T, BODY_B), SIG_B)
        self.assertEqual(webhooks.sign_a(OLD, T, BODY_A), SIG_A)
        self.assertEqual(webhooks.sign_b(OLD, T, BODY_B), SIG_B)

    def test_format_a(self):
        ev = verify(headers_a(), BODY_A, OLD, now=T + 70)
        self.assertEqual((ev.format, ev.event, ev.delivery_id), ("A", "host.l1_config_updated",
                                                                 "6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13"))
        self.assertEqual((ev.new_secret_key, ev.bid, ev.url, ev.timestamp), (NEW, 4821936602771,
                                                                             "https://hooks.example.com/l1", T))
        self.assertEqual(ev.host_id, "9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d")
        self.assertEqual(ev.body["source"], "web")

    def test_format_b(self):
        ev = verify(headers_b(), BODY_B, OLD, now=T + 70)
        self.assertEqual((ev.format, ev.delivery_id, ev.new_secret_key, ev.url),
                         ("B", "wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13", NEW, "https://hooks.example.com/l1"))
        self.assertEqual(ev.body["changed_by"]["kind"], "user")

    def test_header_case_and_lists(self):
        lower = {k.lower(): [v] for k, v in headers_b().items()}
        self.assertEqual(verify(lower, BODY_B, OLD, now=T).format, "B")
        self.assertEqual(verify(list(headers_a().items()), BODY_A.decode(), OLD, now=T).format, "A")


class FreshVectorsTest(unittest.TestCase):
    """Deliveries built here, signed with hmac directly."""

    def test_a_parts_in_any_order_and_extra(self):
        body = json.dumps({"event": "host.l1_config_updated", "delivery_id": "d1", "host_id": "h",
                           "data": {"bid": 9, "secret_key": "k2", "url": "u"}}).encode()
        sig = hex_mac("k1", 1000, body)
        for header in ("v1=%s,t=1000" % sig, "t=1000, v0=zz, v1=00ff, v1=%s" % sig):
            ev = verify(headers_a(header, "d1"), body, "k1", now=1000)
            self.assertEqual((ev.new_secret_key, ev.bid), ("k2", 9))

    def test_window(self):
        body = BODY_B
        for now, ok in ((T + 300, True), (T - 300, True), (T + 301, False), (T - 301, False)):
            with self.subTest(now=now):
                if ok:
                    verify(headers_b(), body, OLD, now=now)
                else:
                    with self.assertRaises(VerificationError) as cm:
                        verify(headers_b(), body, OLD, now=now)
                    self.assertEqual(cm.exception.reason, "stale")
        verify(headers_b(), body, OLD, now=T + 1000, tolerance_s=1000)


class RefusalsTest(unittest.TestCase):
    def refused(self, reason, headers, body, secret=OLD, now=T):
        with self.assertRaises(VerificationError) as cm:
            verify(headers, body, secret, now=now)
        self.assertEqual(cm.exception.reason, reason, str(cm.exception))

    def test_tampered_body(self):
        self.refused("signature", headers_a(), BODY_A.replace(b"4821936602771", b"4821936602772"))
        self.refused("signature", headers_b(), BODY_B + b" ")

    def test_wrong_secret(self):
        self.refused("signature", headers_a(), BODY_A, NEW)
        self.refused("signature", headers_b(), BODY_B, NEW)
        self.refused("signature", headers_b(), BODY_B, "")

    def test_old_timestamp(self):
        self.refused("stale", headers_a(), BODY_A, now=T + 301)
        self.refused("stale", headers_b(), BODY_B, now=1767269131)

    def test_timestamp_header_is_signed(self):
        self.refused("signature", headers_b(ts=str(T + 1)), BODY_B)

    def test_missing_headers(self):
        for fmt, h, body in (("A", headers_a(), BODY_A), ("B", headers_b(), BODY_B)):
            for name in list(h):
                if name in ("Content-Type", "User-Agent"):
                    continue
                with self.subTest(fmt=fmt, missing=name):
                    partial = {k: v for k, v in h.items() if k != name}
                    self.refused("malformed", partial, body)

    def test_malformed(self):
        self.refused("malformed", headers_a("v1=" + SIG_A.split("v1=")[1]), BODY_A)
        self.refused("malformed", headers_a("t=1767268830"), BODY_A)
        self.refused("malformed", headers_a("t=1,t=2,v1=00"), BODY_A)
        self.refused("malformed", headers_b(ts="soon"), BODY_B)
        # a format A body under format B headers, properly signed: event mismatch
        self.refused("malformed", headers_b("sha256=" + hex_mac(OLD, T, BODY_A)), BODY_A)
        other = dict(headers_a(), **{"X-Gateway-Delivery": "someone-else"})
        self.refused("malformed", other, BODY_A)


# The job.finished vector, shared with sdk/go/jobs_test.go (kept equal by
# test_go_vector_unchanged) and the TypeScript SDK's tests.
JOB_SECRET = "whsec_3f9a1c7e5b2d4086a1e3c5b7d9f02468"
JOB_DELIVERY = "5b0e4c2a-9f1d-4e8b-a3c7-6d2f1e0b9a84"
JOB_BODY = (b'{"id":"5b0e4c2a-9f1d-4e8b-a3c7-6d2f1e0b9a84","type":"job.finished","created_at":"2026-01-01T12:00:00Z",'
            b'"data":{"id":"7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f","name":"uptime","state":"finished","host_count":2,'
            b'"totals":{"queued":0,"running":0,"succeeded":1,"failed":1,"skipped":0,"expired":0,"canceled":0},'
            b'"charged":2,"created_at":"2026-01-01T11:59:00Z","finished_at":"2026-01-01T12:00:00Z"}}')
JOB_SIG = "t=1767268830,v1=c98b0d6706720d2a6d997373df9c233dbcc8b765c9f261a5447f0522ffde09ac"
GO_JOBS_TEST = os.path.join(REPO, "sdk", "go", "jobs_test.go")


def job_headers(**over):
    h = {"Content-Type": "application/json", "X-Gateway-Event": "job.finished", "X-Gateway-Delivery": JOB_DELIVERY,
         "X-Gateway-Signature": JOB_SIG}
    h.update(over)
    return h


class JobFinishedTest(unittest.TestCase):
    def test_go_vector_unchanged(self):
        if not os.path.exists(GO_JOBS_TEST):
            self.skipTest("no Go SDK beside this one")
        with open(GO_JOBS_TEST) as f:
            src = f.read()
        self.assertIn("jobFinishedBody     = `%s`" % JOB_BODY.decode(), src)
        self.assertIn('jobFinishedSig      = "%s"' % JOB_SIG, src)
        self.assertIn('jobFinishedSecret   = "%s"' % JOB_SECRET, src)

    def test_verifies(self):
        self.assertEqual("t=%d,v1=%s" % (T, hex_mac(JOB_SECRET, T, JOB_BODY)), JOB_SIG)
        ev = verify(job_headers(), JOB_BODY, JOB_SECRET, now=T + 10)
        self.assertEqual((ev.format, ev.event, ev.delivery_id, ev.host_id, ev.new_secret_key),
                         ("A", webhooks.EVENT_JOB_FINISHED, JOB_DELIVERY, "", ""))
        job = hostgate.from_dict(hostgate.Job, ev.data)
        self.assertEqual((job.id, job.totals.succeeded, job.totals.failed, job.final, job.succeeded),
                         ("7c1d2e3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f", 1, 1, True, False))

    def test_refuses(self):
        cases = [
            ("tampered", job_headers(), JOB_BODY + b" ", JOB_SECRET, "signature"),
            ("wrong secret", job_headers(), JOB_BODY, "whsec_other", "signature"),
            ("event mismatch", job_headers(**{"X-Gateway-Event": "job.started"}), JOB_BODY, JOB_SECRET, "malformed"),
            ("delivery mismatch", job_headers(**{"X-Gateway-Delivery": "other"}), JOB_BODY, JOB_SECRET, "malformed"),
        ]
        for name, h, body, secret, reason in cases:
            with self.subTest(name):
                with self.assertRaises(VerificationError) as cm:
                    verify(h, body, secret, now=T)
                self.assertEqual(cm.exception.reason, reason)
        with self.assertRaises(VerificationError) as cm:
            verify(job_headers(), JOB_BODY, JOB_SECRET, now=T + 301)
        self.assertEqual(cm.exception.reason, "stale")


class DedupeTest(unittest.TestCase):
    def test_bounded(self):
        d = DeliveryDedupe(max_size=3)
        self.assertTrue(d.add("a"))
        self.assertFalse(d.add("a"))
        for x in "bcd":
            d.add(x)
        self.assertEqual(len(d), 3)
        self.assertNotIn("a", d)
        self.assertTrue(d.seen("d"))

    def test_threads(self):
        d = DeliveryDedupe(max_size=100000)
        wins = []

        def work():
            wins.append(sum(d.add(str(i)) for i in range(2000)))

        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        self.assertEqual(sum(wins), 2000)


if __name__ == "__main__":
    unittest.main()
