"""Receiving the hub's signed webhook deliveries (docs/webhooks.md).

``verify`` checks one delivery, Format A or B (told apart by its headers),
and returns the parsed event. The receiver rules, in order:

1. Read the raw body and verify over those exact bytes.
2. If the delivery id is one you have processed (``DeliveryDedupe``),
   answer 200 and do nothing else: a repeat was signed with a secret you
   have since replaced.
3. ``verify`` with the secret you hold now (the host's previous
   secret_key): HMAC-SHA256 compared in constant time, timestamp within
   ``tolerance_s`` (300 s) of your clock.
4. Only after it verified, record the delivery id **and replace your stored
   secret with** ``event.new_secret_key`` together. The next delivery is
   signed with that new secret.
5. Answer 2xx within 5 s; a delivery that does not verify gets 401, and the
   hub retries it (deliveries of a host verify only in order).
"""
from __future__ import annotations

import collections
import hashlib
import hmac
import json
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

__all__ = ["VerificationError", "WebhookEvent", "verify", "DeliveryDedupe", "sign_a", "sign_b",
           "EVENT_A", "EVENT_B", "EVENT_JOB_FINISHED", "TOLERANCE_S"]

EVENT_A = "host.l1_config_updated"
EVENT_B = "host.l1_config.updated"
#: sent to a job's notify_url when it ends, signed with the user's webhook
#: secret (Client.rotate_webhook_secret), in an envelope {id, type,
#: created_at, data}
EVENT_JOB_FINISHED = "job.finished"
TOLERANCE_S = 300

HEADER_EVENT = "X-Gateway-Event"
HEADER_DELIVERY = "X-Gateway-Delivery"
HEADER_SIGNATURE = "X-Gateway-Signature"
HEADER_TIMESTAMP = "X-Gateway-Timestamp"


class VerificationError(Exception):
    """The delivery is refused; answer non-2xx and adopt nothing from it.

    ``reason`` is "malformed", "signature" or "stale" (the Go package's
    ErrMalformed, ErrSignature, ErrStale).
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(f"webhook refused ({reason}): {message}")
        self.reason = reason


@dataclass
class WebhookEvent:
    """A verified delivery."""

    #: "A" or "B"
    format: str
    #: host.l1_config_updated (A) or host.l1_config.updated (B)
    event: str
    #: equals X-Gateway-Delivery (B: "wd_" + uuid); the same on every attempt
    delivery_id: str
    host_id: str
    #: the new secret_key: replace your stored secret with it
    new_secret_key: str
    #: the new bid and report URL
    bid: int
    url: str
    #: the signed attempt time (unix seconds)
    timestamp: int
    #: the whole parsed body
    body: Dict[str, Any] = field(default_factory=dict)
    #: the envelope's data, for the user-level events (job.finished: the
    #: job; hostgate.from_dict(hostgate.Job, ev.data) types it); None for
    #: the host events
    data: Any = None


Headers = Union[Mapping[str, Any], Any]

#: how deep a delivery's JSON may nest; deeper bodies are refused (as the
#: Go and TypeScript SDKs do)
MAX_DEPTH = 64

_SURROGATE = re.compile("[\ud800-\udfff]")
_UNIX = re.compile("[0-9]{1,18}")
_MAC = re.compile("[0-9a-fA-F]{64}")


def _wf(s: str) -> str:
    """s with each lone surrogate replaced by U+FFFD, as JSON decoders in
    Go and Web Crypto's UTF-8 encoder treat it."""
    return _SURROGATE.sub("\ufffd", s)


def _ows(s: str) -> str:
    """s without the spaces and tabs around it (RFC 9110 OWS)."""
    return s.strip(" \t")


def _headers(headers: Headers) -> Dict[str, str]:
    """Header names lowercased; a list value (several headers) gives its first."""
    items = headers.items() if hasattr(headers, "items") else headers
    out: Dict[str, str] = {}
    for k, v in items:
        if isinstance(v, (list, tuple)):
            v = v[0] if v else ""
        out.setdefault(str(k).lower(), _wf(str(v)))
    return out


def _mac(secret: str, t: int, body: bytes) -> bytes:
    return hmac.new(_wf(secret).encode("utf-8"), str(t).encode() + b"." + body, hashlib.sha256).digest()


def sign_a(secret: str, t: int, body: bytes) -> str:
    """The X-Gateway-Signature of a Format A delivery (for tests)."""
    return f"t={t},v1={_mac(secret, t, body).hex()}"


def sign_b(secret: str, t: int, body: bytes) -> str:
    """The X-Gateway-Signature of a Format B delivery (for tests)."""
    return "sha256=" + _mac(secret, t, body).hex()


def _unix(s: str) -> Optional[int]:
    """A signed time: 1 to 18 ASCII digits, nothing else (no sign, no space,
    no other script's digits such as "\u00b2" or "\u0665")."""
    return int(s) if _UNIX.fullmatch(s) else None


def _parse_a(v: str) -> Tuple[int, List[str]]:
    t: Optional[int] = None
    seen_t = False
    sigs: List[str] = []
    for part in v.split(","):
        key, _, val = _ows(part).partition("=")
        if key == "t":
            n = _unix(_ows(val))
            if seen_t or n is None:
                raise VerificationError("malformed", f"{HEADER_SIGNATURE} needs exactly one t=<unix seconds>")
            t, seen_t = n, True
        elif key == "v1":
            sigs.append(val)
    if t is None or not sigs:
        raise VerificationError("malformed", f"{HEADER_SIGNATURE} must read t=<unix>,v1=<hex>")
    return t, sigs


def _check(secret: str, t: int, body: bytes, sigs: List[str], now: float, tolerance_s: float) -> None:
    if not secret:
        raise VerificationError("signature", "the receiver holds no secret")
    want = _mac(secret, t, body)
    matched = False
    for s in sigs:
        got = bytes.fromhex(s) if _MAC.fullmatch(s) else b""
        matched = hmac.compare_digest(got, want) or matched
    if not matched:
        raise VerificationError("signature", "signature does not match")
    if abs(now - t) > tolerance_s:
        raise VerificationError("stale", f"signed at {t}, {int(now - t)} s from now")


def verify(headers: Headers, body: bytes, secret: str, *, tolerance_s: float = TOLERANCE_S,
           now: Optional[float] = None) -> WebhookEvent:
    """Verify one delivery and return its event, or raise VerificationError
    (never another exception, whatever the input).

    headers: any mapping of the request's headers (case does not matter);
    body: the raw bytes as received; secret: the host's secret_key you hold
    now. Format B is recognised by a ``sha256=`` signature, Format A by
    ``t=...,v1=...``. ``now`` (unix seconds) is for tests. The Go and
    TypeScript SDKs give the same verdict for every input: header values
    lose spaces and tabs at both ends, a timestamp is 1 to 18 ASCII digits,
    a MAC 64 hex digits, the body UTF-8 JSON nested at most 64 deep.
    """
    if isinstance(body, str):
        body = _wf(body).encode("utf-8")
    body = bytes(body)
    h = _headers(headers)
    sig = _ows(h.get(HEADER_SIGNATURE.lower(), ""))
    if not sig:
        raise VerificationError("malformed", f"no {HEADER_SIGNATURE} header")
    now = time.time() if now is None else now
    if sig.startswith("sha256="):
        t_b = _unix(_ows(h.get(HEADER_TIMESTAMP.lower(), "")))
        if t_b is None:
            raise VerificationError("malformed", f"{HEADER_TIMESTAMP} is not unix seconds")
        t, fmt, event = t_b, "B", EVENT_B
        _check(secret, t, body, [sig[len("sha256="):]], now, tolerance_s)
    else:
        t, sigs = _parse_a(sig)
        fmt, event = "A", EVENT_A
        _check(secret, t, body, sigs, now, tolerance_s)
    doc = _load(body)
    if fmt == "A" and h.get(HEADER_EVENT.lower(), "") != EVENT_A and "type" in doc:
        return _user_event(h, doc, t)
    _match(h, doc, event)
    did = _wf(doc["delivery_id"])
    if fmt == "B" and not did.startswith("wd_"):
        raise VerificationError("malformed", "delivery_id lacks the wd_ prefix")
    section = "data" if fmt == "A" else "after"
    new = doc.get(section)
    if new is None:
        new = {}
    if not isinstance(new, dict):
        raise VerificationError("malformed", f"{section} is not an object")
    key = new.get("secret_key")
    if key is not None and not isinstance(key, str):
        raise VerificationError("malformed", f"{section}.secret_key is not a string")
    bid, url, host_id = new.get("bid"), new.get("url" if fmt == "A" else "report_url"), doc.get("host_id")
    return WebhookEvent(format=fmt, event=event, delivery_id=did, host_id=_wf(host_id) if isinstance(host_id, str) else "",
                        new_secret_key=_wf(key or ""),
                        bid=bid if isinstance(bid, int) and not isinstance(bid, bool) and -2**63 <= bid < 2**63 else 0,
                        url=_wf(url) if isinstance(url, str) else "", timestamp=t, body=doc)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _int(s: str) -> Any:
    # Past Python's digit limit for int() (4300), the number is kept as a
    # float: the body is valid JSON, and Go and JavaScript read it too.
    try:
        return int(s)
    except ValueError:
        return float(s)


def _too_deep(body: bytes, limit: int) -> bool:
    """Whether body nests arrays and objects deeper than limit (exact for
    valid JSON; the decoder refuses anything else anyway)."""
    depth, in_string, escaped = 0, False, False
    for c in body:
        if in_string:
            if escaped:
                escaped = False
            elif c == 0x5C:  # backslash
                escaped = True
            elif c == 0x22:  # quote
                in_string = False
        elif c == 0x22:
            in_string = True
        elif c in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif c in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


def _load(body: bytes) -> Dict[str, Any]:
    """The body as a JSON object: strict UTF-8 (no BOM, no other encoding),
    RFC 8259 JSON only (no NaN or Infinity), nested at most MAX_DEPTH deep."""
    if _too_deep(body, MAX_DEPTH):
        raise VerificationError("malformed", f"body nests deeper than {MAX_DEPTH}")
    try:
        doc = json.loads(body.decode("utf-8"), parse_constant=_no_constant, parse_int=_int)
    except (ValueError, RecursionError) as e:
        raise VerificationError("malformed", f"body: {e}") from None
    if not isinstance(doc, dict):
        raise VerificationError("malformed", "body is not an object")
    return doc


def _user_event(h: Dict[str, str], doc: Dict[str, Any], t: int) -> WebhookEvent:
    """The envelope {id, type, created_at, data} of a user-level event
    (job.finished), already verified with the user's webhook secret."""
    typ, did = doc.get("type"), doc.get("id")
    if not isinstance(typ, str) or not typ or h.get(HEADER_EVENT.lower(), "") != _wf(typ):
        raise VerificationError("malformed", f"{HEADER_EVENT} does not match the body's type")
    if not isinstance(did, str) or not did or h.get(HEADER_DELIVERY.lower(), "") != _wf(did):
        raise VerificationError("malformed", f"{HEADER_DELIVERY} does not match the body's id")
    return WebhookEvent(format="A", event=_wf(typ), delivery_id=_wf(did), host_id="", new_secret_key="", bid=0, url="",
                        timestamp=t, body=doc, data=doc.get("data"))


def _match(h: Dict[str, str], doc: Dict[str, Any], event: str) -> None:
    ev = doc.get("event")
    if not isinstance(ev, str) or _wf(ev) != event or h.get(HEADER_EVENT.lower(), "") != event:
        raise VerificationError("malformed", f"event is not {event}")
    did = doc.get("delivery_id")
    if not isinstance(did, str) or not did or h.get(HEADER_DELIVERY.lower(), "") != _wf(did):
        raise VerificationError("malformed", f"{HEADER_DELIVERY} does not match the body's delivery_id")


class DeliveryDedupe:
    """The delivery ids a receiver has processed: bounded (the oldest are
    forgotten past max_size) and safe for use from several threads.

    In memory only; a receiver that must survive restarts keeps the ids in
    its database, in the same transaction as the secret it adopts.
    """

    def __init__(self, max_size: int = 10000) -> None:
        if max_size < 1:
            raise ValueError("max_size must be positive")
        self._max = max_size
        self._ids: "collections.OrderedDict[str, None]" = collections.OrderedDict()
        self._lock = threading.Lock()

    def seen(self, delivery_id: str) -> bool:
        """Whether delivery_id was recorded (a repeat: answer 200, do nothing)."""
        with self._lock:
            return delivery_id in self._ids

    def add(self, delivery_id: str) -> bool:
        """Record delivery_id; False when it was already recorded."""
        with self._lock:
            if delivery_id in self._ids:
                return False
            self._ids[delivery_id] = None
            while len(self._ids) > self._max:
                self._ids.popitem(last=False)
            return True

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids)

    def __contains__(self, delivery_id: object) -> bool:
        return isinstance(delivery_id, str) and self.seen(delivery_id)
