"""The test signer: builds commands the way the redirect job must (docs/REDIRECTS.md), on its own.

It signs by serialising the command before any hmac is set, not through cheetah_adapters.signing,
so a mistake in the adapter's verifier is not mirrored here.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import os
import time
from pathlib import Path
from typing import Any

from cheetah_adapters.messages import RedirectMessages

SECRETS = {"2026-11": bytes(range(32)), "2026-10": bytes(range(100, 140))}


def write_keys(path: Path, active: str = "2026-11", secrets: dict[str, bytes] | None = None) -> Path:
    doc = {"active": active, "keys": {k: v.hex() for k, v in (secrets or SECRETS).items()}}
    path.write_text(json.dumps(doc))
    os.chmod(path, 0o600)
    return path


def mapped(address: str) -> bytes:
    parsed = ipaddress.ip_address(address)
    if parsed.version == 4:
        parsed = ipaddress.IPv6Address("::ffff:" + address)
    return parsed.packed


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Signer:
    def __init__(self, messages: RedirectMessages, device_id: str, key_id: str = "2026-11", secret: bytes | None = None) -> None:
        self.m = messages
        self.device_id = device_id
        self.key_id = key_id
        self.secret = secret if secret is not None else SECRETS[key_id]

    def sign(self, command: Any) -> bytes:
        assert not command.hmac
        command.hmac = hmac.new(self.secret, command.SerializeToString(), hashlib.sha256).digest()
        return bytes(command.SerializeToString())

    def flow(
        self, command_id: str, src: str, dst: str, sport: int, dport: int, proto: int = 6, *, action: str = "SCAVENGER",
        ttl_ms: int = 600_000, issued_ms: int | None = None, **extra: Any,
    ) -> Any:
        """An unsigned per-flow command (5-tuple, full-length prefixes)."""
        issued = now_ms() if issued_ms is None else issued_ms
        full = 128
        return self.m.command(
            command_id=command_id, issued_ms=issued, expires_ms=issued + ttl_ms, device_id=extra.pop("device_id", self.device_id),
            src_prefix=mapped(src), src_prefix_len=full, dst_prefix=mapped(dst), dst_prefix_len=full,
            src_port=sport, dst_port=dport, proto=proto, action=self.m.action_number(action),
            reason="cheetah", cheetah_flow_id=f"flow-{command_id}", threshold_version=3, link_id="link-1", key_id=self.key_id, **extra,
        )

    def prefixes(self, command_id: str, src: str, dst: str, *, action: str = "SCAVENGER", ttl_ms: int = 600_000, **extra: Any) -> Any:
        """An unsigned prefix-pair command: "a.b.c.0/24" style text, IPv4 lengths mapped to IPv6 ones."""
        issued = now_ms()

        def side(text: str) -> tuple[bytes, int]:
            net = ipaddress.ip_network(text)
            return mapped(str(net.network_address)), net.prefixlen + (96 if net.version == 4 else 0)

        (sa, sl), (da, dl) = side(src), side(dst)
        return self.m.command(
            command_id=command_id, issued_ms=issued, expires_ms=issued + ttl_ms, device_id=self.device_id,
            src_prefix=sa, src_prefix_len=sl, dst_prefix=da, dst_prefix_len=dl, action=self.m.action_number(action),
            reason="prefix filter", link_id="link-1", key_id=self.key_id, **extra,
        )

    def remove(self, command_id: str, rule: Any, ttl_ms: int = 600_000) -> Any:
        issued = now_ms()
        command = self.m.command()
        command.CopyFrom(rule)
        command.ClearField("hmac")
        command.command_id, command.replaces_command_id = command_id, rule.command_id
        command.action = self.m.action_number("REMOVE")
        command.issued_ms, command.expires_ms = issued, issued + ttl_ms
        command.key_id = self.key_id
        return command
