"""``wait``: poll a count query until it reaches a number, within a deadline."""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

from .clients import SqlClient
from .errors import WarehouseError


def first_number(output: bytes, sql: str) -> float:
    text = output.decode("utf-8", errors="replace").strip()
    first = text.splitlines()[0].split("\t")[0] if text else ""
    try:
        return float(first)
    except ValueError:
        raise WarehouseError(
            f"query `{sql}` returned {text[:80]!r}, not a number; give a query whose first column is a count"
        ) from None


def wait_for_count(
    client: SqlClient,
    sql: str,
    expect_at_least: float,
    timeout_s: float,
    interval_s: float = 0.5,
    progress: TextIO = sys.stderr,
    clock: Callable[[], float] = time.monotonic,
    pause: Callable[[float], None] = time.sleep,
) -> float:
    """Return the value once it is >= expect_at_least; raise WarehouseError at the deadline."""
    start = clock()
    deadline = start + timeout_s
    last_report = ""
    while True:
        try:
            value = first_number(client.query(sql), sql)
            state = f"{value:g}/{expect_at_least:g}"
        except WarehouseError as exc:
            if "not a number" in str(exc):
                raise
            value, state = float("nan"), f"not answering ({exc})"
        elapsed = clock() - start
        if value >= expect_at_least:
            print(f"wait: {state} after {elapsed:.1f} s: done", file=progress, flush=True)
            return value
        if state != last_report:
            print(f"wait: {state} after {elapsed:.1f} s", file=progress, flush=True)
            last_report = state
        if clock() >= deadline:
            raise WarehouseError(
                f"timed out after {timeout_s:g} s: `{sql}` at {client.describe()} is {state}, "
                f"expected at least {expect_at_least:g}; check the producers and `report`"
            )
        pause(min(interval_s, max(0.0, deadline - clock())))
