"""Users of the HTTP front, read from ClickHouse users.d files (clickhouse/users.d/).

The front is loopback-only. ``default`` has no password and full access (the CLI, the
migrations). Every user a users.d file defines gets its profile's settings in a session of
its own; with ``readonly = 1`` in the profile that user can only read.
"""

from __future__ import annotations

import hashlib
import hmac
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .errors import QueryError, WarehouseError

DEFAULT_USER = "default"


@dataclass(frozen=True)
class User:
    name: str
    password_sha256_hex: str | None = None  # None: no password
    settings: dict[str, str] = field(default_factory=dict)  # profile settings, in file order

    @property
    def restricted(self) -> bool:
        return self.name != DEFAULT_USER

    def accepts(self, password: str) -> bool:
        if self.password_sha256_hex is None:
            return password == ""
        given = hashlib.sha256(password.encode("utf-8")).hexdigest()
        return hmac.compare_digest(given, self.password_sha256_hex.lower())


def load_users(paths: list[Path]) -> dict[str, User]:
    """``default`` plus the users of every users.d file; a broken file is an error naming it."""
    users: dict[str, User] = {DEFAULT_USER: User(DEFAULT_USER)}
    for path in paths:
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as exc:
            raise WarehouseError(f"cannot read users file {path}: {exc}") from None
        profiles = {p.tag: {s.tag: (s.text or "").strip() for s in p} for p in root.findall("profiles/*")}
        for element in root.findall("users/*"):
            name = element.tag
            if name == DEFAULT_USER:
                raise WarehouseError(f"users file {path} redefines '{DEFAULT_USER}'; the front keeps it as the local admin")
            digest = element.findtext("password_sha256_hex")
            if digest is None or len(digest.strip()) != 64:
                raise WarehouseError(f"users file {path}: user {name} needs a 64-hex-digit <password_sha256_hex>")
            profile = element.findtext("profile", "default").strip()
            if profile != "default" and profile not in profiles:
                raise WarehouseError(f"users file {path}: user {name} names profile {profile!r}, which the file does not define")
            settings = dict(profiles.get(profile, {}))
            # readonly last: once it is set, no other setting can be changed in that session.
            if "readonly" in settings:
                settings["readonly"] = settings.pop("readonly")
            users[name] = User(name, digest.strip(), settings)
    return users


def authenticate(users: dict[str, User], name: str, password: str) -> User:
    user = users.get(name or DEFAULT_USER)
    if user is None or not user.accepts(password):
        raise QueryError(
            f"Code: 516. DB::Exception: {name or DEFAULT_USER}: Authentication failed: password is incorrect, "
            "or there is no user with such name. (AUTHENTICATION_FAILED)",
            516,
        )
    return user
