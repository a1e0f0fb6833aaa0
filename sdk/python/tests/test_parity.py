"""The Python SDK has every method of the Go SDK, with the same parameters
in the same order (sdk/go/*.go, parsed here)."""
from __future__ import annotations

import glob
import inspect
import os
import re
import unittest

import hostgate

GO_SDK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "go")

# Go parameters whose Python name says the unit.
RENAMED = {"wait": "wait_s", "timeout": "timeout_s", "host_i_ds": "host_ids"}


def snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)).lower()


def go_methods():
    """(receiver, name, [parameter names without ctx]) of exported methods."""
    out = []
    for path in sorted(glob.glob(os.path.join(GO_SDK, "*.go"))):
        if path.endswith("_test.go"):
            continue
        with open(path) as f:
            src = f.read()
        for recv, name, params in re.findall(r"^func \(\w+ \*(\w+)\) ([A-Z]\w*)\(([^)]*)\)", src, re.M):
            names = [p.strip().split()[0] for p in params.split(",") if p.strip()]
            out.append((recv, name, [snake(n) for n in names if n != "ctx"]))
    return out


class ParityTest(unittest.TestCase):
    def test_every_go_method(self):
        methods = go_methods()
        if not methods:
            self.skipTest("no Go SDK beside this one")
        classes = {"Client": hostgate.Client, "ShellSession": hostgate.ShellSession}
        checked = 0
        for recv, name, params in methods:
            if recv not in classes:
                continue
            with self.subTest(method=f"{recv}.{name}"):
                fn = getattr(classes[recv], snake(name), None)
                self.assertIsNotNone(fn, f"no {recv}.{snake(name)}")
                sig = inspect.signature(fn)
                ours = [p.name for p in sig.parameters.values()
                        if p.name != "self" and p.kind is p.POSITIONAL_OR_KEYWORD]
                self.assertEqual(ours, [RENAMED.get(p, p) for p in params])
                self.assertIn("timeout", sig.parameters)
                checked += 1
        self.assertGreaterEqual(checked, 35)


if __name__ == "__main__":
    unittest.main()
