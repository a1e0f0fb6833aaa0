"""The cross-language scenario through the Python SDK (e2e/crosslang_test.go).

    scenario.py create   creates $XL_NAME with credentials and $XL_NAME-offline
    scenario.py run      runs the steps and prints the normalized result

Configuration from the environment: HOSTGATE_URL, HOSTGATE_API_KEY, and for
run XL_HOST_ID, XL_SHELL_PROGRAM, XL_SHELL_ARGS, XL_FILE, XL_OFFLINE_HOST_ID,
XL_EMPTY_KEY, XL_EMPTY_HOST_ID, XL_DELIVERIES (a JSON file of captured
deliveries: headers, body_b64, secret), XL_TAG, XL_JOB_PROGRAM, XL_JOB_ARGS.
One JSON document on stdout.
"""
import base64
import dataclasses
import json
import os
import sys

import hostgate
from hostgate import webhooks


def client(key=None):
    return hostgate.Client(os.environ["HOSTGATE_URL"], key or os.environ["HOSTGATE_API_KEY"], timeout=30)


def create():
    c = client()
    name = os.environ["XL_NAME"]
    host, creds = c.create_host(name, None, True)
    offline, _ = c.create_host(name + "-offline", None, False)
    return {"host": dataclasses.asdict(host), "credentials": dataclasses.asdict(creds),
            "offline_host": dataclasses.asdict(offline)}


def refusal(call):
    try:
        call()
    except hostgate.HostgateError as e:
        return {"status": e.status, "error": e.error,
                "is_insufficient_balance": hostgate.is_insufficient_balance(e),
                "is_host_offline": hostgate.is_host_offline(e)}
    return {"status": 200, "error": "", "is_insufficient_balance": False, "is_host_offline": False}


def run():
    e = os.environ
    c = client()
    sh = c.shell(e["XL_HOST_ID"], e["XL_SHELL_PROGRAM"], e["XL_SHELL_ARGS"], 30)
    rd = c.read_string(e["XL_HOST_ID"], e["XL_FILE"])
    out = {
        "shell": {"stdout": sh.stdout, "stderr": sh.stderr, "exit_code": sh.exit_code, "timed_out": sh.timed_out},
        "read": {"path": rd.path, "content": rd.content, "encoding": rd.encoding, "bytes": rd.bytes},
        "insufficient_balance": refusal(
            lambda: client(e["XL_EMPTY_KEY"]).shell(e["XL_EMPTY_HOST_ID"], e["XL_SHELL_PROGRAM"], e["XL_SHELL_ARGS"], 30)),
        "host_offline": refusal(lambda: c.shell(e["XL_OFFLINE_HOST_ID"], e["XL_SHELL_PROGRAM"], e["XL_SHELL_ARGS"], 30)),
        "webhooks": [],
        "webhooks_tampered": [],
    }
    with open(e["XL_DELIVERIES"]) as f:
        deliveries = json.load(f)
    for d in deliveries:
        body = base64.b64decode(d["body_b64"])
        ev = webhooks.verify(d["headers"], body, d["secret"])
        out["webhooks"].append({"format": ev.format, "event": ev.event, "delivery_id": ev.delivery_id,
                                "host_id": ev.host_id, "new_secret_key": ev.new_secret_key, "bid": ev.bid,
                                "url": ev.url})
        try:
            webhooks.verify(d["headers"], body + b" ", d["secret"])
            out["webhooks_tampered"].append("accepted")
        except webhooks.VerificationError as err:
            out["webhooks_tampered"].append(err.reason)
    out["job"] = job(c)
    return out


def job(c):
    """Tag the two hosts, run the job on the tag, read every result."""
    e = os.environ
    key, _, value = e["XL_TAG"].partition("=")
    for host_id in (e["XL_HOST_ID"], e["XL_OFFLINE_HOST_ID"]):
        c.set_tags(host_id, {key: value})
    j = c.create_job(hostgate.JobRequest(target=hostgate.JobTarget(tags=[e["XL_TAG"]]),
                                         operation=hostgate.shell_operation(e["XL_JOB_PROGRAM"], e["XL_JOB_ARGS"], 30)))
    j = c.wait_job(j.id, 60)
    results = [{"host": "online" if r.host_id == e["XL_HOST_ID"] else "offline", "state": r.state,
                "exit_code": r.exit_code, "stdout": r.stdout, "error": r.error} for r in c.job_results(j.id)]
    return {"state": j.state, "host_count": j.host_count, "totals": dataclasses.asdict(j.totals),
            "results": sorted(results, key=lambda r: r["host"])}


if __name__ == "__main__":
    phase = sys.argv[1] if len(sys.argv) > 1 else ""
    if phase not in ("create", "run"):
        sys.exit("usage: scenario.py create|run")
    json.dump(create() if phase == "create" else run(), sys.stdout)
    sys.stdout.write("\n")
