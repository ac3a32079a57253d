"""The cheetah and flowset definitions at their edges (cases computed by hand)."""

from __future__ import annotations

from fractions import Fraction

from cheetah_generator.flows import PROTO_TCP, FiveTuple, Flow
from cheetah_generator.records import split_flow
from cheetah_generator.scenario import observe
from cheetah_generator.truth import (
    Cheetah,
    ObservedFlow,
    find_cheetahs,
    group_flowsets,
    interval_bytes,
    peak_interval_bytes,
)

H = 1_000_000_000
I = 60_000  # noqa: E741
TAU = 10_000
MIDNIGHT = 1_793_577_600_000  # 2026-11-02T00:00:00Z, a multiple of I


def key(sport: int, src: int = 1, dst: int = 2) -> FiveTuple:
    return FiveTuple(src, dst, sport, 5201, PROTO_TCP)


def flow(sport: int, start: int, end: int, nbytes: int) -> ObservedFlow:
    return ObservedFlow(key(sport), ((start, end, nbytes),))


def cheetah(sport: int, start: int, end: int = 0, nbytes: int = H) -> Cheetah:
    return Cheetah(key(sport), start, end or start + 60_000, nbytes, nbytes)


class TestCheetah:
    def test_exactly_h_within_one_aligned_interval_is_a_cheetah(self) -> None:
        f = flow(1, MIDNIGHT, MIDNIGHT + I, H)
        [c] = find_cheetahs([f], H, I)
        assert c.peak_interval_bytes == H and c.bytes == H

    def test_h_split_across_two_aligned_intervals_is_not(self) -> None:
        # Same 60 s and H bytes, but shifted half an interval: H/2 in each.
        f = flow(1, MIDNIGHT + I // 2, MIDNIGHT + I + I // 2, H)
        assert peak_interval_bytes(f.spans, I) == H // 2
        assert find_cheetahs([f], H, I) == []

    def test_one_byte_short_is_not(self) -> None:
        assert find_cheetahs([flow(1, MIDNIGHT, MIDNIGHT + I, H - 1)], H, I) == []

    def test_intervals_are_epoch_aligned_not_flow_aligned(self) -> None:
        per = interval_bytes([(MIDNIGHT + 15_000, MIDNIGHT + 75_000, 60)], I)
        assert per == {MIDNIGHT // I: 45, MIDNIGHT // I + 1: 15}

    def test_record_bytes_are_spread_over_their_span(self) -> None:
        # Two adjacent records: 1.5 H over [0, 90 s) then 0.5 H over [90 s, 120 s).
        spans = ((MIDNIGHT, MIDNIGHT + 90_000, 3 * H // 2), (MIDNIGHT + 90_000, MIDNIGHT + 120_000, H // 2))
        per = interval_bytes(spans, I)
        assert per[MIDNIGHT // I] == H and per[MIDNIGHT // I + 1] == H

    def test_zero_length_record_counts_in_its_interval(self) -> None:
        assert interval_bytes([(MIDNIGHT + 5, MIDNIGHT + 5, 7)], I) == {MIDNIGHT // I: 7}

    def test_exact_fractions_round_half_up(self) -> None:
        f = flow(1, MIDNIGHT - 1, MIDNIGHT + I - 1, 2 * H + 1)
        assert peak_interval_bytes(f.spans, I) == Fraction((2 * H + 1) * (I - 1), I)
        [c] = find_cheetahs([f], H, I)
        assert c.peak_interval_bytes == 1_999_966_668  # 2000000001 * 59999 / 60000 = 1999966667.65


class TestFlowset:
    def test_start_gap_of_exactly_tau_stays_in_the_set(self) -> None:
        [s] = group_flowsets([cheetah(1, MIDNIGHT), cheetah(2, MIDNIGHT + 10_000)], TAU)
        assert s.n_flows == 2

    def test_start_gap_just_over_tau_starts_a_new_set(self) -> None:
        sets = group_flowsets([cheetah(1, MIDNIGHT), cheetah(2, MIDNIGHT + 10_001)], TAU)
        assert [s.n_flows for s in sets] == [1, 1]

    def test_gap_is_to_the_previous_flow_not_the_first(self) -> None:
        starts = [MIDNIGHT, MIDNIGHT + 8_000, MIDNIGHT + 16_000, MIDNIGHT + 24_000]
        [s] = group_flowsets([cheetah(i, t) for i, t in enumerate(starts)], TAU)
        assert s.n_flows == 4

    def test_a_set_crossing_midnight_stays_one(self) -> None:
        members = [cheetah(1, MIDNIGHT - 2_000, MIDNIGHT + 100_000), cheetah(2, MIDNIGHT + 3_000, MIDNIGHT + 90_000)]
        [s] = group_flowsets(members, TAU)
        assert (s.n_flows, s.start_ms, s.end_ms) == (2, MIDNIGHT - 2_000, MIDNIGHT + 100_000)

    def test_size_duration_rate(self) -> None:
        members = [
            cheetah(1, MIDNIGHT, MIDNIGHT + 80_000, 3 * H),
            cheetah(2, MIDNIGHT + 1_000, MIDNIGHT + 100_000, 2 * H),
            cheetah(3, MIDNIGHT + 2_000, MIDNIGHT + 90_000, 5 * H),
        ]
        [s] = group_flowsets(members, TAU)
        assert s.bytes == 10 * H
        assert s.duration_s == 100.0  # last end - first start, not the last starter's end
        assert s.rate_bps == 10 * H * 8 / 100.0

    def test_pairs_are_directional(self) -> None:
        a = Cheetah(key(1, src=1, dst=2), MIDNIGHT, MIDNIGHT + 60_000, H, H)
        b = Cheetah(key(2, src=2, dst=1), MIDNIGHT + 1_000, MIDNIGHT + 60_000, H, H)
        assert len(group_flowsets([a, b], TAU)) == 2


class TestExportedTruth:
    def test_sampled_bytes_are_what_the_collector_scales_back(self) -> None:
        f = Flow(key(1), MIDNIGHT, MIDNIGHT + 150_000, bytes=3_000_000_007, packets=2_000_003, kind="transfer")
        recs = split_flow(f, 0, active_timeout_ms=60_000, sampling=100)
        [obs] = observe([f], recs, 100)
        assert obs.bytes == sum(r.bytes * 100 for r in recs)
        assert obs.bytes == sum((f.bytes_between(r.first_ms, r.last_ms) // 100) * 100 for r in recs)
        assert obs.bytes < f.bytes
