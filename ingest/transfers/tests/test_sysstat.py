"""sysstat's `sadf -j` output as host samples (cheetah_transfers/sysstat.py): real output of sysstat
12.6.1 (Debian 12's, pinned by setup) read by hand, hand-written variants for what that machine
could not show (NIC use, several disks, bad parts), and a live sadc + sadf run shipped by the command."""

from __future__ import annotations

import copy
import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cheetah_transfers.cli import main
from cheetah_transfers.sysstat import parse_sysstat

HERE = Path(__file__).resolve().parent
# `sadc -S DISK 1 3 FILE; sadf -j FILE -- -u -d -n DEV -p` on a 2-CPU VM (2026-11-26, sysstat 12.6.1).
REAL = (HERE / "sadf_j_sysstat_12.6.1.json").read_text()
T0_MS = 1795696623000  # 2026-11-26 12:37:03 UTC: 20 783 days after 1970-01-01, + 12 h 37 min 3 s


def test_real_sadf_output_by_hand() -> None:
    p = parse_sysstat(REAL, "sa")
    assert p.rejects == [] and p.records == []
    # Entry 1: cpu all idle 13.20 -> 86.80 %; vda util-percent 9.20; every interface but lo at 0.00.
    # Entry 2: idle 14.15 -> 85.85 %; vda 3.60.
    assert p.host_samples == [
        {"host": "vm", "time_ms": T0_MS, "cpu_percent": 86.8, "disk_percent": 9.2, "nic_percent": 0.0, "nic_bps": 0.0},
        {"host": "vm", "time_ms": T0_MS + 1000, "cpu_percent": 85.85, "disk_percent": 3.6, "nic_percent": 0.0,
         "nic_bps": 0.0},
    ]


def _entry() -> dict:
    return copy.deepcopy(json.loads(REAL)["sysstat"]["hosts"][0]["statistics"][0])


def _doc(*entries: dict, host: str = "dtn1.site-b") -> str:
    doc = json.loads(REAL)
    doc["sysstat"]["hosts"][0]["nodename"] = host
    doc["sysstat"]["hosts"][0]["statistics"] = list(entries)
    return json.dumps(doc)


def test_the_busiest_disk_and_interface_count_and_loopback_does_not() -> None:
    e = _entry()
    e["disk"].append({**e["disk"][0], "disk-device": "nvme0n1", "util-percent": 97.5})
    devs = e["network"]["net-dev"]
    devs[0]["ifutil-percent"] = 100.0  # lo: never the transfer NIC
    devs[3]["ifutil-percent"] = 41.25  # eth0
    devs[4]["ifutil-percent"] = 12.5
    (s,) = parse_sysstat(_doc(e), "sa").host_samples
    assert (s["host"], s["disk_percent"], s["nic_percent"]) == ("dtn1.site-b", 97.5, 41.25)


def test_a_part_sadf_did_not_print_is_not_sampled_rather_than_zero() -> None:
    e = _entry()
    del e["disk"]
    del e["network"]
    (s,) = parse_sysstat(_doc(e), "sa").host_samples
    assert (s["cpu_percent"], s["disk_percent"], s["nic_percent"]) == (86.8, None, None)


def test_a_device_busy_a_little_over_the_whole_interval_is_busy_all_of_it() -> None:
    """sadf printed util-percent 100.2 and 100.4 for a saturated loop device (1-s samples, loaded
    machine): its busy time and its interval are two readings. Up to 110 reads as 100."""
    e = _entry()
    e["disk"][0]["util-percent"] = 100.4
    e["network"]["net-dev"][3]["ifutil-percent"] = 110
    (s,) = parse_sysstat(_doc(e), "sa").host_samples
    assert (s["disk_percent"], s["nic_percent"]) == (100.0, 100.0)


def _bad(mutate) -> dict:  # type: ignore[no-untyped-def]
    e = _entry()
    mutate(e)
    return e


@pytest.mark.parametrize("mutate, reason, words", [
    (lambda e: e["timestamp"].update(utc=0), "local_time", "sadf without -t"),
    (lambda e: e["timestamp"].update(time="25:61:00"), "bad_time", "25:61:00"),
    (lambda e: e["cpu-load"][0].update(idle=140), "bad_number", "cpu idle"),
    (lambda e: e["disk"][0].update({"util-percent": "x"}), "bad_number", "disk vda"),
    (lambda e: e["disk"][0].update({"util-percent": 110.5}), "bad_number", "up to 110 is read as 100"),
    (lambda e: e["network"]["net-dev"][3].update({"ifutil-percent": -0.1}), "bad_number", "interface eth0"),
    (lambda e: e["network"]["net-dev"][3].update({"ifutil-percent": None}), "bad_number", "interface eth0"),
    (lambda e: e.update({"cpu-load": [{"cpu": "0", "idle": 1}]}), "unexpected_layout", "no 'all' row"),
    (lambda e: [e.pop(k) for k in ("cpu-load", "disk", "network")], "no_utilisation", "-u -d -n DEV"),
    (lambda e: e.pop("timestamp"), "unexpected_layout", "KeyError"),
])
def test_a_bad_entry_is_a_reject_with_its_reason_and_the_others_still_ship(mutate, reason: str, words: str) -> None:  # type: ignore[no-untyped-def]
    p = parse_sysstat(_doc(_entry(), _bad(mutate), _entry()), "sa")
    assert len(p.host_samples) == 2
    (r,) = p.rejects
    assert r["reason"] == reason and words in r["detail"] and "entry 1" in r["detail"], r


@pytest.mark.parametrize("text, reason", [
    ("", "malformed_json"),
    ("{not json", "malformed_json"),
    ('{"sysstat": {"hosts": 3}}', "unexpected_layout"),
    ("[1, 2]", "unexpected_layout"),
    ('{"sysstat": {"hosts": [{"nodename": "", "statistics": []}]}}', "unexpected_layout"),
])
def test_not_sadf_output_is_one_reject(text: str, reason: str) -> None:
    p = parse_sysstat(text, "sa")
    assert p.host_samples == [] and [r["reason"] for r in p.rejects] == [reason]


def test_live_sadc_and_sadf_shipped_by_the_command(tmp_path: Path) -> None:
    """sysstat as deployed: sadc samples /proc into a file, sadf -j prints it, ship-transfers
    writes the samples (setup installs sysstat pinned: a missing sadf is a broken setup)."""
    sadf = shutil.which("sadf")
    sadc = next((p for p in ("/usr/lib/sysstat/sadc", "/usr/lib64/sa/sadc") if os.path.exists(p)), None)
    assert sadf and sadc, "sysstat is not installed: run ./cheetah setup (it installs sysstat pinned)"
    sa = tmp_path / "sa"
    subprocess.run([sadc, "-S", "DISK", "1", "3", str(sa)], check=True, timeout=60)
    out = tmp_path / "sadf.json"
    out.write_text(subprocess.run([sadf, "-j", str(sa), "--", "-u", "-d", "-n", "DEV", "-p"], check=True,
                                  capture_output=True, text=True, timeout=60).stdout)
    hosts = tmp_path / "hosts.csv"
    assert main(["sysstat", str(out), "--hosts", str(hosts), "--out", str(tmp_path / "records.jsonl")]) == 0
    rows = list(csv.DictReader(hosts.open()))
    assert len(rows) == 2  # three samples, two intervals
    assert {r["host"] for r in rows} == {os.uname().nodename}
    assert int(rows[1]["time_ms"]) - int(rows[0]["time_ms"]) == 1000
    for r in rows:
        assert 0 <= float(r["cpu_percent"]) <= 100 and r["nic_percent"] != "" and r["nic_bps"] == "0.0"
    assert not (tmp_path / "records.jsonl").exists() or (tmp_path / "records.jsonl").read_text() == ""


def test_as_host_names_the_samples_as_the_transfer_logs_do(tmp_path: Path) -> None:
    """iperf3 logs addresses, sadf a nodename: --as-host makes the samples match the transfers."""
    sa = tmp_path / "sadf.json"
    sa.write_text(REAL)
    hosts = tmp_path / "hosts.csv"
    assert main(["sysstat", str(sa), "--hosts", str(hosts), "--as-host", "10.0.2.1"]) == 0
    rows = list(csv.DictReader(hosts.open()))
    assert rows and {r["host"] for r in rows} == {"10.0.2.1"}


def test_sysstat_without_hosts_is_refused_rather_than_dropped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sa = tmp_path / "sadf.json"
    sa.write_text(REAL)
    with pytest.raises(SystemExit) as e:
        main(["sysstat", str(sa)])
    assert e.value.code == 2 and "--hosts FILE or --kafka BOOTSTRAP" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["iperf3", str(sa), "--as-host", "10.0.2.1"])
