"""The incast adapter target: signed RWND_CAP commands guard receivers on a real port, and only those.

The guard's data path is tested in test_incast_guard.py; here the commands' way to it: acks,
refusals, the port buffer read from the bottleneck qdisc itself, and reconcile after a restart.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from cheetah_adapters.incast.guard import Guard
from cheetah_adapters.targets.incast import IncastConfig, IncastDevice
from tests.conftest import Harness
from tests.incast_topology import Topology, topology  # noqa: F401 (fixture)
from tests.namespaces import sh
from tests.signer import Signer, mapped, now_ms

RECEIVER = "10.78.1.2"


def rwnd_cap(signer: Signer, command_id: str, receiver: str = RECEIVER, length: int = 128, rwnd_bytes: int = 0, **extra: Any) -> Any:
    issued = now_ms()
    return signer.m.command(
        command_id=command_id, issued_ms=issued, expires_ms=issued + 600_000, device_id=signer.device_id,
        dst_prefix=mapped(receiver), dst_prefix_len=length, action=signer.m.action_number("RWND_CAP"),
        rwnd_bytes=rwnd_bytes, reason="incast guard", key_id=signer.key_id, **extra,
    )


@pytest.fixture
def port(topology: Topology) -> Topology:  # noqa: F811
    """The receiver's port with a shallow bottleneck: tbf 100 Mbit/s, a 64000-byte queue."""
    sh("tc", "-n", topology.s, "qdisc", "add", "dev", "s-r", "root", "tbf", "rate", "100mbit", "burst", "16kb", "limit", "64000")
    return topology


def started(harness: Callable[[Any], Harness], t: Topology) -> Harness:
    h = harness(IncastDevice(IncastConfig("s-r", t.s, mss=1000, sample_interval_s=0)))
    h.adapter.reconcile()
    return h


def detach(t: Topology) -> None:
    Guard.detach_port("s-r", t.s)


def test_rwnd_cap_guards_the_receiver_with_the_queue_limit_then_remove_ends_it(
    port: Topology, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    h = started(harness, port)
    device = h.adapter.device
    assert isinstance(device, IncastDevice) and device.guard is not None
    try:
        assert device.queue_limit == 64000  # tbf's limit, as given to tc above
        add = rwnd_cap(signer, "g1")
        ack = h.give(signer.sign(add))
        assert (h.status(ack), ack.adapter) == ("APPLIED", "incast")
        settings = device.guard.receivers()
        assert {a: (s.buffer_bytes, s.mss) for a, s in settings.items()} == {RECEIVER: (64000, 1000)}
        explicit = h.give(signer.sign(rwnd_cap(signer, "g2", receiver="10.78.1.3", rwnd_bytes=256_000)))
        assert h.status(explicit) == "APPLIED"
        assert device.guard.receivers()["10.78.1.3"].buffer_bytes == 256_000
        removed = h.give(signer.sign(signer.remove("g1-end", add)))
        assert h.status(removed) == "APPLIED"
        assert set(device.guard.receivers()) == {"10.78.1.3"}
    finally:
        device.close()
        detach(port)


@pytest.mark.parametrize(
    ("why", "fields"),
    [
        ("a prefix, not a host", {"receiver": "10.78.1.0", "length": 120}),  # an IPv4 /24
        ("a source given", {"src_prefix": mapped("10.78.2.2"), "src_prefix_len": 128}),
        ("ports given", {"proto": 6, "dst_port": 80}),
    ],
)
def test_commands_that_are_not_one_receiver_are_refused(
    port: Topology, harness: Callable[[Any], Harness], signer: Signer, why: str, fields: dict[str, Any],
) -> None:
    h = started(harness, port)
    device = h.adapter.device
    try:
        ack = h.give(signer.sign(rwnd_cap(signer, "bad", **fields)))
        assert h.status(ack) == "REJECTED" and "unsupported_action" in ack.detail, why
        assert device.guard.receivers() == {}
    finally:
        device.close()
        detach(port)


def test_without_a_byte_limit_the_buffer_must_be_given(topology: Topology, harness: Callable[[Any], Harness], signer: Signer) -> None:  # noqa: F811
    sh("tc", "-n", topology.s, "qdisc", "add", "dev", "s-r", "root", "pfifo", "limit", "100")  # packets, not bytes
    h = started(harness, topology)
    device = h.adapter.device
    try:
        ack = h.give(signer.sign(rwnd_cap(signer, "g0")))
        assert h.status(ack) == "FAILED" and "byte limit" in ack.detail
        assert h.status(h.give(signer.sign(rwnd_cap(signer, "g1", rwnd_bytes=32_000)))) == "APPLIED"
    finally:
        device.close()
        detach(topology)


def test_restart_keeps_the_guard_and_reconcile_removes_what_no_command_asks(
    port: Topology, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    h = started(harness, port)
    first = h.adapter.device
    try:
        assert h.status(h.give(signer.sign(rwnd_cap(signer, "g1")))) == "APPLIED"
        first.guard.set_receiver("10.78.1.77", 1000, 100)  # set behind the adapter's back
        first.close()
        h.close()
        again = started(harness, port)  # same port, same state directory: a restarted adapter
        second = again.adapter.device
        assert set(second.guard.receivers()) == {RECEIVER}
        assert again.adapter.counters["reconcile_installed"] == 0 and again.adapter.counters["reconcile_removed"] == 1
        second.close()
    finally:
        detach(port)
