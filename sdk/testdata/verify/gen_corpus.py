"""Writes the shared verifier corpus (formats, timestamps, signatures,
bodies .json beside this file; README.md says what a case holds). Each
case's "want" is written here by hand, from the rules of docs/webhooks.md
("Receivers"), never taken from a verifier: edit a case here and run
`python3 sdk/testdata/verify/gen_corpus.py`."""
import json, base64, os
OUT = os.path.dirname(os.path.abspath(__file__))
SEC = "3f9a1c7e5b2d4086a1e3c5b7d9f02468"
NEW = "8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b"
T = 1767268830
DID = "6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13"
BODY_A = '{"event":"host.l1_config_updated","delivery_id":"6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","user_id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d","source":"web","occurred_at":"2026-01-01T12:00:00Z","data":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","url":"https://hooks.example.com/l1"}}'
BODY_B = '{"event":"host.l1_config.updated","delivery_id":"wd_6f1c2a9e-8d4b-4e3a-9c51-2b7f0d8e4a13","timestamp":"2026-01-01T12:00:00Z","host_id":"9a7b3c1d-2e4f-4a5b-8c6d-1e2f3a4b5c6d","host_name":"web-1","changed_by":{"kind":"user","id":"0b8e5c3a-1f2d-4a6b-8c9e-7d3f1a2b4c5d","ip":"203.0.113.7"},"before":{"bid":4821936602771,"report_url":"https://old.example.com/l1"},"after":{"bid":4821936602771,"secret_key":"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b","report_url":"https://hooks.example.com/l1"}}'
SIG_A = "t=1767268830,v1=8bf413fc057d2efee63d86bfabd4cea8fcd421bdd496402b4dad829bb928ace5"
SIG_B = "sha256=f8245af2a924668a83831d3dfab3a591468fb1ee83cbb10afafca23a3fac1bbf"
WHSEC = "whsec_Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5"
TJ = 1767607200
BODY_J = '{"id":"7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b24","type":"job.finished","created_at":"2026-01-05T10:00:00Z","data":{"id":"j1","state":"finished"}}'
JID = "7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b24"

def acc(event, did, new):
    return {"verdict": "accept", "event": event, "delivery_id": did, "new_secret_key": new}
ACC_A = acc("host.l1_config_updated", DID, NEW)
ACC_B = acc("host.l1_config.updated", "wd_" + DID, NEW)
ACC_J = acc("job.finished", JID, "")

def a(name, want, sig="t=1767268830,v1={mac}", body=BODY_A, secret=SEC, now=T, mac_t="1767268830", event="host.l1_config_updated", did=DID, extra=(), body_b64=None, mac_key=None, headers=None):
    h = headers if headers is not None else [["X-Gateway-Event", event], ["X-Gateway-Delivery", did], ["X-Gateway-Signature", sig]] + list(extra)
    c = {"name": name, "headers": h}
    if body_b64 is not None: c["body_b64"] = body_b64
    else: c["body"] = body
    c.update({"secret": secret, "now": now})
    if any("{mac" in v or "{MAC}" in v for _, v in h):
        c["mac"] = {"key": mac_key if mac_key is not None else secret, "t": mac_t}
    c["want"] = want if isinstance(want, dict) else {"verdict": want}
    return c

def b(name, want, ts="1767268830", sig="sha256={mac}", body=BODY_B, did="wd_" + DID, **kw):
    extra = [] if ts is None else [["X-Gateway-Timestamp", ts]]
    kw.setdefault("mac_t", ts if ts is not None else "1767268830")
    return a(name, want, sig=sig, body=body, did=did, event="host.l1_config.updated", extra=extra, **kw)

def j(name, want, sig="t=1767607200,v1={mac}", body=BODY_J, event="job.finished", did=JID, **kw):
    kw.setdefault("mac_t", "1767607200"); kw.setdefault("now", TJ + 10)
    return a(name, want, sig=sig, body=body, secret=kw.pop("secret", WHSEC), event=event, did=did, **kw)

def nest(n):
    # a Format A body whose deepest value sits n levels deep (the body itself is level 1)
    inner = "[" * (n - 1) + "]" * (n - 1)
    return BODY_A[:-1] + ',"deep":' + inner + "}"

files = {
"formats": [
    a("format A, the golden delivery of docs/webhooks.md", ACC_A, sig=SIG_A, now=T + 70),
    b("format B, the golden delivery of docs/webhooks.md", ACC_B, sig=SIG_B, now=T + 70),
    a("format A, parts in another order, an unknown part, a wrong v1 before the right one", ACC_A,
      sig="v0=abc,v1=" + "0" * 64 + ",t=1767268830,v1={mac}"),
    a("format A, spaces and tabs around the parts and the header", ACC_A, sig=" \tt=1767268830 , v1={mac}\t"),
    a("format A, a space before = makes another key", "malformed", sig="t =1767268830,v1={mac}"),
    a("format A, spaces around t's value", ACC_A, sig="t= 1767268830 ,v1={mac}"),
    a("format A, a v1 in upper-case hex", ACC_A, sig="t=1767268830,v1={MAC}"),
    b("format B, upper-case hex", ACC_B, sig="sha256={MAC}"),
    b("format B, spaces around the timestamp", ACC_B, ts=" 1767268830\t", mac_t="1767268830"),
    a("header names in lower case", ACC_A, headers=[["x-gateway-event", "host.l1_config_updated"], ["x-gateway-delivery", DID], ["x-gateway-signature", "t=1767268830,v1={mac}"]]),
    a("header names in upper case", ACC_A, headers=[["X-GATEWAY-EVENT", "host.l1_config_updated"], ["X-GATEWAY-DELIVERY", DID], ["X-GATEWAY-SIGNATURE", "t=1767268830,v1={mac}"]]),
    a("two signature headers: the first one counts", "signature", headers=[["X-Gateway-Event", "host.l1_config_updated"], ["X-Gateway-Delivery", DID], ["X-Gateway-Signature", "t=1767268830,v1=" + "1" * 64], ["x-gateway-signature", "t=1767268830,v1={mac}"]]),
    a("format A signature with a format B event", "malformed", event="host.l1_config.updated"),
    b("format B signature with a format A body", "malformed", body=BODY_A, did=DID),
    j("job.finished, the example of docs/webhooks.md section 8", ACC_J, sig="t=1767607200,v1=341b6b87a5f26fa8257dd1b3cd1c4d0b0c9978c3357202a22cb4dcb8ceb63c73"),
    j("job.finished signed afresh", ACC_J),
    j("job.finished: X-Gateway-Event names another type", "malformed", event="job.started"),
    j("job.finished: X-Gateway-Event missing", "malformed", event=""),
    j("job.finished: X-Gateway-Delivery is not the body's id", "malformed", did="7a2d3b0f-9e5c-4f4b-8d62-3c8a1e9f5b25"),
    j("job.finished: no X-Gateway-Delivery", "malformed", did=""),
    j("job.finished: the body's type is a number", "malformed", body=BODY_J.replace('"type":"job.finished"', '"type":7')),
    j("job.finished: the body's id is empty, and so is the header", "malformed", body=BODY_J.replace(JID, ""), did=""),
    j("job.finished signed with the previous webhook secret", "signature", mac_key="whsec_old"),
    j("job.finished with a stale timestamp", "stale", now=TJ + 301),
    j("job.finished: a format B signature is no user event", "malformed", sig="sha256={mac}", extra=[["X-Gateway-Timestamp", "1767607200"]]),
],
"timestamps": [
    a("t=--5 (Python raised ValueError)", "malformed", sig="t=--5,v1={mac}", mac_t="5"),
    a("t=² (a superscript digit)", "malformed", sig="t=²,v1={mac}", mac_t="2"),
    b("X-Gateway-Timestamp ² (a superscript digit)", "malformed", ts="²", mac_t="2"),
    a("t in Arabic-Indic digits", "malformed", sig="t=١٧٦٧٢٦٨٨٣٠,v1={mac}", mac_t="1767268830"),
    b("X-Gateway-Timestamp in full-width digits", "malformed", ts="１７６７２６８８３０", mac_t="1767268830"),
    a("t with a plus sign", "malformed", sig="t=+1767268830,v1={mac}", mac_t="1767268830"),
    a("t negative", "malformed", sig="t=-5,v1={mac}", mac_t="-5"),
    b("X-Gateway-Timestamp negative", "malformed", ts="-1767268830", mac_t="-1767268830"),
    a("t with underscores (Python's int() reads them)", "malformed", sig="t=1_767_268_830,v1={mac}", mac_t="1767268830"),
    a("t in hex", "malformed", sig="t=0x6955f3de,v1={mac}", mac_t="1767268830"),
    a("t with a fraction", "malformed", sig="t=1767268830.0,v1={mac}", mac_t="1767268830"),
    a("t with a no-break space before it", "malformed", sig="t=\u00a01767268830,v1={mac}", mac_t="1767268830"),
    b("X-Gateway-Timestamp with a no-break space", "malformed", ts="1767268830\u00a0", mac_t="1767268830"),
    a("t empty", "malformed", sig="t=,v1={mac}", mac_t=""),
    a("t without =", "malformed", sig="t,v1={mac}"),
    a("two t parts", "malformed", sig="t=1767268830,t=1767268830,v1={mac}"),
    a("t=5=6", "malformed", sig="t=5=6,v1={mac}", mac_t="5"),
    a("leading zeros: signed as the number", ACC_A, sig="t=0001767268830,v1={mac}", mac_t="1767268830"),
    a("leading zeros signed as written", "signature", sig="t=0001767268830,v1={mac}", mac_t="0001767268830"),
    b("X-Gateway-Timestamp with leading zeros", ACC_B, ts="01767268830", mac_t="1767268830"),
    a("t of 18 digits: read, then stale", "stale", sig="t=999999999999999999,v1={mac}", mac_t="999999999999999999"),
    a("t of 19 digits", "malformed", sig="t=1000000000000000000,v1={mac}", mac_t="1000000000000000000"),
    a("t past int64", "malformed", sig="t=99999999999999999999999999999999999999,v1={mac}", mac_t="99999999999999999999999999999999999999"),
    b("X-Gateway-Timestamp of 40 digits", "malformed", ts="9" * 40, mac_t="9" * 40),
    b("format B without X-Gateway-Timestamp", "malformed", ts=None),
    b("X-Gateway-Timestamp empty", "malformed", ts=""),
    b("X-Gateway-Timestamp only spaces", "malformed", ts="  \t "),
    a("t zero", "stale", sig="t=0,v1={mac}", mac_t="0"),
    a("signed 300 s ago", ACC_A, now=T + 300),
    a("signed 301 s ago", "stale", now=T + 301),
    a("signed 300 s ahead", ACC_A, now=T - 300),
    a("signed 301 s ahead", "stale", now=T - 301),
    b("format B signed 301 s ago", "stale", now=T + 301),
],
"signatures": [
    a("empty secret, format A (TypeScript threw a DataError)", "signature", secret="", mac_key="x"),
    b("empty secret, format B", "signature", secret="", mac_key="x"),
    a("no X-Gateway-Signature", "malformed", headers=[["X-Gateway-Event", "host.l1_config_updated"], ["X-Gateway-Delivery", DID]]),
    a("X-Gateway-Signature empty", "malformed", sig=""),
    a("X-Gateway-Signature only spaces and tabs", "malformed", sig=" \t "),
    a("X-Gateway-Signature a no-break space", "malformed", sig="\u00a0"),
    a("only a v1", "malformed", sig="v1={mac}"),
    a("only a t", "malformed", sig="t=1767268830"),
    a("v1 without =: counts as an empty v1", "signature", sig="t=1767268830,v1"),
    a("v1 empty", "signature", sig="t=1767268830,v1="),
    a("a v1 of 63 hex digits", "signature", sig="t=1767268830,v1={mac63}"),
    a("the right v1 with two more hex digits", "signature", sig="t=1767268830,v1={mac}00"),
    a("the right v1 followed by non-hex (Go read its valid prefix)", "signature", sig="t=1767268830,v1={mac}zz"),
    a("the right v1 with spaces between bytes (Python's fromhex skipped them)", "signature", sig="t=1767268830,v1={macspaced}"),
    a("the right v1 with a space before it", "signature", sig="t=1767268830,v1= {mac}"),
    b("sha256= with the right MAC and a trailing z", "signature", sig="sha256={mac}z"),
    b("SHA256= is no format B prefix", "malformed", sig="SHA256={mac}"),
    b("sha256= alone", "signature", sig="sha256="),
    a("another secret", "signature", mac_key="0123456789abcdef0123456789abcdef"),
    a("a secret with non-ASCII letters", acc("host.l1_config_updated", DID, NEW), secret="sécret ✓ 🔑"),
    a("a secret that differs only in normalization (é composed vs decomposed)", "signature", secret="se\u0301cret", mac_key="s\u00e9cret"),
    a("the body with one byte appended", "signature", body=BODY_A + " ", mac_t="1767268830", mac_key=SEC,
      sig="t=1767268830,v1=8bf413fc057d2efee63d86bfabd4cea8fcd421bdd496402b4dad829bb928ace5"),
],
"bodies": [
    b("format B delivery_id without wd_ (TypeScript accepted it)", "malformed", body=BODY_B.replace("wd_" + DID, DID), did=DID),
    b("format B delivery_id with WD_", "malformed", body=BODY_B.replace("wd_", "WD_"), did="WD_" + DID),
    a("not JSON", "malformed", body="not json"),
    a("empty body", "malformed", body=""),
    a("a JSON array", "malformed", body="[1,2]"),
    a("JSON null", "malformed", body="null"),
    a("a JSON string", "malformed", body='"x"'),
    a("a byte-order mark before the JSON", "malformed", body="\ufeff" + BODY_A),
    a("invalid UTF-8 in a string", "malformed", body_b64=base64.b64encode(BODY_A.replace("web", "w\x00b").encode().replace(b"\x00", b"\xff")).decode()),
    a("UTF-16", "malformed", body_b64=base64.b64encode(BODY_A.encode("utf-16-le")).decode()),
    a("NaN (Python's json reads it)", "malformed", body=BODY_A.replace('"bid":4821936602771', '"bid":NaN')),
    a("Infinity", "malformed", body=BODY_A.replace('"bid":4821936602771', '"bid":-Infinity')),
    a("trailing comma", "malformed", body=BODY_A[:-2] + ",}}"),
    a("a control character in a string", "malformed", body=BODY_A.replace("web", "w\tb")),
    a("data nested 64 deep", ACC_A, body=nest(64)),
    a("data nested 65 deep", "malformed", body=nest(65)),
    a("nested 5000 deep", "malformed", body=nest(5000)),
    a("brackets inside strings do not nest", ACC_A, body=BODY_A[:-1] + ',"s":"' + "[{" * 200 + '\\"[["}'),
    a("a bid of 5000 digits", ACC_A, body=BODY_A.replace("4821936602771", "9" * 5000)),
    a("a bid past int64", ACC_A, body=BODY_A.replace("4821936602771", "9223372036854775808")),
    a("a bid of 1e400", ACC_A, body=BODY_A.replace("4821936602771", "1e400")),
    a("a bid that is a string", ACC_A, body=BODY_A.replace("4821936602771", '"4821936602771"')),
    a("secret_key a number", "malformed", body=BODY_A.replace('"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b"', "12")),
    a("secret_key an object", "malformed", body=BODY_A.replace('"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b"', "{}")),
    a("secret_key null", acc("host.l1_config_updated", DID, ""), body=BODY_A.replace('"8c2e4a6b0d1f3e5a7c9b2d4f6a8e0c1b"', "null")),
    a("secret_key in upper case is another key", acc("host.l1_config_updated", DID, ""), body=BODY_A.replace('"secret_key"', '"SECRET_KEY"')),
    a("data an array", "malformed", body=BODY_A.split(',"data":')[0] + ',"data":[]}'),
    a("data a string", "malformed", body=BODY_A.split(',"data":')[0] + ',"data":"x"}'),
    a("data false", "malformed", body=BODY_A.split(',"data":')[0] + ',"data":false}'),
    a("data null", acc("host.l1_config_updated", DID, ""), body=BODY_A.split(',"data":')[0] + ',"data":null}'),
    a("no data", acc("host.l1_config_updated", DID, ""), body=BODY_A.split(',"data":')[0] + "}"),
    b("format B after an array", "malformed", body=BODY_B.split(',"after":')[0] + ',"after":[1]}'),
    a("event missing from the body", "malformed", body=BODY_A.replace('"event":"host.l1_config_updated",', "")),
    a("event a number", "malformed", body=BODY_A.replace('"event":"host.l1_config_updated"', '"event":1')),
    a("event written with escapes", ACC_A, body=BODY_A.replace('"event":"host.l1_config_updated"', '"event":"host.l1\\u005fconfig_updated"')),
    a("X-Gateway-Event differs from the body", "malformed", event="host.l1_config_updated "),
    a("X-Gateway-Delivery differs from the body", "malformed", did=DID.upper()),
    a("X-Gateway-Delivery with a trailing space", "malformed", did=DID + " "),
    a("delivery_id empty in body and header", "malformed", body=BODY_A.replace(DID, ""), did=""),
    a("delivery_id a number", "malformed", body=BODY_A.replace('"' + DID + '"', "5"), did="5"),
    a("delivery_id twice: the last counts", ACC_A, body=BODY_A.replace('{"event"', '{"delivery_id":"first","event"')),
    a("a lone surrogate in delivery_id reads as U+FFFD", acc("host.l1_config_updated", "\ufffd", NEW), body=BODY_A.replace(DID, "\\ud800"), did="\ufffd"),
    a("a surrogate pair in delivery_id", acc("host.l1_config_updated", "\U0001F511", NEW), body=BODY_A.replace(DID, "\\ud83d\\udd11"), did="\U0001F511"),
    a("a key __proto__ is an ordinary key", ACC_A, body=BODY_A[:-1] + ',"__proto__":{"event":"x"}}'),
    a("a type key turns a format A body into a user event (here without an id)", "malformed", event="x", body=BODY_A[:-1] + ',"type":"x"}'),
    a("a type key with X-Gateway-Event host.l1_config_updated stays a host event", ACC_A, body=BODY_A[:-1] + ',"type":"x"}'),
    a("whitespace around the JSON", ACC_A, body=" \n\t" + BODY_A + "\r\n"),
    a("a no-break space after the JSON", "malformed", body=BODY_A + "\u00a0"),
],
}
for name, cases in files.items():
    with open(os.path.join(OUT, name + ".json"), "w", encoding="utf-8") as f:
        json.dump(cases, f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(name, len(cases))
