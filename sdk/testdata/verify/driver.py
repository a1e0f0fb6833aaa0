"""The Python column of FuzzVerifierParity (sdk/go/verifyparity/verify_parity_test.go).

Reads one JSON request a line on stdin, {headers: [[name, value], ...],
body_b64, secret, now}, and answers one JSON line on stdout: the verdict of
hostgate.webhooks.verify (see verdict) -- never a crash, so a Python
exception other than VerificationError shows as its own verdict.
"""
import base64
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python", "src"))

from hostgate import webhooks  # noqa: E402


def verdict(req):
    try:
        ev = webhooks.verify([(k, v) for k, v in req["headers"]], base64.b64decode(req["body_b64"]), req["secret"],
                             now=req["now"])
    except webhooks.VerificationError as e:
        return {"verdict": e.reason}
    except Exception as e:  # the bug this driver is here to find
        return {"verdict": "exception " + type(e).__name__, "error": str(e)}
    return {"verdict": "accept", "event": ev.event, "delivery_id": ev.delivery_id, "new_secret_key": ev.new_secret_key}


def main():
    for line in sys.stdin:
        sys.stdout.write(json.dumps(verdict(json.loads(line))) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
