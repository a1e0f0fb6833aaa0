"""Tests of the hostgate Python SDK; run from the repository root:

    python3 -m unittest discover -s sdk/python/tests -t sdk/python

The package under test is taken from sdk/python/src.
"""
import os
import sys

_SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
if _SRC not in sys.path:
    sys.path.insert(0, _SRC)
