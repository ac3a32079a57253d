"""Exporter behaviour: active-timeout split, adjacency, sampling."""

from __future__ import annotations

from cheetah_generator.flows import PROTO_TCP, PROTO_UDP, TCP_FIN, TCP_SYN, FiveTuple, Flow
from cheetah_generator.records import split_flow

T0 = 1_793_577_600_000


def make(start: int, end: int, nbytes: int, packets: int, proto: int = PROTO_TCP) -> Flow:
    return Flow(FiveTuple(1, 2, 40000, 443, proto), start, end, nbytes, packets, kind="transfer")


def test_split_by_active_timeout_into_adjacent_records() -> None:
    f = make(T0 + 123, T0 + 123 + 150_000, 1_500_000_000, 1_000_000)
    recs = split_flow(f, 7, active_timeout_ms=60_000)
    assert [(r.first_ms - T0, r.last_ms - T0) for r in recs] == [(123, 60_123), (60_123, 120_123), (120_123, 150_123)]
    assert [r.bytes for r in recs] == [600_000_000, 600_000_000, 300_000_000]
    assert [r.packets for r in recs] == [400_000, 400_000, 200_000]
    assert all(r.flow_index == 7 for r in recs)


def test_tcp_flags_syn_first_fin_last() -> None:
    recs = split_flow(make(T0, T0 + 130_000, 10**9, 10**6), 0, 60_000)
    assert recs[0].tcp_flags & TCP_SYN and not recs[0].tcp_flags & TCP_FIN
    assert not recs[1].tcp_flags & (TCP_SYN | TCP_FIN)
    assert recs[2].tcp_flags & TCP_FIN
    [udp] = split_flow(make(T0, T0 + 10, 100, 1, PROTO_UDP), 0, 60_000)
    assert udp.tcp_flags == 0


def test_a_span_without_packets_is_merged_with_its_neighbour() -> None:
    # 2 packets over 150 s (one per 75 s): the first 60 s carry none.
    recs = split_flow(make(T0, T0 + 150_000, 2_000, 2), 0, 60_000)
    assert [(r.first_ms - T0, r.last_ms - T0, r.packets) for r in recs] == [(0, 120_000, 1), (120_000, 150_000, 1)]
    assert sum(r.bytes for r in recs) == 2_000


def test_sampling_floors_counts_and_drops_records_without_a_sampled_packet() -> None:
    f = make(T0, T0 + 61_000, 61_000_000, 61_000)
    recs = split_flow(f, 0, 60_000, sampling=1000)
    # [0, 60 s): 60,000 pkts -> 60 sampled; [60 s, 61 s): 1,000 pkts -> 1 sampled
    assert [(r.packets, r.bytes) for r in recs] == [(60, 60_000), (1, 1_000)]
    few = make(T0, T0 + 1000, 999_000, 999)
    assert split_flow(few, 0, 60_000, sampling=1000) == []


def test_zero_length_flow_is_one_record() -> None:
    [r] = split_flow(make(T0 + 5, T0 + 5, 80, 1, PROTO_UDP), 0, 60_000)
    assert (r.first_ms, r.last_ms, r.bytes, r.packets) == (T0 + 5, T0 + 5, 80, 1)
