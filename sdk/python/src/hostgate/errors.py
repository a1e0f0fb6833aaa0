"""Errors of the client API and the helper predicates (sdk/go/client.go)."""
from __future__ import annotations

import builtins
from typing import Optional


class HostgateError(Exception):
    """A non-2xx answer: the HTTP status and the hub's {error, message}.

    A body that is not the hub's JSON gives ``error`` ``http_<status>`` and
    the body text as ``message``, as in the Go SDK.
    """

    def __init__(self, status: int, error: str, message: str) -> None:
        super().__init__(f"hostgate: {status} {error}: {message}")
        self.status = status
        self.error = error
        self.message = message


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
