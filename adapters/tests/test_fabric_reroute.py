"""The openflow adapter applies REROUTE commands (docs/FABRIC.md, "Reroute commands") on a real Open
vSwitch fabric: the leaf-spine example of docs/FABRIC.md (the file FabricFileTest also loads), each
switch a netdev bridge, each cable a patch port pair, each host an internal port.

Expected values are written by hand from that example: between leaf1 (h1 10.0.1.2 on port 1) and
leaf2 (h2 10.0.2.2 on port 1), the path through spine2 is leaf1:3>spine2:1,spine2:2>leaf2:3, so a
reroute puts one flow on leaf1 (output:3) and one on spine2 (output:2), none on spine1 or leaf2.
"""

from __future__ import annotations

import hashlib
import re
import struct
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from cheetah_adapters.fabric import Fabric, FabricError, parse
from cheetah_adapters.targets.openflow import OpenflowConfig, OpenflowDevice
from tests.conftest import Harness
from tests.ovs_switch import FabricSwitches, start_fabric
from tests.signer import Signer

ROOT = Path(__file__).resolve().parents[2]
VIA_SPINE2 = "leaf1:3>spine2:1,spine2:2>leaf2:3"
H1, H2 = "10.0.1.2", "10.0.2.2"
REROUTE_PRIORITY, DEFAULT_PRIORITY = 40000, 100
# The fabric's own forwarding (ECMP stands in as one fixed choice: everything via spine1).
DEFAULT_FLOWS = {
    "leaf1": {H2: 2, H1: 1}, "spine1": {H2: 2, H1: 1}, "spine2": {H2: 2, H1: 1}, "leaf2": {H2: 1, H1: 2},
}


def docs_example() -> str:
    """The ```yaml block of docs/FABRIC.md, found the way FabricFileTest finds it."""
    m = re.search(r"```yaml\n(.*?)```", (ROOT / "docs" / "FABRIC.md").read_text(), re.DOTALL)
    assert m, "docs/FABRIC.md has a ```yaml example"
    return m.group(1)


def test_the_docs_example_loads_and_paths_are_read_on_it() -> None:
    f = parse(docs_example(), "docs/FABRIC.md")
    assert f.layers == {"spine1": "core", "spine2": "core", "leaf1": "edge", "leaf2": "edge"}
    assert f.cables[("leaf1", 3)] == ("spine2", 1) and f.cables[("spine2", 1)] == ("leaf1", 3)
    assert len(f.cables) == 8  # 4 cables, both ends
    assert f.hosts == {H1: ("leaf1", 1), H2: ("leaf2", 1)}
    assert [(h.switch, h.out_port, h.to_switch) for h in f.path(VIA_SPINE2)] == [("leaf1", 3, "spine2"), ("spine2", 2, "leaf2")]
    for bad, says in (
        ("leaf1:3>spine1:1", "is not a cable"),  # port 3 of leaf1 goes to spine2
        ("leaf1:2>spine1:1,spine2:2>leaf2:3", "starts at 'spine2', not at 'spine1'"),
        ("leaf1:2>spine1:1,spine1:1>leaf1:2", "crosses switch 'leaf1' twice"),
        ("leaf1-3>spine2:1", "is not a port"),
        ("", "the path is empty"),
    ):
        with pytest.raises(FabricError, match=re.escape(says)):
            f.path(bad)


@pytest.mark.parametrize("old, new, says", [
    ("b: spine2:2", "b: spine3:2", "docs/FABRIC.md: links[3]: unknown switch 'spine3'"),
    ("b: spine1:1", "b: leaf2:1", "hosts[1]: port leaf2:1 is already used by docs/FABRIC.md: links[0]"),
    ("a: leaf1:2, b: spine1:1", "a: leaf1:2, b: leaf1:1", "connects switch 'leaf1' to itself"),
    ("capacity_bps: 10e6}\n  - {a: leaf1:3", "capacity_bps: -1}\n  - {a: leaf1:3", "links[0]: capacity_bps -1 must be a positive number"),
    ("address: 10.0.2.2", "address: h2.example", "hosts[1]: address 'h2.example' is not an IP address"),
    ("edge: leaf2:1", "edge: spine2:2", "port spine2:2 is already used"),
    ("layer: core, ports: [1, 2]}\n  - {name: spine2", "layer: kore, ports: [1, 2]}\n  - {name: spine2", "layer 'kore' is not one of"),
    ("links:", "cables:", "unknown field 'cables'"),
    ("links:", "links: [", "is not valid YAML (line"),
])
def test_a_wrong_fabric_file_is_refused_saying_where(old: str, new: str, says: str) -> None:
    text = docs_example()
    assert old in text
    with pytest.raises(FabricError, match=re.escape(says)):
        parse(text.replace(old, new, 1), "docs/FABRIC.md")


@pytest.fixture
def fabric_file(tmp_path: Path) -> Path:
    path = tmp_path / "leaf-spine.yaml"
    path.write_text(docs_example())
    return path


@pytest.fixture
def fabric(tmp_path: Path) -> Iterator[FabricSwitches]:
    f: Fabric = parse(docs_example(), "docs/FABRIC.md")
    work = tmp_path / "ovs"
    work.mkdir()
    cables = sorted({tuple(sorted([a, b])) for a, b in f.cables.items()})
    started = start_fabric(work, {name: list(ports) for name, ports in f.ports.items()},
                           [(a[0], a[1], b[0], b[1]) for a, b in cables], list(f.hosts.values()))
    try:
        for switch, routes in DEFAULT_FLOWS.items():
            for dst, port in routes.items():
                started.ofctl("add-flow", started.target(switch), f"priority={DEFAULT_PRIORITY},ip,nw_dst={dst},actions=output:{port}")
        yield started
    finally:
        started.stop()


def frame(src: str, dst: str, sport: int, dport: int) -> str:
    """An Ethernet + IPv4 + TCP SYN, hex (OVS matches it; checksums are not checked)."""
    def ip(a: str) -> bytes:
        return bytes(int(x) for x in a.split("."))
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40, 1, 0, 64, 6, 0, ip(src), ip(dst))
    tcp = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x02, 65535, 0, 0)
    return (eth + iph + tcp).hex()


def send(fabric: FabricSwitches, n: int, sport: int) -> None:
    """n packets of h1 -> h2 entering leaf1 at h1's port, through the flow tables and the patch cables."""
    for _ in range(n):
        fabric.ofctl("packet-out", fabric.target("leaf1"), f"in_port=1 packet={frame(H1, H2, sport, 5201)} actions=table")


def packets(fabric: FabricSwitches, switch: str, priority: int, needle: str) -> int:
    hits = [f for f in fabric.flows(switch, priority) if needle in f]
    assert len(hits) == 1, (switch, hits)
    return int(re.search(r"n_packets=(\d+)", hits[0]).group(1))  # type: ignore[union-attr]


def reroutes(fabric: FabricSwitches) -> dict[str, list[str]]:
    return {sw: fabric.flows(sw, REROUTE_PRIORITY) for sw in DEFAULT_FLOWS}


def cookie_of(command_id: str) -> str:
    """docs/ADAPTERS.md: tag byte 0xc8, then the first 7 bytes of SHA-256 of the command id."""
    return "0xc8" + hashlib.sha256(command_id.encode()).hexdigest()[:14]


def expected(command_id: str, n: int = 0) -> dict[str, list[str]]:
    match = f"priority={REROUTE_PRIORITY},tcp,nw_src={H1},nw_dst={H2},tp_src=40001,tp_dst=5201"
    on = {"leaf1": 3, "spine2": 2}
    return {sw: [f"cookie={cookie_of(command_id)}, n_packets={n}, {match} actions=output:{on[sw]}"] if sw in on else []
            for sw in DEFAULT_FLOWS}


def test_a_reroute_is_applied_along_its_path_removed_and_reconciled(
    fabric: FabricSwitches, fabric_file: Path, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    from cheetah_adapters.fabric import load

    device = OpenflowDevice(OpenflowConfig("", fabric=load(fabric_file), fabric_switch_target=fabric.target_template))
    h = harness(device)
    assert h.adapter.reconcile()["in_force"] == 0
    send(fabric, 4, 40001)  # before: the default path, via spine1
    assert packets(fabric, "spine1", DEFAULT_PRIORITY, f"nw_dst={H2}") == 4
    assert packets(fabric, "spine2", DEFAULT_PRIORITY, f"nw_dst={H2}") == 0

    move = signer.flow("rr-1", H1, H2, 40001, 5201, action="REROUTE", path=VIA_SPINE2)
    raw = signer.sign(move)
    ack = h.give(raw)
    assert h.status(ack) == "APPLIED", ack.detail
    assert reroutes(fabric) == expected("rr-1")
    send(fabric, 5, 40001)  # the moved flow now crosses spine2
    send(fabric, 3, 40002)  # another flow between the same hosts stays on the default path
    assert reroutes(fabric) == expected("rr-1", 5)  # 5 packets through leaf1's and spine2's reroute flows
    assert packets(fabric, "spine2", DEFAULT_PRIORITY, f"nw_dst={H2}") == 0  # the reroute flow took them first
    assert packets(fabric, "spine1", DEFAULT_PRIORITY, f"nw_dst={H2}") == 4 + 3
    assert packets(fabric, "leaf2", DEFAULT_PRIORITY, f"nw_dst={H2}") == 4 + 5 + 3  # every packet reached h2's port

    assert h.status(h.give(raw)) == "DUPLICATE"  # re-delivery: one rule set
    assert reroutes(fabric) == expected("rr-1", 5)

    for bad_path, says in ((("leaf1:3>spine1:1"), "not a cable"), ("leaf2:3>spine2:2,spine2:1>leaf1:3", "starts at 'leaf2'")):
        refused = h.give(signer.sign(signer.flow(f"bad-{len(h.acks)}", H1, H2, 40009, 5201, action="REROUTE", path=bad_path)))
        assert h.status(refused) == "REJECTED" and says in refused.detail, refused.detail
    assert reroutes(fabric) == expected("rr-1", 5)
    h.close()

    # Restart with the fabric damaged: spine2's flow deleted, leaf1's pointed at the wrong port, a stale
    # reroute of an unknown command on spine1. Reconcile puts back exactly rr-1's flows.
    fabric.ofctl("del-flows", fabric.target("spine2"), f"cookie={cookie_of('rr-1')}/-1")
    fabric.ofctl("mod-flows", fabric.target("leaf1"), f"cookie={cookie_of('rr-1')}/-1,actions=output:2")
    fabric.ofctl("add-flow", fabric.target("spine1"), f"cookie={cookie_of('gone')},priority={REROUTE_PRIORITY},ip,nw_dst=192.0.2.1,actions=drop")
    again = harness(device)
    assert again.adapter.reconcile() == {"in_force": 1, "installed": 1, "removed": 2, "failed": 0}
    assert reroutes(fabric) == expected("rr-1")
    assert again.adapter.reconcile() == {"in_force": 1, "installed": 0, "removed": 0, "failed": 0}  # nothing to do twice

    ack = again.give(signer.sign(signer.remove("rr-1-end", move)))
    assert again.status(ack) == "APPLIED" and ack.detail == "removed rule rr-1"
    assert reroutes(fabric) == {sw: [] for sw in DEFAULT_FLOWS}
    send(fabric, 2, 40001)  # back on the default path
    assert packets(fabric, "spine1", DEFAULT_PRIORITY, f"nw_dst={H2}") == 4 + 3 + 2
    assert packets(fabric, "spine2", DEFAULT_PRIORITY, f"nw_dst={H2}") == 0


def test_a_reroute_is_all_or_nothing_and_a_path_gone_from_the_file_fails_at_reconcile(
    fabric: FabricSwitches, fabric_file: Path, harness: Callable[[Any], Harness], signer: Signer, tmp_path: Path,
) -> None:
    from cheetah_adapters.fabric import load

    device = OpenflowDevice(OpenflowConfig("", fabric=load(fabric_file), fabric_switch_target=fabric.target_template))
    h = harness(device)
    h.adapter.reconcile()
    move = signer.flow("rr-2", H1, H2, 40001, 5201, action="REROUTE", path=VIA_SPINE2)
    assert h.status(h.give(signer.sign(move))) == "APPLIED"
    h.close()

    # Restarted with a file where leaf1's port 3 has no cable: the reroute kept in the state has no
    # path any more. Reconcile takes its flows off and answers it FAILED (not a crash).
    text = fabric_file.read_text()
    cut = "  - {a: leaf1:3, b: spine2:1, capacity_bps: 10e6}\n"
    assert cut in text
    changed = tmp_path / "changed.yaml"
    changed.write_text(text.replace(cut, ""))
    moved = OpenflowDevice(OpenflowConfig("", fabric=load(changed), fabric_switch_target=fabric.target_template))
    again = harness(moved)
    assert again.adapter.reconcile() == {"in_force": 1, "installed": 0, "removed": 1, "failed": 1}
    assert reroutes(fabric) == {sw: [] for sw in DEFAULT_FLOWS}
    again.close()

    # A switch that fails mid-path (spine2's bridge gone): nothing stays on the switches before it.
    third = harness(device)
    third.adapter.reconcile()
    fabric.daemons.vsctl("del-br", fabric.prefix + "spine2")
    ack = third.give(signer.sign(signer.flow("rr-3", H1, H2, 40001, 5201, action="REROUTE", path=VIA_SPINE2)))
    assert third.status(ack) == "FAILED" and "spine2" in ack.detail, ack.detail
    assert {sw: fabric.flows(sw, REROUTE_PRIORITY) for sw in ("leaf1", "spine1", "leaf2")} == {"leaf1": [], "spine1": [], "leaf2": []}


def test_a_reroute_expires_by_itself(fabric: FabricSwitches, fabric_file: Path, harness: Callable[[Any], Harness], signer: Signer) -> None:
    import time

    from cheetah_adapters.fabric import load

    device = OpenflowDevice(OpenflowConfig("", fabric=load(fabric_file), fabric_switch_target=fabric.target_template))
    h = harness(device)
    h.adapter.reconcile()
    move = signer.flow("rr-4", H1, H2, 40001, 5201, action="REROUTE", path=VIA_SPINE2, ttl_ms=3000)
    assert h.status(h.give(signer.sign(move))) == "APPLIED"
    assert reroutes(fabric) == expected("rr-4")
    while time.time() * 1000 <= move.expires_ms:  # the command's own deadline, not a guessed sleep
        time.sleep(0.1)
    assert h.adapter.expire() == 1
    assert reroutes(fabric) == {sw: [] for sw in DEFAULT_FLOWS}
