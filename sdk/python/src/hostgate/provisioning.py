"""The provisioning payload (spec section 2) and its autologon request,
mirroring sdk/go/provisioning.go."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from .types import from_dict


@dataclass
class Autologon:
    """Asks for the payload's autologon section (docs/provisioning.md). An
    empty username is Administrator; an empty password asks the hub to
    generate one (24 characters; the hub keeps none). A given password has
    16 to 128 characters."""

    username: str = ""
    password: str = ""

    def body(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        if self.username:
            out["username"] = self.username
        if self.password:
            out["password"] = self.password
        return out


@dataclass
class PayloadHub:
    """The payload's hub section: the host's install credentials, with
    agent_pubkey as bare base64 (no "ed25519:" prefix)."""

    host_id: str = ""
    bid: int = 0
    secret_key: str = ""
    install_token: str = ""
    agent_privkey_seed: str = ""
    agent_pubkey: str = ""
    ws_url: str = ""
    api_endpoint: str = ""
    listen_port: int = 0


@dataclass
class PayloadAutologon:
    """The payload's autologon section."""

    username: str = ""
    password: str = ""


@dataclass
class ProvisioningPayload:
    """A host's provisioning payload: what a machine made from a template
    image reads as its user data. ``raw`` is the payload exactly as the hub
    sent it (JSON, under 1 KB): hand that to the machine."""

    schema_version: int = 0
    hub: PayloadHub = field(default_factory=PayloadHub)
    #: there when it was asked for
    autologon: Optional[PayloadAutologon] = None
    raw: bytes = b""

    def _nested(self) -> None:
        if isinstance(self.hub, dict):
            self.hub = from_dict(PayloadHub, self.hub)
        if isinstance(self.autologon, dict):
            self.autologon = from_dict(PayloadAutologon, self.autologon)


def parse_payload(raw: bytes) -> ProvisioningPayload:
    """The payload of the hub's answer, keeping its bytes."""
    p = from_dict(ProvisioningPayload, json.loads(raw))
    p.raw = raw.strip()
    return p
