"""What a call cost: the hub's X-Hostgate-Charged and X-Hostgate-Balance
reach on_charge, last_charge and HostgateError.charge."""
from __future__ import annotations

import threading
import unittest

import hostgate

from tests.fakehub import FakeHub

KEY = "ak_x.y"


class ChargeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.headers = {}
        self.status = 200

        def answer(r):
            if self.status != 200:
                return self.status, ({"error": "agent_timeout", "message": "late"}, dict(self.headers))
            return 200, ({"items": [], "stdout": "", "exit_code": 0}, dict(self.headers))

        self.hub = FakeHub(answer)
        self.seen = []
        self.c = hostgate.Client(self.hub.url, KEY, timeout=5, max_retries=0, on_charge=self.seen.append)

    def tearDown(self) -> None:
        self.hub.close()

    def test_success(self):
        self.headers = {"X-Hostgate-Charged": "0.5", "X-Hostgate-Balance": "99.5"}
        self.c.list_hosts()
        want = hostgate.Charge(tokens=0.5, charged_text="0.5", balance=99.5, balance_text="99.5")
        self.assertEqual(self.c.last_charge, want)
        self.assertEqual(self.seen, [want])

    def test_failure_after_the_charge(self):
        self.headers = {"X-Hostgate-Charged": "5", "X-Hostgate-Balance": "94.5"}
        self.status = 504
        with self.assertRaises(hostgate.HostgateError) as cm:
            self.c.shell("h1", "/bin/sh", "-c true", 5)
        self.assertTrue(hostgate.is_agent_timeout(cm.exception))
        self.assertEqual(cm.exception.charge, hostgate.Charge(5.0, "5", 94.5, "94.5"))
        self.assertEqual(self.c.last_charge, cm.exception.charge)

    def test_free_mode_and_free_routes(self):
        self.headers = {"X-Hostgate-Charged": "0"}
        self.c.list_hosts()
        self.assertEqual(self.c.last_charge, hostgate.Charge(0.0, "0"))
        self.headers = {}
        self.c.list_hosts()
        self.assertIsNone(self.c.last_charge)
        self.assertEqual(len(self.seen), 1)

    def test_last_charge_is_per_thread(self):
        self.headers = {"X-Hostgate-Charged": "1", "X-Hostgate-Balance": "9"}
        self.c.list_hosts()
        other = []
        t = threading.Thread(target=lambda: other.append(self.c.last_charge))
        t.start()
        t.join()
        self.assertEqual(other, [None])
        self.assertEqual(self.c.last_charge.balance, 9.0)


if __name__ == "__main__":
    unittest.main()
