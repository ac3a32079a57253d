"""`cheetah fabric-up --netns` (docs/FABRIC.md, "Hosts and link capacities") on the leaf-spine example of
docs/FABRIC.md, on a real Open vSwitch: hosts are network namespaces, links are shaped to their 10 Mb/s,
and iperf3 TCP between the two hosts gets about 10 Mb/s and not more; many flows are spread over both
spines; --down leaves no namespace or veth of the run. Also the pure parts (the shaping and host
commands) by hand.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from cheetah_adapters.fabric import parse
from cheetah_adapters.fabric_up import host_commands, namespace_name, shaping_commands
from tests.test_fabric_reroute import docs_example

ROOT = Path(__file__).resolve().parents[2]
CAPACITY = 10e6
# TCP's payload in a 1514-byte frame (the shaper counts frames without FCS): 1448 bytes with timestamps.
PAYLOAD_SHARE = 1448 / 1514


def test_shaping_commands_by_hand() -> None:
    assert shaping_commands("fabv0a", 10e6) == [
        ["qdisc", "replace", "dev", "fabv0a", "root", "handle", "1:", "htb", "default", "1"],
        ["class", "add", "dev", "fabv0a", "parent", "1:", "classid", "1:1", "htb", "rate", "10000000bit", "ceil", "10000000bit",
         "burst", "3028", "cburst", "3028"],
        ["qdisc", "add", "dev", "fabv0a", "parent", "1:1", "handle", "10:", "pfifo", "limit", "100"],
    ]


def test_host_commands_and_names_by_hand() -> None:
    assert host_commands("10.0.1.2", [("10.0.2.2", "02:ce:00:00:00:01")]) == [
        "link set lo up", "addr add 10.0.1.2/32 dev eth0", "link set eth0 gso_max_segs 1", "link set eth0 up",
        "route add 10.0.2.2/32 dev eth0", "neigh replace 10.0.2.2 lladdr 02:ce:00:00:00:01 dev eth0 nud permanent"]
    assert namespace_name("f1a2b", "h1", 0) == "f1a2b-h1"
    assert namespace_name("f1a2b", "host with spaces", 3) == "f1a2b-h3"  # not a safe name: by index


def test_the_file_gives_each_port_its_capacity() -> None:
    fabric = parse(docs_example().replace("{a: leaf2:3, b: spine2:2, capacity_bps: 10e6}", "{a: leaf2:3, b: spine2:2, capacity_bps: 25e6}"),
                   "docs/FABRIC.md")
    assert fabric.capacities[("leaf2", 3)] == fabric.capacities[("spine2", 2)] == 25e6
    assert fabric.capacities[("leaf1", 2)] == 10e6 and fabric.capacities[("leaf1", 1)] == 10e6  # h1's cable
    assert fabric.host_names == {"10.0.1.2": "h1", "10.0.2.2": "h2"}


def _cli(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "cheetah_adapters.fabric_up", *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT / "adapters")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _iperf(client_ns: str, server_ns: str, address: str, port: int, *args: str) -> dict[str, Any]:
    server = subprocess.Popen(["ip", "netns", "exec", server_ns, "iperf3", "-s", "-1", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not subprocess.run(["ip", "netns", "exec", server_ns, "ss", "-Hltn", f"sport = :{port}"],
                                 capture_output=True, text=True).stdout.strip():
            assert time.monotonic() < deadline, "iperf3 server did not listen"
            time.sleep(0.05)
        done = subprocess.run(["ip", "netns", "exec", client_ns, "iperf3", "-c", address, "-p", str(port), "-J", *args],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
        return json.loads(done.stdout)
    finally:
        try:
            server.wait(timeout=30)  # -1: it exits after its one test
        except subprocess.TimeoutExpired:
            server.terminate()
            server.wait(timeout=30)


def _tx(run_dir: Path, bridge: str) -> dict[int, int]:
    out = subprocess.run(["ovs-ofctl", "-O", "OpenFlow13", "dump-ports", f"unix:{run_dir}/{bridge}.mgmt"],
                         capture_output=True, text=True, timeout=30).stdout
    return {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"port\s+(\d+):.*?tx pkts=\d+, bytes=(\d+)", out, re.DOTALL)}


def test_hosts_in_namespaces_get_the_link_capacity_and_ecmp_spreads_flows(tmp_path: Path) -> None:
    fabric_file = tmp_path / "leaf-spine.yaml"
    fabric_file.write_text(docs_example())
    run_dir = (tmp_path / "ovs").resolve()
    out = _cli("--fabric", str(fabric_file), "--run-dir", str(run_dir), "--netns")
    prefix = out["bridges"][0][: -len("spine1")]
    try:
        hosts = {h["name"]: h for h in out["hosts"]}
        assert {n: (h["address"], h["switch"], h["port"]) for n, h in hosts.items()} == \
            {"h1": ("10.0.1.2", "leaf1", 1), "h2": ("10.0.2.2", "leaf2", 1)}
        h1, h2 = hosts["h1"]["netns"], hosts["h2"]["netns"]

        # One TCP flow h1 -> h2 for 8 s, the first 2 (slow start, queue filling) left out: every link on
        # its path is 10 Mb/s, so the receiver gets the capacity's payload share (9.56 Mb/s) and not
        # more; within 15 % of the capacity below.
        one = _iperf(h1, h2, "10.0.2.2", 5201, "-t", "8", "-O", "2")
        bps = one["end"]["sum_received"]["bits_per_second"]
        print(f"h1 -> h2, one flow: {bps / 1e6:.2f} Mb/s")
        assert 0.85 * CAPACITY <= bps <= CAPACITY * PAYLOAD_SHARE * 1.02, f"{bps / 1e6:.2f} Mb/s on 10 Mb/s links"
        # the shaper did it: the HTB on h1's own end sent the flow's frames and held some back (overlimits)
        stats = json.loads(subprocess.run(["tc", "-n", h1, "-s", "-j", "qdisc", "show", "dev", "eth0"],
                                          capture_output=True, text=True, timeout=30).stdout)
        htb = [q for q in stats if q["kind"] == "htb"]
        assert htb and htb[0]["bytes"] > 8e6 and htb[0]["overlimits"] > 0, stats

        # ECMP: 16 parallel TCP flows (distinct source ports) from h1 reach h2 over both spines: by the
        # spines' port counters towards leaf2 (port 2). With a fair hash all 16 on one spine has
        # probability 2 * 2**-16 (3e-5); each spine carries at least one of the 16 flows' bytes.
        before = {s: _tx(run_dir, prefix + s)[2] for s in ("spine1", "spine2")}
        many = _iperf(h1, h2, "10.0.2.2", 5202, "-t", "4", "-P", "16")
        moved = {s: _tx(run_dir, prefix + s)[2] - before[s] for s in before}
        total = many["end"]["sum_received"]["bytes"]
        assert len(many["end"]["streams"]) == 16
        assert all(m > 0.02 * total for m in moved.values()), (moved, total)
        # together still no more than one 10 Mb/s host link
        assert many["end"]["sum_received"]["bits_per_second"] <= CAPACITY * PAYLOAD_SHARE * 1.02
    finally:
        down = _cli("--down", "--run-dir", str(run_dir))
    assert sorted(down["namespaces_deleted"]) == sorted([f"{prefix}-h1", f"{prefix}-h2"])
    assert len(down["veths_deleted"]) == 6  # 4 cables, 2 hosts
    namespaces = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert prefix not in namespaces and prefix not in links
