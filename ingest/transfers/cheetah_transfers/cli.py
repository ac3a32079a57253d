"""``./cheetah ship-transfers FORMAT INPUT...``: tool logs into transfers.v1 JSON lines."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from .generic import parse_csv, parse_jsonl
from .gridftp import parse_gridftp
from .iperf3 import parse_iperf3
from .sysstat import parse_sysstat
from .records import Parsed, reject

HOST_COLUMNS = ("host", "time_ms", "cpu_percent", "disk_percent", "nic_percent", "nic_bps")


def parse(fmt: str, text: str, source: str, server_address: str) -> Parsed:
    if fmt == "iperf3":
        return parse_iperf3(text, source)
    if fmt == "gridftp":
        return parse_gridftp(text, source, server_address)
    if fmt == "csv":
        return parse_csv(text, source)
    if fmt == "sysstat":
        return parse_sysstat(text, source)
    return parse_jsonl(text, source)


def inputs(paths: list[str]) -> list[Path]:
    """Files, and the files of directories (sorted, not recursive)."""
    out: list[Path] = []
    for p in paths:
        path = Path(p)
        out.extend(sorted(f for f in path.iterdir() if f.is_file()) if path.is_dir() else [path])
    return out


def write_lines(target: str, rows: list[dict[str, Any]], default: TextIO) -> None:
    if not target or not rows and target != "-":
        return
    fh = default if target == "-" else open(target, "a", encoding="utf-8")
    try:
        for r in rows:
            fh.write(json.dumps(r, separators=(",", ":")) + "\n")
    finally:
        if fh is not default:
            fh.close()


def write_hosts(target: str, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    new = not os.path.exists(target) or os.path.getsize(target) == 0
    with open(target, "a", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(HOST_COLUMNS)
        for r in rows:
            w.writerow(["" if r[c] is None else r[c] for c in HOST_COLUMNS])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="./cheetah ship-transfers",
        description="Transfer logs into transfers.v1 records (JSON lines, the field names of"
        " cheetah/v1/transfers.proto), the input of `./cheetah throughput --transfers DIR`."
        " A line or run that cannot be shipped becomes a flows.rejected.v1-shaped reject (JSON"
        " lines) with a reason; it never stops the others.",
    )
    ap.add_argument("format", choices=("iperf3", "gridftp", "csv", "jsonl", "sysstat"),
                    help="iperf3: iperf3 -J output (one or more runs per file); gridftp: a GridFTP"
                    " server transfer log; csv: a header row of transfers.v1 field names; jsonl: one"
                    " JSON object per line with those names; sysstat: sadf -j output (sadf -j FILE -- -u -d -n DEV"
                    " -p), the transfer hosts' CPU, disk and NIC use as host samples only (--hosts, --kafka)")
    ap.add_argument("input", nargs="+", help="files or directories of them")
    ap.add_argument("--out", default=None,
                    help="append records here (default: standard output; with --kafka: nowhere)")
    ap.add_argument("--rejects", default=None,
                    help="append rejects here (default: standard error; with --kafka: nowhere)")
    ap.add_argument("--kafka", default="", metavar="BOOTSTRAP",
                    help="also publish: each record on transfers.v1 (key: the host pair), each host sample"
                    " on transfers.hosts.v1 (key: the host; the throughput job's PRCA reads them), each reject on"
                    " flows.rejected.v1 (HOST:PORT[,HOST:PORT]; idempotent producer, acks=all). Shipping a"
                    " file again is harmless: the warehouse stores a transfer once (transfers.v1 is"
                    " at-least-once, keyed by hosts and start time)")
    ap.add_argument("--kafka-config", default=None, metavar="FILE",
                    help="librdkafka key=value settings for --kafka: the shippers' principal's credentials"
                    " (security.protocol=SASL_SSL, sasl.mechanisms=SCRAM-SHA-512, sasl.username,"
                    " sasl.password, ssl.ca.location; docs/DEPLOY.md, \"Security\"); keep it owner-only")
    ap.add_argument("--hosts", default="",
                    help="append host resource samples (CSV: " + ",".join(HOST_COLUMNS) + ") here;"
                    " iperf3 gives the CPU use of both ends, sysstat each host's CPU, disk and NIC use")
    ap.add_argument("--server-address", default="",
                    help="gridftp: the server's address, used instead of the log's HOST name")
    ap.add_argument("--as-host", default="", metavar="HOST",
                    help="sysstat: the host the samples are of, as the transfer logs name it (iperf3 logs"
                    " addresses, e.g. 10.0.2.1); the PRCA matches samples to transfers by it (default:"
                    " sadf's nodename)")
    a = ap.parse_args(argv)
    if a.format == "sysstat" and not a.hosts and not a.kafka:
        ap.error("sysstat gives host samples only: say where they go with --hosts FILE or --kafka BOOTSTRAP")
    if a.as_host and a.format != "sysstat":
        ap.error("--as-host is for sysstat samples (the other formats name their hosts)")
    if a.kafka_config and not a.kafka:
        ap.error("--kafka-config needs --kafka BOOTSTRAP")
    if a.out is None:
        a.out = "" if a.kafka else "-"
    if a.rejects is None:
        a.rejects = "" if a.kafka else "-"
    client_options: dict[str, str] = {}
    if a.kafka_config:
        from .kafka import KafkaSetupError, read_client_options

        try:
            client_options = read_client_options(Path(a.kafka_config))
        except KafkaSetupError as e:
            print(f"ship-transfers: {e}", file=sys.stderr)
            return 2
    total = Parsed()
    unreadable = 0
    for path in inputs(a.input):
        try:
            text = path.read_bytes().decode("utf-8", "surrogateescape")
        except OSError as e:
            unreadable += 1
            total.rejects.append(reject("unreadable_file", f"cannot read: {e.strerror}; check the path", "", str(path), 0))
            continue
        parsed = parse(a.format, text, str(path), a.server_address)
        if a.as_host:
            for sample in parsed.host_samples:
                sample["host"] = a.as_host
        total.extend(parsed)
    write_lines(a.out, total.records, sys.stdout)
    write_lines(a.rejects, total.rejects, sys.stderr)
    if a.hosts:
        write_hosts(a.hosts, total.host_samples)
    print(f"ship-transfers: {len(total.records)} record(s), {len(total.rejects)} rejected"
          + (f", {len(total.host_samples)} host sample(s)" if a.hosts or a.kafka else ""), file=sys.stderr)
    if a.kafka:
        return publish(a.kafka, total, client_options) or (1 if unreadable else 0)
    return 1 if unreadable else 0


def publish(bootstrap: str, total: Parsed, client_options: dict[str, str]) -> int:
    """Sends records, host samples and rejects to Kafka and says how many it acknowledged: 0, or 1
    if any was not."""
    from .kafka import KafkaSetupError
    from .kafka import publish as send

    try:
        sent = send(bootstrap, total.records, total.rejects, client_options, host_samples=total.host_samples)
    except KafkaSetupError as e:
        print(f"ship-transfers: {e}", file=sys.stderr)
        return 2
    print("ship-transfers: sent " + ", ".join(f"{n} to {t}" for t, n in sent.delivered.items())
          + "".join(f"; NOT delivered: {n} to {t}" for t, n in sent.failed.items() if n), file=sys.stderr)
    for error in sent.errors:
        print(f"ship-transfers: {error}; check --kafka and --kafka-config", file=sys.stderr)
    return 1 if any(sent.failed.values()) else 0
