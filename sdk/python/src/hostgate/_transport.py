"""HTTP transport: one request, JSON in and out, errors, retries."""
from __future__ import annotations

import builtins
import http.client
import json
import random
import socket
import threading
import time
import urllib.error
import urllib.request
from typing import Any, Callable, Dict, Optional, Tuple

from .errors import Charge, HostgateError, TimeoutError, TransportError, charge_of

#: statuses a GET is retried on: the hub or a proxy in front of it is
#: briefly unable to answer
RETRY_STATUSES = (429, 502, 503, 504)

_MAX_BODY = 64 << 20


class Transport:
    def __init__(self, base_url: str, api_key: str, timeout: float, max_retries: int, backoff_s: float,
                 max_backoff_s: float = 5.0, on_charge: Optional[Callable[[Charge], None]] = None) -> None:
        self.on_charge = on_charge
        self._local = threading.local()
        self.base = base_url.rstrip("/")
        self.key = api_key
        self.timeout = timeout
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._opener = urllib.request.build_opener(_NoRedirect())

    def call(self, method: str, path: str, body: Any = None, *, timeout: Optional[float] = None,
             idempotent: bool = False) -> Tuple[int, Dict[str, str], bytes]:
        """Send a request and return (status, headers, body) of a 2xx answer.

        Retries, with exponential backoff and full jitter: any request whose
        connection was refused or whose host name did not resolve (it never
        reached the hub); an idempotent one (GET) also on a timeout, a broken
        connection and the statuses of RETRY_STATUSES. Nothing else, so a
        charged command is never sent twice.
        """
        attempt = 0
        self._local.last_charge = None
        while True:
            try:
                status, headers, data = self._once(method, path, body, timeout)
            except TransportError as e:
                if attempt < self.max_retries and (not e.sent or idempotent):
                    attempt = self._sleep(attempt)
                    continue
                raise
            charge = charge_of(headers)
            if charge is not None:
                self._local.last_charge = charge
                if self.on_charge is not None:
                    self.on_charge(charge)
            if status < 300:
                return status, headers, data
            err = _error(status, data)
            err.charge = charge
            if idempotent and status in RETRY_STATUSES and attempt < self.max_retries:
                attempt = self._sleep(attempt)
                continue
            raise err

    @property
    def last_charge(self) -> Optional[Charge]:
        """The Charge of this thread's latest call, None when it named none."""
        return getattr(self._local, "last_charge", None)

    def _sleep(self, attempt: int) -> int:
        time.sleep(random.uniform(0, min(self.max_backoff_s, self.backoff_s * (2 ** attempt))))
        return attempt + 1

    def _once(self, method: str, path: str, body: Any, timeout: Optional[float]) -> Tuple[int, Dict[str, str], bytes]:
        data = None
        req = urllib.request.Request(self.base + path, method=method)
        req.add_header("Authorization", "Bearer " + self.key)
        req.add_header("Accept", "application/json")
        req.add_header("User-Agent", "hostgate-python/0.1")
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            req.add_header("Content-Type", "application/json")
        t = self.timeout if timeout is None else timeout
        where = f"{method} {path}"
        try:
            with self._opener.open(req, data=data, timeout=t) as resp:
                return resp.status, dict(resp.headers.items()), resp.read(_MAX_BODY)
        except urllib.error.HTTPError as e:
            try:
                return e.code, dict(e.headers.items()) if e.headers else {}, e.read(_MAX_BODY)
            finally:
                e.close()
        except urllib.error.URLError as e:
            reason = e.reason
            if _is_timeout(reason):
                raise TimeoutError(f"hostgate: {where}: timed out after {t}s", sent=True) from e
            sent = not isinstance(reason, (ConnectionRefusedError, socket.gaierror))
            raise TransportError(f"hostgate: {where}: {reason}", sent=sent) from e
        except http.client.HTTPException as e:  # a broken answer (IncompleteRead, BadStatusLine)
            raise TransportError(f"hostgate: {where}: {e!r}", sent=True) from e
        except OSError as e:
            if _is_timeout(e):
                raise TimeoutError(f"hostgate: {where}: timed out after {t}s", sent=True) from e
            sent = not isinstance(e, (ConnectionRefusedError, socket.gaierror))
            raise TransportError(f"hostgate: {where}: {e}", sent=sent) from e


def _is_timeout(e: object) -> bool:
    return isinstance(e, (socket.timeout, builtins.TimeoutError))


def _error(status: int, data: bytes) -> HostgateError:
    try:
        doc = json.loads(data)
        code, msg = doc.get("error"), doc.get("message")
        if isinstance(code, str) and code:
            return HostgateError(status, code, msg if isinstance(msg, str) else "")
    except (ValueError, AttributeError):
        pass
    return HostgateError(status, f"http_{status}", data.decode("utf-8", "replace").strip())


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """The hub never redirects; following one would resend the API key."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None
