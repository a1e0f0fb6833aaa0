"""Against a real hub, when HOSTGATE_SDK_HUB (base URL) and
HOSTGATE_SDK_KEY (an API key of a user) are set; skipped otherwise.
Small on purpose: nothing here is charged."""
from __future__ import annotations

import os
import unittest
import uuid

import hostgate

HUB = os.environ.get("HOSTGATE_SDK_HUB", "")
KEY = os.environ.get("HOSTGATE_SDK_KEY", "")


@unittest.skipUnless(HUB and KEY, "HOSTGATE_SDK_HUB and HOSTGATE_SDK_KEY name no hub")
class RealHubTest(unittest.TestCase):
    def setUp(self) -> None:
        self.c = hostgate.Client(HUB, KEY, timeout=30)

    def test_hosts(self):
        name = "py-sdk-" + uuid.uuid4().hex[:8]
        host, cr = self.c.create_host(name, None, True)
        self.addCleanup(self.c.delete_host, host.id)
        self.assertEqual(host.name, name)
        self.assertTrue(cr is not None and cr.install_token and cr.host_id == host.id)
        self.assertIn(host.id, [h.id for h in self.c.list_hosts()])
        self.assertEqual(self.c.get_host(host.id).name, name)

    def test_provisioning_payload(self):
        host, cr = self.c.create_host("py-prov-" + uuid.uuid4().hex[:8], None, True)
        self.addCleanup(self.c.delete_host, host.id)
        p = self.c.provisioning_payload(host.id)
        self.assertEqual((p.schema_version, p.hub.host_id, p.hub.secret_key), (1, host.id, cr.secret_key))
        self.assertNotEqual(p.hub.install_token, cr.install_token)
        self.assertIsNone(p.autologon)
        self.assertLess(len(p.raw), 1024)
        p = self.c.provisioning_payload(host.id, hostgate.Autologon())
        self.assertEqual(p.autologon.username, "Administrator")
        self.assertGreaterEqual(len(p.autologon.password), 16)

    def test_user_webhook_deliveries(self):
        page = self.c.list_user_webhook_deliveries(5)
        self.assertIsInstance(page, hostgate.Page)
        self.assertEqual(page.limit, 5)
        self.assertTrue(all(isinstance(d, hostgate.WebhookDelivery) for d in page.items))
        with self.assertRaises(hostgate.HostgateError) as cm:
            self.c.retry_user_webhook_delivery(str(uuid.uuid4()))
        self.assertEqual((cm.exception.status, cm.exception.error), (404, "not_found"))

    def test_unknown_host_is_not_found(self):
        with self.assertRaises(hostgate.HostgateError) as cm:
            self.c.get_host(str(uuid.uuid4()))
        self.assertEqual((cm.exception.status, cm.exception.error), (404, "not_found"))
        self.assertTrue(hostgate.is_not_found(cm.exception))


if __name__ == "__main__":
    unittest.main()
