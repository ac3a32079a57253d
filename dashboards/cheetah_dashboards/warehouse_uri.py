"""From the warehouse URL a user gives (ClickHouse HTTP) to the SQLAlchemy URI Superset stores."""

from __future__ import annotations

from urllib.parse import quote, unquote, urlsplit

from cheetah_dashboards.errors import DashboardsError

DATABASE_NAME = "Cheetah warehouse"  # databases/cheetah_warehouse.yaml in every bundle
# The read-only user of clickhouse/users.d/cheetah-dashboards.xml and its documented default password.
DEFAULT_USER = "dashboards"
DEFAULT_PASSWORD = "cheetah-dashboards"


def sqlalchemy_uri(warehouse_url: str) -> str:
    """http://[user[:password]@]host:port[/database] -> clickhousedb://user:password@host:port/database.

    Without credentials, the dashboards' read-only user is used; https becomes secure=true.
    """
    parts = urlsplit(warehouse_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DashboardsError(
            f"warehouse URL {warehouse_url!r} is not an http(s) URL with a host; "
            "give the ClickHouse HTTP endpoint, e.g. http://127.0.0.1:18123"
        )
    try:
        port = parts.port or (8443 if parts.scheme == "https" else 8123)
    except ValueError as error:
        raise DashboardsError(f"warehouse URL {warehouse_url!r}: {error}") from error
    user = unquote(parts.username) if parts.username else DEFAULT_USER
    password = unquote(parts.password) if parts.password is not None else (
        DEFAULT_PASSWORD if user == DEFAULT_USER else "")
    database = parts.path.strip("/") or "default"
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    credentials = quote(user, safe="") + (f":{quote(password, safe='')}" if password else "")
    secure = "?secure=true" if parts.scheme == "https" else ""
    return f"clickhousedb://{credentials}@{host}:{port}/{quote(database, safe='')}{secure}"
