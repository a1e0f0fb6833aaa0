"""The shared verifier corpus (sdk/testdata/verify/*.json): verify() gives
each case's expected verdict, as the Go and TypeScript SDKs must (their
tests run the same files), and never raises anything but VerificationError."""
from __future__ import annotations

import base64
import glob
import hashlib
import hmac
import json
import os
import unittest

from hostgate import webhooks

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata", "verify")


def expand_mac(v: str, key: str, t: str, body: bytes) -> str:
    """The corpus's placeholders: {mac}, {MAC}, {mac63}, {macspaced}."""
    mac = hmac.new(key.encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
    spaced = " ".join(mac[i:i + 2] for i in range(0, len(mac), 2))
    for k, r in (("{mac}", mac), ("{MAC}", mac.upper()), ("{mac63}", mac[:63]), ("{macspaced}", spaced)):
        v = v.replace(k, r)
    return v


def load():
    files = sorted(glob.glob(os.path.join(CORPUS, "*.json")))
    cases = []
    for path in files:
        with open(path, encoding="utf-8") as f:
            for c in json.load(f):
                c["name"] = os.path.basename(path) + ": " + c["name"]
                cases.append(c)
    return cases


def run(c):
    body = c["body"].encode() if "body" in c else base64.b64decode(c["body_b64"])
    headers = [(k, expand_mac(v, c["mac"]["key"], c["mac"]["t"], body) if "mac" in c else v) for k, v in c["headers"]]
    try:
        ev = webhooks.verify(headers, body, c["secret"], now=c["now"])
    except webhooks.VerificationError as e:
        return {"verdict": e.reason}
    return {"verdict": "accept", "event": ev.event, "delivery_id": ev.delivery_id, "new_secret_key": ev.new_secret_key}


class VerifyCorpusTest(unittest.TestCase):
    def test_corpus(self):
        cases = load()
        self.assertGreater(len(cases), 100, "the corpus is missing")
        for c in cases:
            with self.subTest(c["name"]):
                self.assertEqual(run(c), c["want"])

    def test_placeholders(self):
        mac = expand_mac("{mac}", "k", "1", b"b")
        self.assertEqual(len(mac), 64)
        self.assertEqual(expand_mac("{MAC}|{mac63}", "k", "1", b"b"), mac.upper() + "|" + mac[:63])
        self.assertEqual(expand_mac("{macspaced}", "k", "1", b"b").replace(" ", ""), mac)


if __name__ == "__main__":
    unittest.main()
