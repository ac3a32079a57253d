"""The shared keys file (docs/REDIRECTS.md, "Signature"): key ids to HMAC secrets.

{"active": "2026-11", "keys": {"2026-11": "<hex, >= 32 bytes>", ...}}

Verifiers accept every listed key. The file is re-read when it changes on disk, so a rotation
(add a key, later drop the old one) reaches a running adapter without a restart.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from dataclasses import dataclass
from pathlib import Path

MIN_SECRET_BYTES = 32

log = logging.getLogger("cheetah_adapters")


class KeysFileError(ValueError):
    pass


@dataclass(frozen=True)
class Keys:
    active: str
    secrets: dict[str, bytes]


def parse_keys(text: str, origin: str) -> Keys:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise KeysFileError(f"keys file {origin}: not JSON ({e}); expected {{\"active\": ID, \"keys\": {{ID: HEX}}}}") from e
    if not isinstance(doc, dict) or not isinstance(doc.get("keys"), dict) or not doc["keys"]:
        raise KeysFileError(f"keys file {origin}: needs a non-empty object \"keys\" mapping key ids to hex secrets")
    secrets: dict[str, bytes] = {}
    for key_id, value in doc["keys"].items():
        try:
            secret = bytes.fromhex(value) if isinstance(value, str) else b""
        except ValueError as e:
            raise KeysFileError(f"keys file {origin}: key {key_id!r} is not hex ({e})") from e
        if len(secret) < MIN_SECRET_BYTES:
            raise KeysFileError(
                f"keys file {origin}: key {key_id!r} has {len(secret)} bytes; secrets must be hex of at least {MIN_SECRET_BYTES} bytes"
            )
        secrets[str(key_id)] = secret
    active = doc.get("active")
    if active not in secrets:
        raise KeysFileError(f"keys file {origin}: \"active\" is {active!r}, which is not one of the keys {sorted(secrets)}")
    return Keys(active=str(active), secrets=secrets)


def _stamp(info: os.stat_result) -> tuple[int, int, int, int]:
    """What identifies a version of the file: stat follows symlinks, so a Kubernetes Secret's
    ..data swap shows as another file (device and inode) even with the same size and time."""
    return (info.st_dev, info.st_ino, info.st_mtime_ns, info.st_size)


class KeysFile:
    """The keys file on disk, refused when others can read it, re-read when it changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int, int] | None = None
        self._problem = ""
        self._keys = self._read()

    def _read(self) -> Keys:
        try:
            info = self.path.stat()
        except OSError as e:
            raise KeysFileError(f"keys file {self.path}: cannot read it ({e.strerror}); pass --keys with the shared keys file") from e
        if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise KeysFileError(
                f"keys file {self.path}: mode {stat.S_IMODE(info.st_mode):04o} lets others read the secrets; run chmod 600 {self.path}"
            )
        keys = parse_keys(self.path.read_text(), str(self.path))
        self._stamp = _stamp(info)
        return keys

    def current(self) -> Keys:
        """The keys, re-read if the file changed; a broken new version keeps the last good one,
        with one warning per distinct problem (its messages never quote a secret)."""
        try:
            info = os.stat(self.path)
            if _stamp(info) != self._stamp:
                self._keys = self._read()
                self._problem = ""
                log.info("keys file %s changed: active key %r, keys %s", self.path, self._keys.active, sorted(self._keys.secrets))
        except (OSError, KeysFileError) as e:
            problem = f"cannot read it ({e.strerror})" if isinstance(e, OSError) else str(e)
            if problem != self._problem:
                self._problem = problem
                log.warning("keys file %s changed but cannot be used: %s; still verifying with its last good version", self.path, problem)
        return self._keys
