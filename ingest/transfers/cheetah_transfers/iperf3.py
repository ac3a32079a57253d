"""iperf3 ``-J`` output: one JSON document per run (a file may hold several, one after another)."""

from __future__ import annotations

import json
from typing import Any

from .records import BadRecord, Parsed, host_sample, reject, transfer

TOOL = "iperf3"


def parse_iperf3(text: str, source: str = "-") -> Parsed:
    """Every run in ``text`` as a transfers.v1 record, and the CPU use iperf3 measured at both
    ends as host samples; runs that failed or do not parse become rejects. Never raises."""
    out = Parsed()
    decoder = json.JSONDecoder()
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        line = text.count("\n", 0, pos) + 1
        try:
            doc, end = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as e:
            # Skip to the next document that starts a line, if any.
            nxt = text.find("\n{", pos + 1)
            stop = len(text) if nxt < 0 else nxt + 1
            out.rejects.append(reject("malformed_json", f"not iperf3 JSON: {e}", text[pos:stop], source, line))
            pos = stop
            continue
        try:
            record, samples = run(doc)
            out.records.append(record)
            out.host_samples.extend(samples)
        except BadRecord as e:
            out.rejects.append(reject(e.reason, str(e), text[pos:end], source, line))
        except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as e:
            out.rejects.append(
                reject("unexpected_layout", f"not an iperf3 -J result ({type(e).__name__}: {e})", text[pos:end], source, line))
        pos = end
    return out


def run(doc: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One iperf3 -J document as a record and host samples. Raises BadRecord (or a lookup error on
    a layout that is not iperf3's)."""
    if not isinstance(doc, dict):
        raise BadRecord("unexpected_layout", f"an iperf3 result is a JSON object, got {type(doc).__name__}")
    if doc.get("error"):
        raise BadRecord("tool_error", f"iperf3 reported an error: {doc['error']}")
    start = doc["start"]
    end = doc["end"]
    conn = start["connected"][0]
    local, remote = str(conn["local_host"]), str(conn["remote_host"])
    test = start["test_start"]
    reverse = bool(test.get("reverse", 0))
    # The client sends unless -R: data goes local -> remote, else remote -> local.
    src, dst = (remote, local) if reverse else (local, remote)
    received = end["sum_received"]
    start_ms = int(start["timestamp"]["timesecs"]) * 1000
    seconds = float(received["seconds"])
    streams = end.get("streams") or []
    rates = [float(s["receiver"]["bits_per_second"]) for s in streams if "receiver" in s]
    secs = [float(s["receiver"]["seconds"]) for s in streams if "receiver" in s]
    cc = end.get("receiver_tcp_congestion" if reverse else "sender_tcp_congestion") or ""
    record = transfer(
        {
            "src_host": src,
            "dst_host": dst,
            "tool": TOOL,
            "streams": int(test["num_streams"]),
            "bytes": int(received["bytes"]),
            "seconds": seconds,
            "start_ms": start_ms,
            "end_ms": start_ms + round(seconds * 1000),
            "tcp_buffer_bytes": int(start.get("sock_bufsize") or 0),
            "congestion_control": str(cc),
            "stream_rates_bps": rates,
            "stream_seconds": secs,
        }
    )
    samples = []
    cpu = end.get("cpu_utilization_percent") or {}
    mid = start_ms + round(seconds * 500)
    if "host_total" in cpu:
        samples.append(host_sample(local, mid, cpu=float(cpu["host_total"])))
    if "remote_total" in cpu:
        samples.append(host_sample(remote, mid, cpu=float(cpu["remote_total"])))
    return record, samples
