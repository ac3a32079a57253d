from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from cheetah_transfers.records import TRANSFER_FIELDS, BadRecord, host_sample, reject, transfer

ROOT = Path(__file__).resolve().parents[3]


def test_field_names_are_the_protos() -> None:
    proto = (ROOT / "schemas/cheetah/v1/transfers.proto").read_text()
    body = proto[proto.index("message Transfer {") :]
    body = body[: body.index("}")]
    names = re.findall(r"^\s*(?:repeated\s+)?\w+\s+(\w+)\s*=\s*\d+;", body, re.M)
    assert tuple(names) == TRANSFER_FIELDS


def test_a_host_sample_has_the_host_sample_fields() -> None:
    """What --hosts writes and --kafka publishes are the fields of HostSample (transfers.hosts.v1)."""
    proto = (ROOT / "schemas/cheetah/v1/transfers.proto").read_text()
    body = proto[proto.index("message HostSample {") :]
    body = body[: body.index("}")]
    names = re.findall(r"^\s*(?:optional\s+)?\w+\s+(\w+)\s*=\s*\d+;", body, re.M)
    assert tuple(host_sample("10.0.2.1", 1000, cpu=50.0)) == tuple(names)


def test_reject_has_the_rejected_record_fields() -> None:
    proto = (ROOT / "schemas/cheetah/v1/flows.proto").read_text()
    body = proto[proto.index("message RejectedRecord") :]
    body = body[: body.index("}")]
    names = re.findall(r"^\s*\w+\s+(\w+)\s*=\s*\d+;", body, re.M)
    r = reject("bad_number", "bytes must be ...", "a,b,c", "log.csv", 7)
    assert set(r) <= set(names), set(r) - set(names)
    assert r["stage"] == "transfer-shipper"
    assert r["detail"] == "log.csv:7: bytes must be ..."
    assert base64.b64decode(r["payload"]) == b"a,b,c"
    assert r["source_offset"] == 7


def test_seconds_from_times_and_times_from_seconds() -> None:
    base = {"src_host": "a", "dst_host": "b", "tool": "scp", "bytes": "1000"}
    r = transfer({**base, "start_ms": 1000, "end_ms": 3500})
    assert r["seconds"] == 2.5  # (3500 - 1000) / 1000
    r = transfer({**base, "start_ms": 1000, "seconds": "2.25"})
    assert r["end_ms"] == 3250  # 1000 + 2250
    assert r["streams"] == 0 and r["tcp_buffer_bytes"] == 0 and r["stream_rates_bps"] == []


def test_zero_duration_is_kept() -> None:
    r = transfer({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 0, "start_ms": 5, "end_ms": 5})
    assert r["seconds"] == 0.0


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 1, "end_ms": 2}, "missing_field"),
        ({"src_host": " ", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 1, "end_ms": 2}, "missing_field"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "start_ms": 1, "end_ms": 2}, "missing_field"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 1}, "missing_field"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": "-1", "start_ms": 1, "end_ms": 2}, "bad_number"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": "1e3", "start_ms": 1, "end_ms": 2}, "bad_number"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 2**64, "start_ms": 1, "end_ms": 2}, "bad_number"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": True, "start_ms": 1, "end_ms": 2}, "bad_number"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 1, "seconds": "nan"}, "bad_number"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 9, "end_ms": 2}, "inverted_times"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 1, "end_ms": 2, "user": "x"}, "unknown_field"),
        ({"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 1, "end_ms": 2, "streams": 2**32}, "bad_number"),
    ],
)
def test_bad_fields_name_their_reason(fields: dict[str, object], reason: str) -> None:
    with pytest.raises(BadRecord) as e:
        transfer(fields)
    assert e.value.reason == reason
