"""Token bucket (fake clock), datagram files, the UDP catcher, and replay."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from cheetah_generator.catcher import DatagramCatcher, describe
from cheetah_generator.dgram_file import DatagramWriter, StoredDatagram, read_datagrams
from cheetah_generator.pacing import Pace, TokenBucket, parse_target, send_paced


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_records_per_second_spaces_datagrams_by_their_record_count() -> None:
    clock = FakeClock()
    b = TokenBucket(Pace(records_per_s=1000), clock)
    assert b.delay(10) == 0.0  # first datagram goes at once
    assert b.delay(25) == pytest.approx(0.010)  # waits for the previous 10 records
    assert b.delay(1) == pytest.approx(0.035)


def test_no_burst_after_a_pause() -> None:
    clock = FakeClock()
    b = TokenBucket(Pace(datagrams_per_s=100), clock)
    b.delay(1)
    clock.t += 5.0  # idle for 5 s: only one datagram's worth of credit is saved up
    assert b.delay(1) == 0.0
    assert b.delay(1) == 0.0
    assert b.delay(1) == pytest.approx(0.01)
    assert b.delay(1) == pytest.approx(0.02)


def test_a_late_wake_up_is_made_up_once() -> None:
    clock = FakeClock()
    b = TokenBucket(Pace(datagrams_per_s=100), clock)
    assert b.delay(1) == 0.0
    clock.t += 0.013  # the sleep for the next slot (0.01) overshot by 3 ms
    assert b.delay(1) == 0.0
    assert b.delay(1) == pytest.approx(0.007)  # back on the 10 ms grid


def test_depth_makes_up_a_wake_up_later_than_one_datagram() -> None:
    clock = FakeClock()
    b = TokenBucket(Pace(datagrams_per_s=1000, depth_s=0.005), clock)  # 1 ms per datagram
    assert b.delay(1) == 0.0
    clock.t += 0.0035  # overslept by 2.5 slots: they go at once, then the 1 ms grid again
    assert [b.delay(1) for _ in range(4)] == [0.0, 0.0, 0.0, pytest.approx(0.0005)]
    clock.t += 1.0  # a pause saves up at most depth_s: 5 datagrams early + this one, not 1,000
    assert [b.delay(1) for _ in range(7)] == [0.0] * 5 + [pytest.approx(0.0), pytest.approx(0.001)]


def test_the_stricter_limit_wins() -> None:
    b = TokenBucket(Pace(records_per_s=10_000, datagrams_per_s=10), FakeClock())
    b.delay(1)
    assert b.delay(1) == pytest.approx(0.1)


def test_targets_are_loopback_unless_allowed() -> None:
    assert parse_target("127.0.0.1:2055") == ("127.0.0.1", 2055)
    assert parse_target("localhost:9") == ("127.0.0.1", 9)
    with pytest.raises(ValueError, match="allow-remote"):
        parse_target("10.0.0.1:2055")
    assert parse_target("10.0.0.1:2055", allow_remote=True) == ("10.0.0.1", 2055)
    with pytest.raises(ValueError, match="HOST:PORT"):
        parse_target("2055")


def test_datagram_file_round_trip(tmp_path: Path) -> None:
    items = [
        StoredDatagram(b"\x00\x09abc", 1000, 0, 3),
        StoredDatagram(b"", 0, 1, 0),
        StoredDatagram(b"x" * 1400, 5, 2, 25),
    ]
    with DatagramWriter(tmp_path / "d.dg") as w:
        for d in items:
            w.write(d)
    assert list(read_datagrams(tmp_path / "d.dg")) == items
    (tmp_path / "bad.dg").write_bytes(b"nope")
    with pytest.raises(ValueError, match="not a datagram file"):
        list(read_datagrams(tmp_path / "bad.dg"))


def test_describe_reads_export_time_and_v9_count() -> None:
    v9 = bytes.fromhex("0009 0005 00000001 6a000000 00000000 00000001".replace(" ", ""))
    assert describe(v9) == (0x6A000000 * 1000, 5)
    ipfix = bytes.fromhex("000a 0010 6a000001 00000000 00000001".replace(" ", ""))
    assert describe(ipfix) == (0x6A000001 * 1000, 0)


# What a loaded machine can and cannot change here (the pace's accuracy over time is the fake-clock
# tests' job above; on a real clock a busy machine only ever makes sending slower):
# - every datagram arrives: 50 datagrams of <= 149 bytes take < 50 x 4 KiB of socket buffer
#   however late the catcher's thread runs, and its buffer is asserted to be larger, so an exact
#   count fails only on a real loss;
# - the pace is a lower bound on the time taken: 50 datagrams at 500/s cannot go out in less
#   than 49 / 500 s = 98 ms when paced, while unpaced they take ~1 ms (a load that stretched 50
#   sendto calls to 98 ms would be extraordinary, so dropping the pacing fails this test).
RATE = 500
WORST_TRUESIZE = 4096  # kernel memory charged per small datagram is ~1 KiB; 4x that for margin


def test_catch_then_replay_paced(tmp_path: Path) -> None:
    payloads = [bytes([i]) * (100 + i) for i in range(50)]
    with DatagramCatcher(tmp_path / "caught.dg") as first:
        assert first.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF) >= len(payloads) * WORST_TRUESIZE
        sent = send_paced((StoredDatagram(p, records=1) for p in payloads), first.address, Pace(datagrams_per_s=RATE))
        assert first.wait(count=50, timeout_s=10), f"{first.count} of 50 datagrams caught"
    assert sent.seconds >= 49 / RATE, f"50 datagrams at {RATE}/s went out in {sent.seconds * 1000:.1f} ms"
    assert [d.payload for d in read_datagrams(tmp_path / "caught.dg")] == payloads
    with DatagramCatcher(tmp_path / "again.dg") as second:
        stats = send_paced(read_datagrams(tmp_path / "caught.dg"), second.address, Pace(datagrams_per_s=RATE))
        assert second.wait(count=50, timeout_s=10), f"{second.count} of 50 datagrams caught"
    assert stats.datagrams == 50 and stats.seconds >= 49 / RATE, stats
    assert [d.payload for d in read_datagrams(tmp_path / "again.dg")] == payloads


def test_replays_come_from_one_source_port(tmp_path: Path) -> None:
    # Collectors key templates by source address:port, so a replay must use one socket.
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx:
        rx.bind(("127.0.0.1", 0))
        rx.settimeout(5)
        send_paced([StoredDatagram(b"a"), StoredDatagram(b"b"), StoredDatagram(b"c")], rx.getsockname(), Pace())
        sources = {rx.recvfrom(100)[1] for _ in range(3)}
    assert len(sources) == 1
