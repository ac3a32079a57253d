"""The flowspec adapter: its GoBGP speaker announces FlowSpec routes to a second speaker (the
operator's router); the router's RIB is read with the router's own CLI, as text."""

from __future__ import annotations

import re
import socket
import time
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

from cheetah_adapters.targets.flowspec import FlowspecConfig, FlowspecDevice
from tests.bgp_speakers import BIN, Speakers, start_speakers
from tests.cheetah_up import free_ports
from tests.conftest import Harness
from tests.refusals import assert_refused_and_nothing_applied, refused_commands
from tests.signer import Signer, now_ms


@pytest.fixture
def speakers(tmp_path: Path) -> Iterator[Speakers]:
    started = start_speakers(tmp_path, free_ports(*[socket.SOCK_STREAM] * 4))
    try:
        yield started
    finally:
        started.stop()


def router_routes(speakers: Speakers, family: str) -> set[str]:
    """'<nlri> <extended communities>' per route held by the router, from its table output."""
    return routes_in(speakers.router("global", "rib", "-a", family))


def routes_in(table: str) -> set[str]:
    """'<nlri> <extended communities>' per route of a `gobgp global rib` table."""
    routes = set()
    for line in table.splitlines()[1:]:
        nlri, comms = re.match(r"^\*>\s+((?:\[[^\]]*\])+)", line), re.search(r"Extcomms: (\[[^\]]*\])", line)
        if nlri and comms:
            routes.add(f"{nlri.group(1)} {comms.group(1)}")
    return routes


def wait_for(speakers: Speakers, family: str, expected: set[str], timeout: float = 15) -> None:
    deadline = time.monotonic() + timeout
    while (held := router_routes(speakers, family)) != expected:
        assert time.monotonic() < deadline, f"router holds {held}, expected {expected}"
        time.sleep(0.05)


def test_router_receives_and_loses_exactly_the_commanded_routes(
    speakers: Speakers, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    h = harness(FlowspecDevice(FlowspecConfig(str(BIN / "gobgp"), speakers.adapter_api)))
    h.adapter.reconcile()
    commands = [
        signer.flow("s1", "10.1.0.5", "10.2.0.9", 40000, 5201),  # SCAVENGER -> traffic-marking CS1
        signer.prefixes("m1", "10.3.0.0/24", "10.4.0.0/24", action="DSCP_MARK", dscp=46),
        signer.prefixes("v1", "10.5.0.0/24", "10.6.0.0/16", action="REDIRECT_VRF", path="65000:100"),
        signer.prefixes("r1", "10.7.0.0/24", "10.8.0.0/24", action="RATE_LIMIT", rate_limit_bps=8e6),
        signer.flow("s6", "2001:db8::1", "2001:db8:1::2", 0, 443, proto=6),
    ]
    for command in commands:
        ack = h.give(signer.sign(command))
        assert h.status(ack) == "APPLIED", ack
    v4 = {
        "[destination: 10.2.0.9/32][source: 10.1.0.5/32][protocol: ==tcp][destination-port: ==5201][source-port: ==40000] [remark: 8]",
        "[destination: 10.4.0.0/24][source: 10.3.0.0/24] [remark: 46]",
        "[destination: 10.6.0.0/16][source: 10.5.0.0/24] [redirect: 65000:100]",
        "[destination: 10.8.0.0/24][source: 10.7.0.0/24] [rate: 1000000.000000]",  # 8 Mb/s = 1e6 bytes/s
    }
    wait_for(speakers, "ipv4-flowspec", v4)
    wait_for(speakers, "ipv6-flowspec", {"[destination: 2001:db8:1::2/128/0][source: 2001:db8::1/128/0][protocol: ==tcp][destination-port: ==443] [remark: 8]"})

    assert h.status(h.give(signer.sign(signer.remove("v1-end", commands[2])))) == "APPLIED"
    wait_for(speakers, "ipv4-flowspec", {r for r in v4 if "redirect" not in r})

    h.adapter.clock = lambda: now_ms() + 601_000  # past every rule's expiry
    assert h.adapter.expire() == 4
    wait_for(speakers, "ipv4-flowspec", set())
    wait_for(speakers, "ipv6-flowspec", set())


def test_refusals_and_restart_reconcile(speakers: Speakers, harness: Callable[[Any], Harness], signer: Signer) -> None:
    device = FlowspecDevice(FlowspecConfig(str(BIN / "gobgp"), speakers.adapter_api))
    h = harness(device)
    h.adapter.reconcile()
    for command, reason in (
        (signer.prefixes("bad-rt", "10.5.0.0/24", "10.6.0.0/24", action="REDIRECT_VRF", path="vrf-blue"), "unsupported_action"),
        (signer.prefixes("bad-dscp", "10.5.0.0/24", "10.6.0.0/24", action="DSCP_MARK", dscp=64), "unsupported_action"),
        (signer.prefixes("zero", "10.5.0.0/24", "10.6.0.0/24", action="RATE_LIMIT", rate_limit_bps=0), "unsupported_action"),
        (signer.flow("path", "10.1.0.1", "10.2.0.2", 1, 2, action="REDIRECT_PATH", path="p2"), "unsupported_action"),
    ):
        ack = h.give(signer.sign(command))
        assert h.status(ack) == "REJECTED" and ack.detail.startswith(reason), ack.detail
    keep = signer.prefixes("k1", "10.9.0.0/24", "10.10.0.0/24", action="DSCP_MARK", dscp=10)
    kept = signer.sign(keep)
    assert h.status(h.give(kept)) == "APPLIED"
    h.close()
    # While the adapter is down someone announces a route of their own in its speaker.
    device.gobgp("global", "rib", "add", "-a", "ipv4-flowspec", "match", "destination", "192.0.2.0/24", "then", "discard")
    again = harness(device)
    again.give(kept)  # the retained topic
    assert again.adapter.reconcile() == {"in_force": 1, "installed": 0, "removed": 1, "failed": 0}
    wait_for(speakers, "ipv4-flowspec", {"[destination: 10.10.0.0/24][source: 10.9.0.0/24] [remark: 10]"})


def test_no_expiry_future_and_untargeted_remove_are_refused_and_change_nothing(
    speakers: Speakers, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    device = FlowspecDevice(FlowspecConfig(str(BIN / "gobgp"), speakers.adapter_api))
    h = harness(device)
    h.adapter.reconcile()
    keep = signer.flow("k1", "10.1.0.5", "10.2.0.9", 40000, 5201)
    raw = signer.sign(keep)
    assert h.status(h.give(raw)) == "APPLIED"
    route = "[destination: 10.2.0.9/32][source: 10.1.0.5/32][protocol: ==tcp][destination-port: ==5201][source-port: ==40000] [remark: 8]"
    wait_for(speakers, "ipv4-flowspec", {route})

    def speaker_rib() -> set[str]:  # the adapter's own speaker, read with the gobgp CLI
        return routes_in(device.gobgp("global", "rib", "-a", "ipv4-flowspec"))

    refused = refused_commands(signer, keep, "10.1.0.5", "10.2.0.9")
    assert_refused_and_nothing_applied(h, refused, speaker_rib, harness, lambda: device, [raw])
    assert speaker_rib() == {route}
    wait_for(speakers, "ipv4-flowspec", {route})
