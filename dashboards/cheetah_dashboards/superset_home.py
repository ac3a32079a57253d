"""A Superset state directory: its config file, SQLite metadata and the admin user.

Everything Superset keeps lives under one directory, so a check can start from nothing and
`./cheetah up` can keep its dashboards between runs.
"""

from __future__ import annotations

import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

from cheetah_dashboards.processes import run

ADMIN_USER = "admin"

_CONFIG_TEMPLATE = '''# Written by cheetah_dashboards for this state directory; edits are overwritten.
SECRET_KEY = {secret!r}
SQLALCHEMY_DATABASE_URI = {metadata_uri!r}
# SQLite metadata under a dashboard's burst of chart requests: wait for the write lock instead
# of failing with "database is locked" (seen once in the headless check with 35 charts).
SQLALCHEMY_ENGINE_OPTIONS = {{"connect_args": {{"timeout": 60}}}}
# Rate limits kept in memory: one local instance, no Redis.
RATELIMIT_STORAGE_URI = "memory://"
# Charts read the warehouse every time: nothing stale in a check, nothing to invalidate.
DATA_CACHE_CONFIG = {{"CACHE_TYPE": "NullCache"}}
# Error boxes show the cause, which the headless check quotes.
SHOW_STACKTRACE = True
WTF_CSRF_TIME_LIMIT = None
# Jinja in dataset SQL: zero-filled counts (acks, refusals by guardrail) apply the time range and
# device filters inside their query, so a status with no rows still shows as 0.
FEATURE_FLAGS = {{"ENABLE_TEMPLATE_PROCESSING": True}}
'''


@dataclass(frozen=True)
class SupersetHome:
    """Paths of one Superset instance, and the commands that prepare it."""

    state_dir: Path
    admin_password: str

    @property
    def config_path(self) -> Path:
        return self.state_dir / "superset_config.py"

    @property
    def metadata_path(self) -> Path:
        return self.state_dir / "superset.db"

    @property
    def logs_dir(self) -> Path:
        return self.state_dir / "logs"

    @staticmethod
    def superset_bin() -> Path:
        """The `superset` command of the venv running this tooling (Superset's own venv)."""
        return Path(sys.executable).parent / "superset"

    def env(self) -> dict[str, str]:
        return {
            "SUPERSET_CONFIG_PATH": str(self.config_path),
            "SUPERSET_HOME": str(self.state_dir),
            "FLASK_APP": "superset.app:create_app()",
            "PYTHONUNBUFFERED": "1",
        }

    def write_config(self) -> None:
        """Writes superset_config.py; the secret key is made once and kept (it encrypts passwords)."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.logs_dir.mkdir(exist_ok=True)
        key_path = self.state_dir / "secret_key"
        if not key_path.exists():
            key_path.write_text(secrets.token_urlsafe(48))
            key_path.chmod(0o600)
        self.config_path.write_text(_CONFIG_TEMPLATE.format(
            secret=key_path.read_text().strip(), metadata_uri=f"sqlite:///{self.metadata_path}",
        ))

    def superset(self, *args: str, timeout_s: float = 300.0) -> str:
        """Runs one `superset` CLI command against this state directory."""
        return run(f"superset {args[0]}", [str(self.superset_bin()), *args], env=self.env(), timeout_s=timeout_s)

    def initialise(self) -> None:
        """db upgrade, the admin user and roles: idempotent, offline, ~30 s the first time."""
        self.write_config()
        self.superset("db", "upgrade")
        out = self.superset(
            "fab", "create-admin", "--username", ADMIN_USER, "--firstname", "Cheetah", "--lastname", "Admin",
            "--email", "admin@cheetah.invalid", "--password", self.admin_password,
        )
        if "already exists" in out:
            # Keep the password the caller gave us: a state dir reused with a new password still works.
            self.superset("fab", "reset-password", "--username", ADMIN_USER, "--password", self.admin_password)
        self.superset("init")
