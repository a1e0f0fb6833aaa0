"""provisioning_payload against a fake hub: the request, the decoded
payload and its raw bytes, and the refusals as HostgateError."""
from __future__ import annotations

import json
import unittest

import hostgate

from tests.fakehub import FakeHub

KEY = "ak_x.y"
PATH = "/v1/api/hosts/h%2F1/provisioning-payload"
ANSWER = (b'{"schema_version":1,"hub":{"host_id":"h1","bid":7,"secret_key":"s","install_token":"t",'
          b'"agent_privkey_seed":"c2VlZA==","agent_pubkey":"cHVi","ws_url":"wss://x/ws","api_endpoint":"https://x",'
          b'"listen_port":23456},"autologon":{"username":"Administrator","password":"0123456789abcdefGH"},'
          b'"extra":{"kept":true}}\n')


class ProvisioningPayloadTest(unittest.TestCase):
    def setUp(self) -> None:
        self.answer = (200, ANSWER)
        self.hub = FakeHub(lambda r: self.answer)
        self.c = hostgate.Client(self.hub.url, KEY, timeout=5)

    def tearDown(self) -> None:
        self.hub.close()

    def test_request_and_payload(self):
        p = self.c.provisioning_payload("h/1")
        r = self.hub.requests[-1]
        self.assertEqual((r.method, r.path, r.body), ("POST", PATH, b""))
        self.assertEqual(r.headers.get("Authorization"), "Bearer " + KEY)
        self.assertIsInstance(p, hostgate.ProvisioningPayload)
        self.assertEqual((p.schema_version, p.hub.host_id, p.hub.bid, p.hub.agent_pubkey, p.hub.listen_port),
                         (1, "h1", 7, "cHVi", 23456))
        self.assertEqual(p.autologon, hostgate.PayloadAutologon("Administrator", "0123456789abcdefGH"))
        self.assertEqual(p.raw, ANSWER.strip())
        self.assertEqual(json.loads(p.raw)["extra"], {"kept": True})

    def test_autologon_bodies(self):
        for al, body in [
            (hostgate.Autologon(), {"autologon": {}}),
            (hostgate.Autologon(username="ops"), {"autologon": {"username": "ops"}}),
            (hostgate.Autologon("ops", "0123456789abcdef"),
             {"autologon": {"username": "ops", "password": "0123456789abcdef"}}),
        ]:
            with self.subTest(autologon=al):
                self.c.provisioning_payload("h/1", al)
                r = self.hub.requests[-1]
                self.assertEqual(r.json(), body)
                self.assertEqual(r.headers.get("Content-Type"), "application/json")

    def test_refusal_not_retried(self):
        self.answer = (400, {"error": "invalid_body", "message": "autologon.password must be 16 to 128 characters"})
        with self.assertRaises(hostgate.HostgateError) as cm:
            self.c.provisioning_payload("h1", hostgate.Autologon(password="short"))
        self.assertEqual((cm.exception.status, cm.exception.error), (400, "invalid_body"))
        self.answer = (503, {"error": "unavailable", "message": "try later"})
        with self.assertRaises(hostgate.HostgateError):
            self.c.provisioning_payload("h1")
        self.assertEqual(len(self.hub.requests), 2, "a call that issues credentials is never retried")
        self.answer = (404, {"error": "not_found", "message": "host not found"})
        with self.assertRaises(hostgate.HostgateError) as cm:
            self.c.provisioning_payload("h1")
        self.assertTrue(hostgate.is_not_found(cm.exception))


if __name__ == "__main__":
    unittest.main()
