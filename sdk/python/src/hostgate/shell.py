"""Interactive shell sessions in pull mode (docs/terminal.md); each call
is charged control.shell_session.per_op."""
from __future__ import annotations

import base64
import urllib.parse
from typing import Any, Iterator, Optional, Protocol

from .errors import HostgateError
from .types import ShellOutput


class _Caller(Protocol):
    """What a session needs of the Client that opened it: its JSON calls
    and their timeouts (the session does not import the client)."""

    def _json(self, method: str, path: str, body: Any = None, *, timeout: Optional[float] = None,
              idempotent: bool = False) -> Any: ...

    def _longer(self, timeout: Optional[float], needed_s: float) -> float: ...


class ShellSession:
    """A shell on a host, opened by Client.open_shell.

        with client.open_shell(host_id) as s:
            s.write("uname -a; exit\\n")
            for out in s.outputs():
                print(out.data.decode(errors="replace"), end="")

    Leaving the ``with`` block closes the session (and the shell's
    processes). None of its calls is retried: each is charged.
    """

    def __init__(self, client: _Caller, host_id: str, stream_id: str) -> None:
        self._c = client
        self.host_id = host_id
        #: the session's stream_id
        self.id = stream_id
        self.closed = False

    def _path(self, op: str) -> str:
        return ("/v1/api/hosts/" + urllib.parse.quote(self.host_id, safe="") + "/shell/session/"
                + urllib.parse.quote(self.id, safe="") + "/" + op)

    def write(self, input: str, *, timeout: Optional[float] = None) -> None:
        """Type input into the terminal ("ls\\n")."""
        self._c._json("POST", self._path("write"), {"input": input}, timeout=timeout)

    def read(self, max: int = 0, wait_s: float = 1.0, *, timeout: Optional[float] = None) -> ShellOutput:
        """Up to max bytes of output (0: the hub's default), waiting up to
        wait_s seconds (at most 25) when none is ready."""
        body = {"max": max, "wait_ms": int(wait_s * 1000)}
        out: Any = self._c._json("POST", self._path("read"), body, timeout=self._c._longer(timeout, wait_s + 10)) or {}
        return ShellOutput(data=base64.b64decode(out.get("data") or ""), eof=bool(out.get("eof")),
                           exit_code=out.get("exit_code"), reason=out.get("reason") or "")

    def outputs(self, wait_s: float = 2.0) -> Iterator[ShellOutput]:
        """Read until the end of output, yielding each non-empty read and
        the final one (eof True, with the exit code)."""
        while True:
            out = self.read(0, wait_s)
            if out.data or out.eof:
                yield out
            if out.eof:
                return

    def resize(self, cols: int, rows: int, *, timeout: Optional[float] = None) -> None:
        """Set the terminal size."""
        self._c._json("POST", self._path("resize"), {"cols": cols, "rows": rows}, timeout=timeout)

    def close(self, *, timeout: Optional[float] = None) -> None:
        """End the shell and every process it started."""
        self._c._json("POST", self._path("close"), timeout=timeout)
        self.closed = True

    def __enter__(self) -> "ShellSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.closed:
            return
        try:
            self.close()
        except HostgateError:
            if exc[0] is None:
                raise
