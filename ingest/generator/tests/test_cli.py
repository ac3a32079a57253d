"""The command line: dry run, datagram files, replay, catch."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cheetah_generator.catcher import DatagramCatcher
from cheetah_generator.cli import main
from cheetah_generator.dgram_file import read_datagrams

from .collectors import free_port

PKG_ROOT = Path(__file__).resolve().parents[1]
SMALL = [
    "--span",
    "900",
    "--margin",
    "120",
    "--mice-per-s",
    "1",
    "--transfers",
    "2",
    "--realtime-flows",
    "2",
    "--quiet",
]


def test_dry_run_writes_truth_files(tmp_path: Path) -> None:
    assert main(["netflow", "--dry-run", "--truth", str(tmp_path), "--seed", "3", *SMALL]) == 0
    assert (tmp_path / "cheetahs.csv").read_text().splitlines()[0] == (
        "src,dst,src_port,dst_port,proto,start_ms,end_ms,bytes,peak_interval_bytes"
    )
    assert (tmp_path / "flowsets.csv").read_text().splitlines()[0] == (
        "src,dst,n_flows,start_ms,end_ms,bytes,duration_s,rate_bps"
    )
    doc = json.loads((tmp_path / "truth.json").read_text())
    assert set(doc) >= {"params", "cheetahs", "flowsets", "totals"}
    for k in ("H", "I_ms", "tau_ms", "G_ms", "sampling", "active_timeout_ms", "seed"):
        assert k in doc["params"]
    assert set(doc["totals"]) == {"records", "datagrams", "flows"}
    assert doc["params"]["H"] == 1_000_000_000 and doc["params"]["tau_ms"] == 10_000
    csv_rows = (tmp_path / "cheetahs.csv").read_text().splitlines()[1:]
    assert len(csv_rows) == len(doc["cheetahs"])
    # The warehouse report's sites file: site-a is 198.18.1.0/24, site-b 198.18.2.0/24, ...
    sites = json.loads((tmp_path / "sites.json").read_text())
    assert list(sites)[:2] == ["site-a", "site-b"]
    assert sites["site-a"] == ["198.18.1.0/24"] and sites["site-b"] == ["198.18.2.0/24"]


def test_truth_options_are_used(tmp_path: Path) -> None:
    args = [
        "netflow",
        "--dry-run",
        "--truth",
        str(tmp_path),
        "--h-bytes",
        "2e8",
        "--interval-s",
        "30",
        "--tau-s",
        "5",
        "--sampling",
        "7",
        "--active-timeout",
        "30",
        *SMALL,
    ]
    assert main(args) == 0
    p = json.loads((tmp_path / "truth.json").read_text())["params"]
    assert (p["H"], p["I_ms"], p["tau_ms"], p["sampling"], p["active_timeout_ms"]) == (
        200_000_000,
        30_000,
        5_000,
        7,
        30_000,
    )


def test_datagrams_out_then_replay(tmp_path: Path) -> None:
    dg = tmp_path / "v10.dg"
    args = ["netflow", "--version", "10", "--datagrams-out", str(dg), "--truth", str(tmp_path / "t"), *SMALL]
    assert main(args) == 0
    stored = list(read_datagrams(dg))
    totals = json.loads((tmp_path / "t" / "truth.json").read_text())["totals"]
    assert len(stored) == totals["datagrams"] and sum(d.records for d in stored) == totals["records"]
    with DatagramCatcher(tmp_path / "caught.dg") as c:
        target = f"127.0.0.1:{c.address[1]}"
        assert main(["replay", "--in", str(dg), "--target", target, "--pps", "20000", "--quiet"]) == 0
        assert c.wait(count=len(stored), timeout_s=10)
    assert [d.payload for d in read_datagrams(tmp_path / "caught.dg")] == [d.payload for d in stored]


def test_missing_output_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["netflow", *SMALL]) == 2
    assert "--target" in capsys.readouterr().err


def test_catch_subcommand_stops_after_count(tmp_path: Path) -> None:
    port = free_port(socket.SOCK_DGRAM)
    out = tmp_path / "c.dg"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cheetah_generator",
            "catch",
            "--listen",
            f"127.0.0.1:{port}",
            "--out",
            str(out),
            "--count",
            "3",
            "--timeout",
            "30",
        ],
        cwd=PKG_ROOT,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        assert "listening on" in proc.stderr.readline()  # bound: safe to send
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for i in range(3):
                s.sendto(bytes([i]) * 10, ("127.0.0.1", port))
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert [d.payload for d in read_datagrams(out)] == [bytes([i]) * 10 for i in range(3)]
