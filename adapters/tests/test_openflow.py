"""The openflow adapter against Open vSwitch (userspace datapath): the flow table matches the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from cheetah_adapters.targets.openflow import OpenflowConfig, OpenflowDevice
from tests.conftest import Harness
from tests.ovs_switch import Switch, start_switch
from tests.refusals import assert_refused_and_nothing_applied, refused_commands
from tests.signer import Signer


@pytest.fixture
def switch(tmp_path: Path) -> Iterator[Switch]:
    work = tmp_path / "ovs"
    work.mkdir()
    started = start_switch(work)
    try:
        yield started
    finally:
        started.stop()


def without_cookie(flows: list[str]) -> list[str]:
    return sorted(", ".join(part for part in flow.split(", ") if not part.startswith("cookie=")) for flow in flows)


def test_flow_table_follows_the_commands(switch: Switch, harness: Callable[[Any], Harness], signer: Signer) -> None:
    device = OpenflowDevice(OpenflowConfig(switch.target, scavenger_queue=3))
    h = harness(device)
    h.adapter.reconcile()
    scav = signer.flow("s1", "10.1.0.5", "10.2.0.9", 40000, 5201)
    mark = signer.prefixes("m1", "10.3.0.0/24", "10.4.0.0/16", action="DSCP_MARK", dscp=46)
    path = signer.flow("p1", "2001:db8::1", "2001:db8::2", 5000, 6000, proto=17, action="REDIRECT_PATH", path=switch.port)
    for command in (scav, mark, path):
        assert h.status(h.give(signer.sign(command))) == "APPLIED"
    assert without_cookie(switch.flows()) == sorted([
        "priority=40000,tcp,nw_src=10.1.0.5,nw_dst=10.2.0.9,tp_src=40000,tp_dst=5201 actions=set_queue:3,NORMAL",
        "priority=40000,ip,nw_src=10.3.0.0/24,nw_dst=10.4.0.0/16 actions=set_field:46->ip_dscp,NORMAL",
        f"priority=40000,udp6,ipv6_src=2001:db8::1,ipv6_dst=2001:db8::2,tp_src=5000,tp_dst=6000 actions=output:{switch.port}",
    ])
    assert all(flow.startswith("cookie=0xc7") for flow in switch.flows())

    assert h.status(h.give(signer.sign(signer.remove("m1-end", mark)))) == "APPLIED"
    assert len(switch.flows()) == 2 and not any("ip_dscp" in f for f in switch.flows())

    bad = signer.flow("b1", "10.1.0.5", "10.2.0.9", 1, 2, action="REDIRECT_PATH", path="eth0;rm")
    assert h.status(h.give(signer.sign(bad))) == "REJECTED"
    h.close()

    # Restart: one flow deleted by hand, one foreign flow with the adapter's cookie tag added.
    switch_flows = switch.flows()
    device.ofctl("del-flows", switch.target, "ipv6")
    device.ofctl("add-flow", switch.target, "cookie=0xc700000000000001,priority=40000,ip,nw_dst=192.0.2.1,actions=drop")
    again = harness(device)
    assert again.adapter.reconcile() == {"in_force": 2, "installed": 1, "removed": 1, "failed": 0}
    assert switch.flows() == switch_flows


def test_no_expiry_future_and_untargeted_remove_are_refused_and_change_nothing(
    switch: Switch, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    device = OpenflowDevice(OpenflowConfig(switch.target, scavenger_queue=3))
    h = harness(device)
    h.adapter.reconcile()
    keep = signer.flow("k1", "10.1.0.5", "10.2.0.9", 40000, 5201)
    raw = signer.sign(keep)
    assert h.status(h.give(raw)) == "APPLIED"
    assert len(switch.flows()) == 1
    refused = refused_commands(signer, keep, "10.1.0.5", "10.2.0.9")
    assert_refused_and_nothing_applied(h, refused, switch.flows, harness, lambda: device, [raw])
    assert without_cookie(switch.flows()) == ["priority=40000,tcp,nw_src=10.1.0.5,nw_dst=10.2.0.9,tp_src=40000,tp_dst=5201 actions=set_queue:3,NORMAL"]
