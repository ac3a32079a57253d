"""HMAC-SHA256 over a command serialised with `hmac` empty (docs/REDIRECTS.md, "Signature")."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any

from cheetah_adapters.keys import Keys


def signed_bytes(command: Any) -> bytes:
    unsigned = type(command)()
    unsigned.CopyFrom(command)
    unsigned.ClearField("hmac")
    return bytes(unsigned.SerializeToString(deterministic=True))


def sign(command: Any, keys: Keys, key_id: str | None = None) -> Any:
    """Sets key_id (the active key unless given) and hmac; returns the command."""
    command.key_id = key_id or keys.active
    command.hmac = hmac.new(keys.secrets[command.key_id], signed_bytes(command), hashlib.sha256).digest()
    return command


def signature_problem(command: Any, keys: Keys) -> tuple[str, str] | None:
    """None when the signature is good, else (reason code, detail)."""
    if not command.key_id or not command.hmac:
        return "unsigned", "command has no key_id or no hmac"
    secret = keys.secrets.get(command.key_id)
    if secret is None:
        return "unknown_key", f"key id {command.key_id!r} is not in the keys file (known: {', '.join(sorted(keys.secrets))})"
    expected = hmac.new(secret, signed_bytes(command), hashlib.sha256).digest()
    if not hmac.compare_digest(expected, bytes(command.hmac)):
        return "bad_signature", f"HMAC-SHA256 with key {command.key_id!r} does not match"
    return None
