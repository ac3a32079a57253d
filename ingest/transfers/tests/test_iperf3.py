from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cheetah_transfers.iperf3 import parse_iperf3
from tests.samples import iperf3_doc, iperf3_text

HERE = Path(__file__).resolve().parents[1]


def test_a_run_by_hand() -> None:
    p = parse_iperf3(iperf3_text(iperf3_doc()), "run.json")
    assert p.rejects == []
    (r,) = p.records
    assert (r["src_host"], r["dst_host"], r["tool"], r["streams"]) == ("10.0.1.1", "10.0.2.1", "iperf3", 2)
    assert r["bytes"] == 1098000000  # sum_received: what arrived
    assert r["seconds"] == 10.04
    assert r["start_ms"] == 1704164640000
    assert r["end_ms"] == 1704164640000 + 10040
    assert r["tcp_buffer_bytes"] == 262144
    assert r["congestion_control"] == "cubic"  # the sender's: the client sent
    assert r["stream_rates_bps"] == [477290836.6, 397609561.8]
    assert r["stream_seconds"] == [10.04, 10.04]
    # CPU of both ends at the run's middle: 1704164640000 + 10040 / 2.
    assert [(s["host"], s["time_ms"], s["cpu_percent"]) for s in p.host_samples] == [
        ("10.0.1.1", 1704164645020, 35.5),
        ("10.0.2.1", 1704164645020, 97.25),
    ]


def test_reverse_mode_sends_from_the_server() -> None:
    (r,) = parse_iperf3(iperf3_text(iperf3_doc(reverse=1))).records
    assert (r["src_host"], r["dst_host"], r["congestion_control"]) == ("10.0.2.1", "10.0.1.1", "bbr")


def test_a_failed_run_is_a_reject_and_the_next_run_still_ships() -> None:
    text = iperf3_text(iperf3_doc(error="unable to connect to server: Connection refused"), iperf3_doc())
    p = parse_iperf3(text, "runs.json")
    assert len(p.records) == 1
    (bad,) = p.rejects
    assert bad["reason"] == "tool_error"
    assert bad["detail"].startswith("runs.json:1: iperf3 reported an error: unable to connect")


def test_garbage_between_runs() -> None:
    text = iperf3_text(iperf3_doc()) + "iperf3: interrupt - the client has terminated\n" + iperf3_text(iperf3_doc())
    p = parse_iperf3(text, "x")
    assert len(p.records) == 2
    assert [r["reason"] for r in p.rejects] == ["malformed_json"]


@pytest.mark.parametrize(("text", "reason"), [("[1, 2]", "unexpected_layout"), ('{"start": {}}', "unexpected_layout"),
                                               ("{", "malformed_json"), ('{"end": 1, "start": {"connected": []}}', "unexpected_layout")])
def test_not_iperf3(text: str, reason: str) -> None:
    p = parse_iperf3(text)
    assert p.records == []
    assert [r["reason"] for r in p.rejects] == [reason]


def test_empty_input() -> None:
    p = parse_iperf3("  \n")
    assert p.records == [] and p.rejects == []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])




def test_real_iperf3_over_loopback_is_shipped(tmp_path: Path) -> None:
    assert shutil.which("iperf3"), "iperf3 is not installed (./cheetah setup installs it, pinned)"
    port = free_port()
    server = subprocess.Popen(["iperf3", "-s", "-1", "-B", "127.0.0.1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        # -1: the server answers one client; the probe connection below would use it up, so wait on
        # the listening socket through /proc instead of connecting.
        end = time.monotonic() + 30
        while not listening(port):
            assert time.monotonic() < end, f"iperf3 server not listening on 127.0.0.1:{port}"
            assert server.poll() is None, "iperf3 server exited"
            time.sleep(0.05)
        out = subprocess.run(["iperf3", "-c", "127.0.0.1", "-p", str(port), "-J", "-t", "1", "-P", "2", "-w", "256K"],
                             capture_output=True, text=True, timeout=60, check=True).stdout
        server.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    log = tmp_path / "run.json"
    log.write_text(out)
    records = tmp_path / "transfers.jsonl"
    hosts = tmp_path / "hosts.csv"
    rc = subprocess.run([sys.executable, "-m", "cheetah_transfers", "iperf3", str(log), "--out", str(records),
                         "--hosts", str(hosts)], cwd=HERE, capture_output=True, text=True, timeout=60)
    assert rc.returncode == 0, rc.stderr
    assert "1 record(s), 0 rejected, 2 host sample(s)" in rc.stderr
    (r,) = [json.loads(x) for x in records.read_text().splitlines()]
    doc = json.loads(out)
    per_stream = sum(s["receiver"]["bytes"] for s in doc["end"]["streams"])
    assert (r["src_host"], r["dst_host"], r["streams"], r["tool"]) == ("127.0.0.1", "127.0.0.1", 2, "iperf3")
    assert r["bytes"] == per_stream > 0  # the run's total is the sum of its two streams
    assert r["tcp_buffer_bytes"] == 256 * 1024
    assert 0.9 <= r["seconds"] <= 1.5
    assert abs(r["start_ms"] - time.time() * 1000) < 120_000
    rate = r["bytes"] * 8 / r["seconds"]
    assert abs(rate - sum(r["stream_rates_bps"])) / rate < 0.02  # both ways of adding up agree
    assert hosts.read_text().splitlines()[0] == "host,time_ms,cpu_percent,disk_percent,nic_percent,nic_bps"


def listening(port: int) -> bool:
    want = f":{port:04X} "
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            for line in Path(table).read_text().splitlines()[1:]:
                cols = line.split()
                if cols[1].endswith(want.strip()) and cols[3] == "0A":  # 0A: LISTEN
                    return True
        except OSError:
            continue
    return False
