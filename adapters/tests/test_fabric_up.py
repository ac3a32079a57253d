"""`cheetah fabric-up` (docs/FABRIC.md, "Bring-up") on the leaf-spine example of docs/FABRIC.md, on a
real Open vSwitch: the default forwarding is written by hand below, packets of many 5-tuples from h1
(leaf1 port 1) to h2 (leaf2 port 1) all reach h2's port and are spread over both spines by leaf1's
select group, and a REROUTE applied by the openflow adapter moves one flow to the other spine.
"""

from __future__ import annotations

import json
import socket
import struct
import time
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

from cheetah_adapters.fabric import load, parse
from cheetah_adapters.fabric_up import Forwarding, flow_texts, plan
from cheetah_adapters.ovs import FabricSwitches, Switch
from cheetah_adapters.targets.openflow import OpenflowConfig, OpenflowDevice
from tests.cheetah_up import REPO
from tests.conftest import Harness
from tests.signer import Signer
from tests.test_fabric_reroute import H1, H2, docs_example, frame

ROOT = Path(__file__).resolve().parents[2]
PATHS = {"spine1": "leaf1:2>spine1:1,spine1:2>leaf2:2", "spine2": "leaf1:3>spine2:1,spine2:2>leaf2:3"}
N_FLOWS = 40


def test_the_default_forwarding_of_the_docs_example() -> None:
    # By hand: each leaf reaches the other leaf's host over both spines (a group of its two up-ports),
    # a spine has one port down to each leaf, a leaf outputs its own host to the host's port.
    both_up = {1: (2, 3)}
    assert plan(parse(docs_example(), "docs/FABRIC.md")) == {
        "leaf1": Forwarding(both_up, {H1: "output:1", H2: "group:1"}),
        "leaf2": Forwarding(both_up, {H1: "group:1", H2: "output:1"}),
        "spine1": Forwarding({}, {H1: "output:1", H2: "output:2"}),
        "spine2": Forwarding({}, {H1: "output:1", H2: "output:2"}),
    }


def test_flows_by_address_family() -> None:
    assert flow_texts("10.0.2.2", "group:1", 100) == [
        "table=0,priority=100,ip,nw_dst=10.0.2.2,actions=group:1", "table=0,priority=100,arp,arp_tpa=10.0.2.2,actions=group:1"]
    assert flow_texts("2001:db8::2", "output:1", 7) == ["table=0,priority=7,ipv6,ipv6_dst=2001:db8::2,actions=output:1"]


def test_bad_input_is_refused_saying_why(tmp_path: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "cheetah_adapters.fabric_up", *args], capture_output=True, text=True,
                              timeout=60, cwd=ROOT / "adapters")

    bad = tmp_path / "bad.yaml"
    bad.write_text(docs_example().replace("b: spine2:2", "b: spine3:2"))
    done = run("--fabric", str(bad), "--run-dir", str(tmp_path / "a"))
    assert done.returncode == 2 and "links[3]: unknown switch 'spine3'" in done.stderr, done.stderr
    good = tmp_path / "good.yaml"
    good.write_text(docs_example())
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("")
    done = run("--fabric", str(good), "--run-dir", str(busy))
    assert done.returncode == 2 and "is not empty" in done.stderr, done.stderr
    done = run("--down", "--run-dir", str(busy))
    assert done.returncode == 2 and "holds no fabric brought up by fabric-up" in done.stderr, done.stderr
    done = run("--run-dir", str(busy))
    assert done.returncode == 2 and "--fabric FILE is required" in done.stderr, done.stderr


def test_the_fat_tree_downward_is_one_port_upward_a_group() -> None:
    # k = 4 (docs/FABRIC.md, "The k-ary fat-tree"): e1 holds h 10.0.0.2 on port 1 and h 10.0.0.3 on
    # port 2, a1/a2 on ports 3/4. Towards 10.2.0.2 (pod 2, edge e5): e1 goes up over both aggregation
    # switches, a1 over both its cores (ports 3, 4), c1 down to pod 2 by its port 3 (pod + 1), a5 down
    # to e5 by port 1, e5 out of the host's port 1.
    p = plan(_k4())
    assert p["e1"].flows["10.2.0.2"] == "group:1" and p["e1"].groups[1] == (3, 4)
    assert p["a1"].flows["10.2.0.2"] == "group:1" and p["a1"].groups[1] == (3, 4)
    assert p["c1"].flows["10.2.0.2"] == "output:3"
    assert p["a5"].flows["10.2.0.2"] == "output:1"
    assert p["e5"].flows["10.2.0.2"] == "output:1"
    assert p["e1"].flows["10.0.0.3"] == "output:2"  # its own host
    assert p["e1"].flows["10.0.1.2"] == "group:1"  # e2, same pod: up over a1 and a2, then down
    assert p["a1"].flows["10.0.1.2"] == "output:2"


def _k4() -> Any:
    """The k = 4 fat-tree from its one generator (FatTree, through ./cheetah fabric fat-tree)."""
    if not hasattr(_k4, "text"):
        done = subprocess.run([str(REPO / "cheetah"), "fabric", "fat-tree", "--k", "4", "--capacity", "1e6"],
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        _k4.text = done.stdout  # type: ignore[attr-defined]
    return parse(_k4.text, "k4")  # type: ignore[attr-defined]


def _cli(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "cheetah_adapters.fabric_up", *args], capture_output=True, text=True,
                          timeout=120, cwd=ROOT / "adapters")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _pids(run_dir: Path) -> list[int]:
    return [int((run_dir / f).read_text()) for f in ("ovsdb.pid", "vswitchd.pid")]


def _alive(pid: int) -> bool:
    try:
        return "ovs" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace")
    except OSError:
        return False


def _count(switches: FabricSwitches, switch: str, priority: int, needle: str) -> int:
    hits = [f for f in switches.flows(switch, priority) if needle in f]
    assert len(hits) == 1, (switch, hits)
    return int(re.search(r"n_packets=(\d+)", hits[0]).group(1))  # type: ignore[union-attr]


def test_bring_up_spreads_flows_over_both_spines_and_a_reroute_moves_one(
    tmp_path: Path, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    fabric_file = tmp_path / "leaf-spine.yaml"
    fabric_file.write_text(docs_example())
    run_dir = tmp_path / "ovs"
    out = _cli("--fabric", str(fabric_file), "--run-dir", str(run_dir))
    pids = _pids(run_dir)
    try:
        assert out["event"] == "up" and out["fabric"] == "leaf-spine"
        prefix = out["bridges"][0][: -len("spine1")]
        switches = FabricSwitches(Switch(run_dir.resolve(), "", "", []), prefix)
        assert switches.target_template == out["switch_target"]
        groups = switches.ofctl("-O", "OpenFlow15", "dump-groups", switches.target("leaf1"))
        assert "group_id=1,type=select,selection_method=hash,selection_method_param=3,fields(ip_src,ip_dst,nw_proto,tcp_src,tcp_dst,udp_src,udp_dst)," \
               "bucket=bucket_id:0,actions=output:2,bucket=bucket_id:1,actions=output:3" in groups, groups

        def inject(sport: int, n: int = 1) -> None:
            for _ in range(n):
                switches.ofctl("packet-out", switches.target("leaf1"), f"in_port=1 packet={frame(H1, H2, sport, 5201)} actions=table")

        def on_spines() -> dict[str, int]:
            return {s: _count(switches, s, 100, f"ip,nw_dst={H2}") for s in PATHS}

        # N_FLOWS distinct 5-tuples (source ports 41000..), one packet each. Every one reaches h2's port
        # on leaf2. The hash is fixed for a given 5-tuple, so which spine a flow takes is not random per
        # run; but were the hash fair and independent per flow, all N on one spine has probability
        # 2 * 2**-N = 2**-39 (about 1.8e-12) for N = 40: each spine must see some.
        for i in range(N_FLOWS):
            inject(41000 + i)
        seen = on_spines()
        assert seen["spine1"] + seen["spine2"] == N_FLOWS
        assert seen["spine1"] > 0 and seen["spine2"] > 0, seen
        assert _count(switches, "leaf2", 100, f"ip,nw_dst={H2}") == N_FLOWS

        # A flow's spine, by its counters: 3 packets of it move exactly one spine's counter by 3.
        inject(41000, 3)
        after = on_spines()
        took = [s for s in PATHS if after[s] - seen[s] == 3]
        assert len(took) == 1 and sum(after.values()) - sum(seen.values()) == 3, (seen, after)
        other = "spine2" if took[0] == "spine1" else "spine1"

        device = OpenflowDevice(OpenflowConfig("", fabric=load(fabric_file), fabric_switch_target=switches.target_template))
        h = harness(device)
        assert h.adapter.reconcile()["in_force"] == 0
        ack = h.give(signer.sign(signer.flow("up-1", H1, H2, 41000, 5201, action="REROUTE", path=PATHS[other])))
        assert h.status(ack) == "APPLIED", ack.detail
        inject(41000, 5)
        moved = on_spines()
        assert moved[took[0]] == after[took[0]]  # its old spine saw none of the 5
        assert moved[other] == after[other]  # its new spine's default flow neither: the reroute flow took them
        assert len(switches.flows(other, 40000)) == 1 and "n_packets=5" in switches.flows(other, 40000)[0]
        assert _count(switches, "leaf2", 100, f"ip,nw_dst={H2}") == N_FLOWS + 3 + 5  # all reached h2's port
        h.close()
    finally:
        down_out = _cli("--down", "--run-dir", str(run_dir))
    assert down_out["event"] == "down" and sorted(down_out["pids_stopped"]) == sorted(pids)
    assert len(down_out["bridges_deleted"]) == 4
    assert not any(_alive(p) for p in pids)
    assert not (run_dir / "fabric-up.json").exists()


def test_a_k4_fat_tree_spreads_flows_over_all_four_cores(tmp_path: Path) -> None:
    # h1 (10.0.0.2, e1 port 1, pod 0) to h16 (10.3.1.3, e8 port 2, pod 3): 4 equal-cost paths, one per
    # core (docs/FABRIC.md). Two select groups in series (e1 then a1 or a2): each switch seeds its
    # hash differently, else a flow's bucket index repeats at the aggregation switch and only c1 and
    # c4 carry traffic (polarization; measured so: c2 = c3 = 0). With a fair hash, one core getting
    # none of N flows has probability at most 4 * (3/4)**N, about 4e-8 for N = 64.
    from cheetah_adapters.fabric_up import down, up

    switches = up(_k4(), tmp_path / "ovs", detach=False)
    try:
        n = 64
        for i in range(n):
            switches.ofctl("packet-out", switches.target("e1"),
                           f"in_port=1 packet={frame('10.0.0.2', '10.3.1.3', 42000 + i, 5201)} actions=table")
        cores = {c: _count(switches, c, 100, "ip,nw_dst=10.3.1.3") for c in ("c1", "c2", "c3", "c4")}
        assert sum(cores.values()) == n and all(v > 0 for v in cores.values()), cores
        assert _count(switches, "e8", 100, "ip,nw_dst=10.3.1.3") == n  # every one reached h16's edge switch
        # and left by h16's port (2): the flow there outputs to it
        assert [f for f in switches.flows("e8", 100) if "ip,nw_dst=10.3.1.3" in f][0].endswith("actions=output:2")
    finally:
        out = down(tmp_path / "ovs")
    assert len(out["bridges_deleted"]) == 20 and len(out["pids_stopped"]) == 2  # type: ignore[arg-type]


def _sflow(datagram: bytes) -> tuple[str, list[dict[str, int]]]:
    """The agent address and the samples of an sFlow v5 datagram (sflow_version_5.txt, by hand: only
    what this test reads). Flow samples: in/out ifIndex and rate; counter samples: the generic interface
    record's ifIndex and ifOutOctets."""
    version, address_type = struct.unpack_from("!II", datagram, 0)
    assert version == 5 and address_type == 1, (version, address_type)
    agent = ".".join(str(b) for b in datagram[8:12])
    n = struct.unpack_from("!I", datagram, 24)[0]
    at, samples = 28, []
    for _ in range(n):
        fmt, length = struct.unpack_from("!II", datagram, at)
        body = datagram[at + 8: at + 8 + length]
        at += 8 + length
        if fmt == 1:  # flow sample: seq, source id, rate, pool, drops, input, output
            _, _, rate, _, _, inp, out = struct.unpack_from("!7I", body, 0)
            samples.append({"flow": 1, "rate": rate, "in": inp, "out": out})
        elif fmt == 2:  # counter sample: seq, source id, records
            records, p = struct.unpack_from("!I", body, 8)[0], 12
            for _ in range(records):
                rfmt, rlen = struct.unpack_from("!II", body, p)
                if rfmt == 1:  # generic interface counters: ifIndex ... ifOutOctets at offset 56
                    samples.append({"counter": 1, "if_index": struct.unpack_from("!I", body, p + 8)[0],
                                    "out_octets": struct.unpack_from("!Q", body, p + 8 + 56)[0]})
                p += 8 + rlen
    return agent, samples


def _tx_bytes(switches: FabricSwitches, switch: str) -> dict[int, int]:
    """Port -> transmitted bytes, from `ovs-ofctl dump-ports` (OVS's own port counters)."""
    out = switches.ofctl("dump-ports", switches.target(switch))
    return {int(m.group(1)): int(m.group(2))
            for m in re.finditer(r"port\s+(\d+):.*?tx pkts=\d+, bytes=(\d+)", out, re.DOTALL)}


def test_sflow_names_every_port_of_the_map_and_samples_each_hop(tmp_path: Path) -> None:
    # The map fabric-up prints must name every switch port once, by a kernel ifindex; OVS's datagrams
    # (read by hand above, not by the collector) must carry counters for each of them, and flow samples
    # taken at every switch a packet crosses, in and out naming the ports it took (docs/FABRIC.md, "sFlow").
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", 0))
    receiver.settimeout(0.5)
    fabric_file = tmp_path / "leaf-spine.yaml"
    fabric_file.write_text(docs_example())
    run_dir = tmp_path / "ovs"
    out = _cli("--fabric", str(fabric_file), "--run-dir", str(run_dir), "--sflow", f"127.0.0.1:{receiver.getsockname()[1]}")
    try:
        sflow = out["sflow"]
        assert (sflow["sampling"], sflow["polling"]) == (10, 1)
        by_index = {row["if_index"]: (row["switch"], row["port"]) for row in sflow["map"]}
        assert sorted(by_index.values()) == sorted((sw, p) for sw, ports in
                                                   [("leaf1", [1, 2, 3]), ("leaf2", [1, 2, 3]), ("spine1", [1, 2]), ("spine2", [1, 2])]
                                                   for p in ports)
        assert {row["agent"] for row in sflow["map"]} == {"127.0.0.1"}
        assert json.loads((run_dir / "sflow-map.json").read_text()) == sflow["map"]
        prefix = out["bridges"][0][: -len("spine1")]
        switches = FabricSwitches(Switch(run_dir.resolve(), "", "", []), prefix)
        n = 300
        for i in range(n):  # 4 flows, 75 packets each
            switches.ofctl("packet-out", switches.target("leaf1"), f"in_port=1 packet={frame(H1, H2, 43000 + i % 4, 5201)} actions=table")

        def expected_tx() -> dict[tuple[str, int], int]:
            return {(sw, p): b for sw in ("leaf1", "spine1", "spine2") for p, b in _tx_bytes(switches, sw).items()}

        # veths deliver asynchronously: wait until every packet left leaf1 and reached leaf2's up-ports
        deadline = time.monotonic() + 60
        while sum(expected_tx()[("leaf1", p)] for p in (2, 3)) < n * 54 or \
                sum(expected_tx()[(s, 2)] for s in ("spine1", "spine2")) < n * 54:
            assert time.monotonic() < deadline, expected_tx()
            time.sleep(0.2)
        tx = expected_tx()
        counters: dict[tuple[str, int], int] = {}
        hops: list[tuple[tuple[str, int], tuple[str, int]]] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(counters.get(k) != tx[k] for k in tx if k[1] != 65534):
            try:
                agent, samples = _sflow(receiver.recv(65535))
            except socket.timeout:
                continue
            assert agent == "127.0.0.1"
            for s in samples:
                if "counter" in s and s["if_index"] in by_index:
                    counters[by_index[s["if_index"]]] = s["out_octets"]
                elif "flow" in s:
                    assert s["rate"] == 10
                    hops.append((by_index[s["in"]], by_index[s["out"]]))
        # the sFlow counter of each switch port's transmitted bytes equals OVS's port counter
        assert {k: counters.get(k) for k in tx if k[1] != 65534} == {k: v for k, v in tx.items() if k[1] != 65534}
        # each sample names the ports of one hop of the path h1 -> h2: h1's port to an up-port of leaf1,
        # a spine's port 1 to its port 2, an up-port of leaf2 to h2's port
        allowed = {(("leaf1", 1), ("leaf1", 2)), (("leaf1", 1), ("leaf1", 3)), (("spine1", 1), ("spine1", 2)),
                   (("spine2", 1), ("spine2", 2)), (("leaf2", 2), ("leaf2", 1)), (("leaf2", 3), ("leaf2", 1))}
        assert hops and set(hops) <= allowed, set(hops) - allowed
        # 1 in 10 of 300 packets at each of 3 switches: about 90 samples (at least one per switch)
        assert {h[0][0] for h in hops} >= {"leaf1", "leaf2"} and {h[0][0] for h in hops} & {"spine1", "spine2"}, hops
    finally:
        receiver.close()
        down_out = _cli("--down", "--run-dir", str(run_dir))
    assert len(down_out["veths_deleted"]) == 4
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert not any(v in links for v in down_out["veths_deleted"])
