"""The tc adapter against a real tc in network namespaces: filters, counters, acks, restart."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from cheetah_adapters.targets.device import DeviceError
from cheetah_adapters.targets.tc import SCAVENGER, PRIMARY, TcConfig, TcDevice
from tests.conftest import DEVICE_ID, Harness, require_tool
from tests.namespaces import VethPair, sh
from tests.refusals import assert_refused_and_nothing_applied, refused_commands
from tests.signer import Signer, now_ms
from tests.traffic import iperf3

SERVER_PORT, CLIENT_PORT = 5301, 40123


def device_in(pair: VethPair) -> TcDevice:
    return TcDevice(TcConfig(interface=pair.dev_a, netns=pair.a, rate="100mbit", scavenger_rate="5mbit"))


def filters(pair: VethPair) -> str:
    return sh("tc", "-n", pair.a, "filter", "show", "dev", pair.dev_a, "parent", "1:")


def started(harness: Callable[[Any], Harness], pair: VethPair) -> Harness:
    h = harness(device_in(pair))
    h.adapter.reconcile()
    return h


def test_qdisc_and_classes_are_made(pair: VethPair, harness: Callable[[Any], Harness]) -> None:
    started(harness, pair)
    classes = sh("tc", "-n", pair.a, "class", "show", "dev", pair.dev_a)
    assert "class htb 1:10 parent 1:1 prio 0 rate 95Mbit ceil 100Mbit" in classes
    assert "class htb 1:20 parent 1:1 prio 7 rate 5Mbit ceil 100Mbit" in classes
    assert "default 0x10" in sh("tc", "-n", pair.a, "qdisc", "show", "dev", pair.dev_a)


def test_foreign_root_qdisc_is_left_alone(pair: VethPair) -> None:
    sh("tc", "-n", pair.a, "qdisc", "add", "dev", pair.dev_a, "root", "handle", "5:", "tbf", "rate", "1mbit", "burst", "10k", "latency", "50ms")
    with pytest.raises(DeviceError, match="--replace-qdisc"):
        device_in(pair).prepare()
    assert "qdisc tbf 5:" in sh("tc", "-n", pair.a, "qdisc", "show", "dev", pair.dev_a)


def test_flow_rule_moves_real_traffic_to_the_scavenger_class(pair: VethPair, harness: Callable[[Any], Harness], signer: Signer) -> None:
    require_tool("iperf3", "iperf3")
    h = started(harness, pair)
    device = h.adapter.device
    assert isinstance(device, TcDevice)
    iperf3(pair, SERVER_PORT, CLIENT_PORT, megabytes=8)
    before = device.class_counters()
    assert before[SCAVENGER][0] == 0 and before[PRIMARY][0] > 2_000_000  # all of it in the primary class

    add = signer.flow("c1", pair.ip_a, pair.ip_b, CLIENT_PORT, SERVER_PORT)
    ack = h.give(signer.sign(add))
    assert (h.status(ack), ack.command_id, ack.adapter, ack.device_id) == ("APPLIED", "c1", "tc", DEVICE_ID)
    assert "match 0a4d0001/ffffffff at 12" in filters(pair)  # src 10.77.0.1
    assert "match 9cbb14b5/ffffffff at 20" in filters(pair)  # sport 40123, dport 5301
    assert "flowid 1:20" in filters(pair)

    iperf3(pair, SERVER_PORT, CLIENT_PORT, megabytes=8)
    after = device.class_counters()
    moved = after[SCAVENGER][0] - before[SCAVENGER][0]
    stayed = after[PRIMARY][0] - before[PRIMARY][0]
    # iperf3 stops once its last bytes are in the socket buffer, so a run sends somewhat less than 8 MB.
    assert moved > 2_000_000, f"scavenger class got {moved} bytes"
    assert stayed < moved / 20, f"primary class still got {stayed} bytes (control connection only expected)"

    remove = signer.remove("c1-end", add)
    assert h.status(h.give(signer.sign(remove))) == "APPLIED"
    assert "flowid" not in filters(pair)
    iperf3(pair, SERVER_PORT, CLIENT_PORT, megabytes=8)
    final = device.class_counters()
    assert final[SCAVENGER][0] - after[SCAVENGER][0] < 20_000  # back in the primary class


def test_ipv6_and_prefix_rules(pair: VethPair, harness: Callable[[Any], Harness], signer: Signer) -> None:
    h = started(harness, pair)
    six = signer.flow("v6", pair.ip6_a, pair.ip6_b, 40000, 5201, proto=17)
    pref = signer.prefixes("p24", "10.77.0.0/24", "10.88.0.0/16")
    assert h.status(h.give(signer.sign(six))) == "APPLIED"
    assert h.status(h.give(signer.sign(pref))) == "APPLIED"
    shown = filters(pair)
    assert "protocol ipv6 pref 11" in shown and "match fd770000/ffffffff at 8" in shown and "match 00000002/ffffffff at 36" in shown
    assert "match 00001100/0000ff00 at 4" in shown  # next header udp
    assert "match 0a4d0000/ffffff00 at 12" in shown and "match 0a580000/ffff0000 at 16" in shown
    assert len(h.adapter.device.installed()) == 2


def test_duplicate_forged_expired_unknown_key_and_other_refusals(pair: VethPair, harness: Callable[[Any], Harness], signer: Signer) -> None:
    h = started(harness, pair)
    good = signer.sign(signer.flow("d1", pair.ip_a, pair.ip_b, 1000, 2000))
    assert h.status(h.give(good)) == "APPLIED"
    dup = h.give(good)
    assert (h.status(dup), dup.command_id) == ("DUPLICATE", "d1")
    assert len(h.adapter.device.installed()) == 1

    forged = signer.flow("f1", pair.ip_a, pair.ip_b, 1000, 2001)
    tampered = type(forged).FromString(signer.sign(forged))
    tampered.dst_port = 2002  # the signed payload altered after signing
    stranger = Signer(signer.m, DEVICE_ID, key_id="2099-01", secret=b"k" * 32)
    cases = {
        "bad_signature": tampered.SerializeToString(),
        "unknown_key": stranger.sign(stranger.flow("u1", pair.ip_a, pair.ip_b, 1, 2)),
        "expired": signer.sign(signer.flow("e1", pair.ip_a, pair.ip_b, 1, 2, issued_ms=now_ms() - 10_000, ttl_ms=5_000)),
        "dry_run": signer.sign(signer.flow("r1", pair.ip_a, pair.ip_b, 1, 2, dry_run=True)),
        "other_device": signer.sign(signer.flow("o1", pair.ip_a, pair.ip_b, 1, 2, device_id="router-9")),
        "unsupported_action": signer.sign(signer.flow("a1", pair.ip_a, pair.ip_b, 1, 2, action="REDIRECT_VRF", path="65000:1")),
        "undecodable": b"\xff\xff\xff",
        "unknown_fields": signer.sign(signer.flow("x1", pair.ip_a, pair.ip_b, 1, 2)) + bytes([0xF8, 0x3F, 0x01]),
        "unsigned": signer.flow("n1", pair.ip_a, pair.ip_b, 1, 2).SerializeToString(),
    }
    for reason, payload in cases.items():
        ack = h.give(payload)
        assert ack is not None and h.status(ack) == "REJECTED", reason
        assert ack.detail.startswith(reason + ":"), (reason, ack.detail)
        assert ack.command_id == ("" if reason == "undecodable" else type(forged).FromString(payload[:-3] if reason == "unknown_fields" else payload).command_id)
    assert len(h.adapter.device.installed()) == 1  # nothing but d1
    summary = h.adapter.summary()
    assert summary["rejected"] == {reason: 1 for reason in cases}
    assert (summary["applied"], summary["duplicates"], summary["seen"]) == (1, 1, 2 + len(cases))
    kept = (h.state_dir.path / "rejected.jsonl").read_text().splitlines()
    assert len(kept) == len(cases)


def test_no_expiry_future_and_untargeted_remove_are_refused_and_change_nothing(
    pair: VethPair, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    h = started(harness, pair)
    keep = signer.flow("k1", pair.ip_a, pair.ip_b, 1000, 2000)
    raw = signer.sign(keep)
    assert h.status(h.give(raw)) == "APPLIED"
    assert filters(pair).count("flowid 1:20") == 1
    refused = refused_commands(signer, keep, pair.ip_a, pair.ip_b)
    assert_refused_and_nothing_applied(h, refused, lambda: filters(pair), harness, lambda: device_in(pair), [raw])
    assert filters(pair).count("flowid 1:20") == 1  # k1, and only k1


def test_issued_in_future_allows_the_documented_skew_and_not_a_millisecond_more(
    pair: VethPair, harness: Callable[[Any], Harness], signer: Signer,
) -> None:
    h = started(harness, pair)
    now = now_ms()
    h.adapter.clock = lambda: now  # a fixed adapter clock: the 60 s boundary is exact
    at_limit = signer.flow("skew-ok", pair.ip_a, pair.ip_b, 1000, 2000, issued_ms=now + 60_000)
    beyond = signer.flow("skew-no", pair.ip_a, pair.ip_b, 1001, 2001, issued_ms=now + 60_001)
    assert h.status(h.give(signer.sign(at_limit))) == "APPLIED"
    ack = h.give(signer.sign(beyond))
    assert (h.status(ack), ack.detail) == ("REJECTED", f"issued_in_future: issued_ms {now + 60_001} is 60001 ms ahead of this adapter's clock; check NTP")
    assert filters(pair).count("flowid 1:20") == 1


def test_other_devices_commands_are_skipped_silently(pair: VethPair, harness: Callable[[Any], Harness], signer: Signer) -> None:
    h = started(harness, pair)
    other = Signer(signer.m, "router-9").sign(Signer(signer.m, "router-9").flow("z1", pair.ip_a, pair.ip_b, 1, 2))
    assert h.give(other, key=b"router-9") is None
    assert h.adapter.summary()["other_device_skipped"] == 1


def test_rule_expires_by_itself(pair: VethPair, harness: Callable[[Any], Harness], signer: Signer) -> None:
    h = started(harness, pair)
    assert h.status(h.give(signer.sign(signer.flow("t1", pair.ip_a, pair.ip_b, 1, 2, ttl_ms=60_000)))) == "APPLIED"
    assert "flowid 1:20" in filters(pair)
    h.adapter.clock = lambda: now_ms() + 61_000
    assert h.adapter.expire() == 1
    assert "flowid" not in filters(pair)
    assert h.adapter.summary()["expired_removed"] == 1


def test_restart_reconciles_with_the_retained_commands(pair: VethPair, harness: Callable[[Any], Harness], signer: Signer) -> None:
    h = started(harness, pair)
    topic: list[bytes] = []  # what redirects.commands.v1 retains, in order

    def publish(command: Any) -> Any:
        raw = signer.sign(command)
        topic.append(raw)
        return h.give(raw)

    keep = signer.flow("k1", pair.ip_a, pair.ip_b, 1111, 80)
    lost = signer.flow("k2", pair.ip_a, pair.ip_b, 2222, 80)
    gone = signer.flow("k3", pair.ip_a, pair.ip_b, 3333, 80)
    for command in (keep, lost, gone):
        assert h.status(publish(command)) == "APPLIED"
    h.close()  # the adapter stops

    # Meanwhile: someone deletes k2's filter by hand, a stray filter appears, k3 is removed and k4 added.
    device = device_in(pair)
    k2 = device.fingerprint(h.adapter.rules["k2"])
    device.remove(k2, device.installed()[k2][0])
    sh("tc", "-n", pair.a, "filter", "add", "dev", pair.dev_a, "parent", "1:", "protocol", "ip", "pref", "10", "u32",
       "match", "u32", "0x01020304", "0xffffffff", "at", "16", "flowid", "1:20")
    topic.append(signer.sign(signer.remove("k3-end", gone)))
    topic.append(signer.sign(signer.flow("k4", pair.ip_a, pair.ip_b, 4444, 80)))

    again = harness(device_in(pair))
    for raw in topic:
        again.give(raw)
    assert again.acks == []  # nothing is answered before the device is reconciled
    report = again.adapter.reconcile()
    assert report == {"in_force": 3, "installed": 2, "removed": 2, "failed": 0}  # k2, k4 in; k3, stray out
    assert sorted((a.command_id, again.status(a)) for a in again.acks) == [("k3-end", "APPLIED"), ("k4", "APPLIED")]
    want = {device.fingerprint(again.adapter.rules[i]) for i in ("k1", "k2", "k4")}
    assert set(device.installed()) == want
    assert all(len(handles) == 1 for handles in device.installed().values())
    # Following: a redelivery of an old command is a duplicate.
    assert again.status(again.give(topic[0])) == "DUPLICATE"
