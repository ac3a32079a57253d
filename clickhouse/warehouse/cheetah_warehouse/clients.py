"""Ways to run SQL: against the embedded engine in this process, or over the
ClickHouse HTTP protocol (the embedded warehouse's front or a real server)."""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from typing import Mapping, Protocol

from .embedded import EmbeddedEngine
from .errors import QueryError, WarehouseError


class SqlClient(Protocol):
    """Runs one statement and returns the formatted result."""

    def query(self, sql: str, fmt: str = "TabSeparated", params: Mapping[str, str] | None = None) -> bytes: ...

    def describe(self) -> str: ...


class EngineClient:
    """SqlClient over an open EmbeddedEngine, optionally in another database than default."""

    def __init__(self, engine: EmbeddedEngine, database: str | None = None) -> None:
        self._engine = engine
        self._database = database

    def query(self, sql: str, fmt: str = "TabSeparated", params: Mapping[str, str] | None = None) -> bytes:
        return self._engine.query(sql, fmt, params=params, database=self._database).data

    def describe(self) -> str:
        where = f"data directory {self._engine.config.data_dir}"
        return f"{where}, database {self._database}" if self._database else where


class HttpClient:
    """SqlClient speaking the ClickHouse HTTP interface (POST body = query)."""

    def __init__(self, url: str, timeout_s: float = 60.0, settings: Mapping[str, str] | None = None) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise WarehouseError(f"--url {url!r} is not an http(s) URL; expected e.g. http://127.0.0.1:8123")
        self.url = url
        self._parts = parts
        self._base_params = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
        self._settings = dict(settings or {})
        self._timeout_s = timeout_s

    def describe(self) -> str:
        return self.url

    def query(self, sql: str, fmt: str = "TabSeparated", params: Mapping[str, str] | None = None) -> bytes:
        query_params = list(self._base_params)
        query_params.append(("default_format", fmt))
        query_params.extend(self._settings.items())
        query_params.extend((f"param_{k}", v) for k, v in (params or {}).items())
        target = urllib.parse.urlunsplit(
            (self._parts.scheme, self._parts.netloc, self._parts.path or "/", urllib.parse.urlencode(query_params), "")
        )
        request = urllib.request.Request(target, data=sql.encode("utf-8"), method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
                return bytes(response.read())
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", errors="replace").strip()
            code_header = exc.headers.get("X-ClickHouse-Exception-Code")
            error = QueryError.from_engine_text(body or f"HTTP {exc.code} {exc.reason}")
            if code_header and code_header.isdigit():
                error.code = int(code_header)
            raise error from None
        except (urllib.error.URLError, socket.timeout, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            raise WarehouseError(
                f"cannot reach the warehouse at {self.url}: {reason}; "
                "is `python -m cheetah_warehouse serve` (or the ClickHouse server) running there?"
            ) from None

    def summary(self, sql: str) -> dict[str, str]:
        """Run a statement and return X-ClickHouse-Summary (for tests and tools)."""
        request = urllib.request.Request(self.url, data=sql.encode("utf-8"), method="POST")
        with urllib.request.urlopen(request, timeout=self._timeout_s) as response:
            response.read()
            header = response.headers.get("X-ClickHouse-Summary", "{}")
        return dict(json.loads(header))
