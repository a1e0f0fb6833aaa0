"""Errors of the client API and the helper predicates (sdk/go/client.go)."""
from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Mapping, Optional

#: the headers naming what a call cost (docs/billing.md)
HEADER_CHARGED = "X-Hostgate-Charged"
HEADER_BALANCE = "X-Hostgate-Balance"


@dataclass(frozen=True)
class Charge:
    """What one call cost, from the hub's X-Hostgate-Charged and
    X-Hostgate-Balance headers.

    ``tokens`` is what the call took (0 in free mode, at a price of zero, or
    on a 402); ``balance`` the balance after it (on a 402, the balance that
    fell short), None when the hub read none (free mode, a price of zero).
    The ``*_text`` fields are the headers as sent (e.g. "0.5"), for display.
    """

    tokens: float
    charged_text: str
    balance: Optional[float] = None
    balance_text: Optional[str] = None


def charge_of(headers: Mapping[str, str]) -> Optional[Charge]:
    """The Charge an answer's headers name, None when they name none."""
    h = {k.lower(): v for k, v in headers.items()}
    charged = h.get(HEADER_CHARGED.lower(), "")
    try:
        tokens = float(charged)
    except ValueError:
        return None
    balance_text = h.get(HEADER_BALANCE.lower())
    balance = None
    if balance_text:
        try:
            balance = float(balance_text)
        except ValueError:
            balance_text = None
    else:
        balance_text = None
    return Charge(tokens=tokens, charged_text=charged, balance=balance, balance_text=balance_text)


class HostgateError(Exception):
    """A non-2xx answer: the HTTP status and the hub's {error, message}.

    A body that is not the hub's JSON gives ``error`` ``http_<status>`` and
    the body text as ``message``, as in the Go SDK. ``charge`` is what the
    failed call cost when it reached the hub's charge step (a charge is not
    refunded when the command then fails, e.g. 504 agent_timeout; a 402
    took nothing and tells the balance), else None.
    """

    def __init__(self, status: int, error: str, message: str, charge: Optional[Charge] = None) -> None:
        super().__init__(f"hostgate: {status} {error}: {message}")
        self.status = status
        self.error = error
        self.message = message
        self.charge = charge


class TransportError(Exception):
    """No answer: the connection failed or timed out.

    ``sent`` is False when the request surely never reached the hub
    (connection refused, name not resolved).
    """

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


class TimeoutError(TransportError, builtins.TimeoutError):  # noqa: A001
    """The call did not finish within its timeout. It is also the builtin
    TimeoutError, so ``except TimeoutError`` catches it under either name."""


def error_code(err: Optional[BaseException]) -> str:
    """err's hub error code, or "" when err is not a HostgateError."""
    return err.error if isinstance(err, HostgateError) else ""


def is_insufficient_balance(err: Optional[BaseException]) -> bool:
    """A 402: the balance does not cover the call (nothing ran)."""
    return error_code(err) == "insufficient_balance"


def is_host_offline(err: Optional[BaseException]) -> bool:
    """A 409 host_offline: the host's agent is not connected."""
    return error_code(err) == "host_offline"


def is_not_found(err: Optional[BaseException]) -> bool:
    """A 404: no such host, or not the key holder's."""
    return error_code(err) == "not_found"


def is_agent_timeout(err: Optional[BaseException]) -> bool:
    """A 504: the agent did not answer in time."""
    return error_code(err) == "agent_timeout"
