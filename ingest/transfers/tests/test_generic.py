from __future__ import annotations

import json

from cheetah_transfers.generic import parse_csv, parse_jsonl

CSV = """src_host,dst_host,tool,streams,bytes,start_ms,end_ms,tcp_buffer_bytes,stream_rates_bps
10.0.1.1,10.0.2.1,scp,1,125000000,1000,11000,0,
10.0.1.1,10.0.2.1,bbcp,4,250000000,20000,30000,4194304,50e6;50e6;50e6;50e6
10.0.1.1,10.0.2.1,bbcp,4,,20000,30000,0,
10.0.1.1,10.0.2.1,bbcp,4,1,30000,20000,0,
10.0.1.1,10.0.2.1,bbcp
"""


def test_csv_rows_and_rejects() -> None:
    p = parse_csv(CSV, "xfers.csv")
    assert [(r["tool"], r["bytes"], r["seconds"], r["streams"]) for r in p.records] == [
        ("scp", 125000000, 10.0, 1),  # (11000 - 1000) / 1000
        ("bbcp", 250000000, 10.0, 4),
    ]
    assert p.records[1]["stream_rates_bps"] == [50e6] * 4
    assert [(r["reason"], r["source_offset"]) for r in p.rejects] == [
        ("missing_field", 4),
        ("inverted_times", 5),
        ("wrong_column_count", 6),
    ]


def test_csv_header_must_name_fields() -> None:
    p = parse_csv("src,dst\n1,2\n", "x.csv")
    assert p.records == []
    assert [r["reason"] for r in p.rejects] == ["bad_header"]


def test_csv_empty() -> None:
    p = parse_csv("", "x.csv")
    assert p.records == [] and p.rejects == []


def test_jsonl() -> None:
    good = {"src_host": "a", "dst_host": "b", "tool": "fdt", "bytes": 10, "start_ms": 0, "seconds": 1}
    text = "\n".join([json.dumps(good), "{nope", "[1]", json.dumps({**good, "bytes": -1}), ""])
    p = parse_jsonl(text, "x.jsonl")
    assert [r["end_ms"] for r in p.records] == [1000]
    assert [(r["reason"], r["source_offset"]) for r in p.rejects] == [
        ("malformed_json", 2),
        ("malformed_json", 3),
        ("bad_number", 4),
    ]


def test_text_a_message_cannot_hold_is_a_reject() -> None:
    # A file read with surrogateescape keeps bytes that are not UTF-8 as lone surrogates, and JSON
    # may escape one (\udcff); a protobuf string holds neither, so publishing it would fail mid-run.
    good = '{"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 0, "seconds": 1}'
    escaped = good.replace('"a"', '"a\\udcff"')
    raw = b"\xffhost".decode("utf-8", "surrogateescape")
    parsed = parse_jsonl("\n".join([good, escaped, good.replace('"t"', json.dumps(raw))]) + "\n")
    assert len(parsed.records) == 1
    assert [r["reason"] for r in parsed.rejects] == ["bad_text", "bad_text"]
    assert "src_host is not valid UTF-8" in parsed.rejects[0]["detail"]
    assert "tool is not valid UTF-8" in parsed.rejects[1]["detail"]
    csv = "src_host,dst_host,tool,streams,bytes,start_ms,end_ms\n" + raw + ",b,scp,1,5,1000,2000\n"
    assert [r["reason"] for r in parse_csv(csv).rejects] == ["bad_text"]
