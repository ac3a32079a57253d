"""The two things a shipper emits: transfers.v1 records and flows.rejected.v1-shaped rejects.

A record is a dict keyed by the field names of cheetah/v1/transfers.proto (Transfer); a reject by
those of cheetah/v1/flows.proto (RejectedRecord), with the offending input as base64 payload (the
proto3 JSON form of bytes) and its line number as source_offset.
"""

from __future__ import annotations

import base64
import math
import time
from dataclasses import dataclass, field
from typing import Any

STAGE = "transfer-shipper"

# Field names of cheetah.v1.Transfer, in proto order (checked against the .proto by a test).
TRANSFER_FIELDS = (
    "src_host",
    "dst_host",
    "tool",
    "streams",
    "bytes",
    "seconds",
    "start_ms",
    "end_ms",
    "tcp_buffer_bytes",
    "congestion_control",
    "mtu",
    "stream_rates_bps",
    "stream_seconds",
)
UINT_FIELDS = ("streams", "bytes", "start_ms", "end_ms", "tcp_buffer_bytes", "mtu")
UINT64_MAX = 2**64 - 1
UINT32_MAX = 2**32 - 1


class BadRecord(ValueError):
    """A record that cannot be shipped: ``reason`` is the stable code, the message the detail."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason


@dataclass
class Parsed:
    """What one input gave: records to ship, rejects with reasons, host resource samples."""

    records: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[dict[str, Any]] = field(default_factory=list)
    host_samples: list[dict[str, Any]] = field(default_factory=list)

    def extend(self, other: Parsed) -> None:
        self.records.extend(other.records)
        self.rejects.extend(other.rejects)
        self.host_samples.extend(other.host_samples)


def reject(reason: str, detail: str, payload: str, source: str, line: int) -> dict[str, Any]:
    """A flows.rejected.v1-shaped reject of ``payload`` (line ``line`` of ``source``)."""
    return {
        "stage": STAGE,
        "reason": reason,
        # Text from the input (a header name, a value, the file's name) may hold bytes that are
        # not UTF-8 (read with surrogateescape), which a protobuf string cannot: shown escaped.
        "detail": f"{source}:{line}: {detail}".encode("utf-8", "backslashreplace").decode("utf-8"),
        "payload": base64.b64encode(payload.encode("utf-8", "surrogateescape")).decode("ascii"),
        "received_ms": int(time.time() * 1000),
        "source_topic": "",
        "source_partition": 0,
        "source_offset": line,
    }


def whole(value: Any, name: str, limit: int = UINT64_MAX) -> int:
    """A non-negative whole number (int, integral float or decimal text) within ``limit``."""
    if isinstance(value, bool):
        raise BadRecord("bad_number", f"{name} must be a whole number, got {value!r}")
    if isinstance(value, int):
        n = value
    elif isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            raise BadRecord("bad_number", f"{name} must be a whole number, got {value!r}")
        n = int(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text.isdigit() or not text.isascii():
            raise BadRecord("bad_number", f"{name} must be a whole number, got {value!r}")
        n = int(text)
    else:
        raise BadRecord("bad_number", f"{name} must be a whole number, got {value!r}")
    if n < 0 or n > limit:
        raise BadRecord("bad_number", f"{name} {n} is out of range 0..{limit}")
    return n


def number(value: Any, name: str) -> float:
    """A finite non-negative number."""
    if isinstance(value, bool):
        raise BadRecord("bad_number", f"{name} must be a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise BadRecord("bad_number", f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(x) or x < 0:
        raise BadRecord("bad_number", f"{name} must be a finite number >= 0, got {value!r}")
    return x


def text(value: str, name: str) -> str:
    """``value`` if a protobuf string can hold it: bytes that are not UTF-8 (read with
    surrogateescape) or a JSON-escaped lone surrogate cannot be sent, so they are a reject here."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise BadRecord("bad_text", f"{name} is not valid UTF-8 text: {value!r}") from None
    return value


def transfer(fields: dict[str, Any]) -> dict[str, Any]:
    """A checked transfers.v1 record from ``fields`` (field names as in the .proto).

    Needs src_host, dst_host, tool, bytes, start_ms and end_ms or seconds (the other is derived).
    Raises BadRecord naming the first problem.
    """
    unknown = sorted(set(fields) - set(TRANSFER_FIELDS))
    if unknown:
        raise BadRecord("unknown_field", f"unknown field(s) {', '.join(unknown)}; known: {', '.join(TRANSFER_FIELDS)}")
    out: dict[str, Any] = {}
    for name in ("src_host", "dst_host", "tool"):
        v = fields.get(name)
        if not isinstance(v, str) or not v.strip():
            raise BadRecord("missing_field", f"{name} is missing or empty")
        out[name] = text(v.strip(), name)
    for name in ("bytes", "start_ms"):
        if fields.get(name) in (None, ""):
            raise BadRecord("missing_field", f"{name} is missing")
    out["bytes"] = whole(fields["bytes"], "bytes")
    out["start_ms"] = whole(fields["start_ms"], "start_ms")
    has_end = fields.get("end_ms") not in (None, "")
    has_secs = fields.get("seconds") not in (None, "")
    if not has_end and not has_secs:
        raise BadRecord("missing_field", "end_ms and seconds are both missing (one is needed)")
    if has_secs:
        out["seconds"] = number(fields["seconds"], "seconds")
    if has_end:
        out["end_ms"] = whole(fields["end_ms"], "end_ms")
        if out["end_ms"] < out["start_ms"]:
            raise BadRecord("inverted_times", f"end_ms {out['end_ms']} is before start_ms {out['start_ms']}")
    if not has_end:
        end = out["start_ms"] + round(out["seconds"] * 1000)
        if end > UINT64_MAX:
            raise BadRecord("bad_number", f"start_ms + seconds is out of range: {end}")
        out["end_ms"] = end
    if not has_secs:
        out["seconds"] = (out["end_ms"] - out["start_ms"]) / 1000.0
    out["streams"] = whole(fields.get("streams") or 0, "streams", UINT32_MAX)
    out["tcp_buffer_bytes"] = whole(fields.get("tcp_buffer_bytes") or 0, "tcp_buffer_bytes")
    out["mtu"] = whole(fields.get("mtu") or 0, "mtu", UINT32_MAX)
    cc = fields.get("congestion_control") or ""
    if not isinstance(cc, str):
        raise BadRecord("bad_text", f"congestion_control must be text, got {cc!r}")
    out["congestion_control"] = text(cc, "congestion_control")
    for name in ("stream_rates_bps", "stream_seconds"):
        v = fields.get(name) or []
        if isinstance(v, str):
            v = [x for x in v.split(";") if x.strip()]
        if not isinstance(v, list):
            raise BadRecord("bad_number", f"{name} must be a list of numbers, got {v!r}")
        out[name] = [number(x, name) for x in v]
    return {k: out[k] for k in TRANSFER_FIELDS}


def host_sample(host: str, ms: int, cpu: float | None = None, disk: float | None = None,
                nic: float | None = None, nic_bps: float = 0.0) -> dict[str, Any]:
    """One host resource sample (hosts.csv of `cheetah throughput`): utilisation in %, or None."""
    return {"host": host, "time_ms": ms, "cpu_percent": cpu, "disk_percent": disk,
            "nic_percent": nic, "nic_bps": nic_bps}
