"""Errors the warehouse reports, with ClickHouse's exception text kept intact."""

from __future__ import annotations

import re

_CODE = re.compile(r"Code: (\d+)\. ")
_NESTED_PREFIX = re.compile(r"^(Code: (\d+)\. DB::Exception: )(?:Code: \2\. DB::Exception: )+")


class WarehouseError(Exception):
    """A problem the user can act on; the message says what and how."""


class QueryError(WarehouseError):
    """ClickHouse refused or failed a query; ``code`` is ClickHouse's error code."""

    def __init__(self, message: str, code: int = 1000) -> None:
        super().__init__(message)
        self.code = code
        self.text = message

    @classmethod
    def from_engine_text(cls, text: str) -> "QueryError":
        """Build from chdb's exception text, which may repeat the prefix once per layer."""
        text = _NESTED_PREFIX.sub(r"\1", text.strip())
        match = _CODE.search(text)
        code = int(match.group(1)) if match else 1000  # 1000: ClickHouse's POCO_EXCEPTION / unknown
        if not match:
            text = f"Code: {code}. DB::Exception: {text}"
        return cls(text, code)


class DataDirectoryLocked(WarehouseError):
    """Another process (a running ``serve``) owns the data directory."""
