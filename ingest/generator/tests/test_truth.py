"""The cheetah and flowset definitions at their edges (cases computed by hand)."""

from __future__ import annotations

from cheetah_generator.flows import PROTO_TCP, FiveTuple, Flow
from cheetah_generator.params import ExportParams
from cheetah_generator.records import split_flow
from cheetah_generator.scenario import observe
from cheetah_generator.truth import (
    Cheetah,
    ObservedFlow,
    SeenRecord,
    find_cheetahs,
    group_flowsets,
    interval_bytes,
    peak_interval_bytes,
    stitch,
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

    def test_shares_are_differences_of_floored_cumulative_bytes(self) -> None:
        # 1000 B over [999, 2001) (1002 ms), I = 1 s: sent by 1000 ms floor(1000 * 1 / 1002) = 0,
        # by 2000 ms floor(1000 * 1001 / 1002) = 999, the rest (1) in [2000, 2001).
        assert interval_bytes([(999, 2001, 1000)], 1000) == {0: 0, 1: 999, 2: 1}
        # Spreading exact fractions would give 998.004 (rounded: 998) to the middle interval.
        assert peak_interval_bytes([(999, 2001, 1000)], 1000) == 999

    def test_shares_of_several_records_add_up_per_interval(self) -> None:
        # I = 2 ms. 10 B over [0, 3): floor(10 * 2 / 3) = 6 by 2 ms, 4 after; 10 B over [3, 6): 3 by 4 ms, 7 after.
        assert interval_bytes([(0, 3, 10), (3, 6, 10)], 2) == {0: 6, 1: 4 + 3, 2: 7}

    def test_a_record_ending_on_an_interval_edge_stays_in_its_interval(self) -> None:
        assert interval_bytes([(MIDNIGHT - 5, MIDNIGHT, 50)], I) == {MIDNIGHT // I - 1: 50}

    def test_peak_is_exact_whole_bytes(self) -> None:
        f = flow(1, MIDNIGHT - 1, MIDNIGHT + I - 1, 2 * H + 1)
        # [M - 1, M): floor(2000000001 * 1 / 60000) = 33333 B; the rest in [M, M + I).
        assert interval_bytes(f.spans, I) == {MIDNIGHT // I - 1: 33_333, MIDNIGHT // I: 2 * H + 1 - 33_333}
        [c] = find_cheetahs([f], H, I)
        assert c.peak_interval_bytes == 1_999_966_668


class TestStitching:
    G = 30_000

    def rec(self, first: int, last: int, nbytes: int = 100, sport: int = 1, exporter: int = 0) -> SeenRecord:
        return SeenRecord(exporter, key(sport), first, last, nbytes)

    def test_gap_of_exactly_g_joins(self) -> None:
        [f] = stitch([self.rec(0, 1_000), self.rec(1_000 + self.G, 2_000 + self.G)], self.G)
        assert (f.start_ms, f.end_ms, f.bytes) == (0, 2_000 + self.G, 200)

    def test_gap_of_g_plus_one_ms_splits(self) -> None:
        flows = stitch([self.rec(0, 1_000), self.rec(1_001 + self.G, 2_000 + self.G)], self.G)
        assert [(f.start_ms, f.end_ms) for f in flows] == [(0, 1_000), (1_001 + self.G, 2_000 + self.G)]

    def test_gap_counts_from_the_latest_end_not_the_last_record(self) -> None:
        # The second record ends inside the first: the third is G after the first's end.
        recs = [self.rec(0, 50_000), self.rec(10_000, 20_000), self.rec(50_000 + self.G, 90_000)]
        [f] = stitch(recs, self.G)
        assert f.end_ms == 90_000 and len(f.spans) == 3

    def test_records_arrive_in_any_order(self) -> None:
        recs = [self.rec(1_000 + self.G, 2_000 + self.G), self.rec(0, 1_000)]
        [f] = stitch(recs, self.G)
        assert f.spans == ((0, 1_000, 100), (1_000 + self.G, 2_000 + self.G, 100))

    def test_other_tuple_or_other_exporter_never_joins(self) -> None:
        recs = [self.rec(0, 1_000), self.rec(1_000, 2_000, sport=2), self.rec(1_000, 2_000, exporter=1)]
        assert len(stitch(recs, self.G)) == 3

    def test_stitching_decides_cheetah_or_not(self) -> None:
        # 0.6 H + 0.6 H in one interval: a cheetah only as one flow.
        a, b = (MIDNIGHT, MIDNIGHT + 10_000), (MIDNIGHT + 10_000 + self.G, MIDNIGHT + 20_000 + self.G)
        joined = stitch([self.rec(*a, 3 * H // 5), self.rec(*b, 3 * H // 5)], self.G)
        assert [c.peak_interval_bytes for c in find_cheetahs(joined, H, I)] == [6 * H // 5]
        b1 = (b[0] + 1, b[1] + 1)
        split = stitch([self.rec(*a, 3 * H // 5), self.rec(*b1, 3 * H // 5)], self.G)
        assert find_cheetahs(split, H, I) == []


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
        [obs] = observe([f], recs, ExportParams(sampling=100), gap_ms=30_000)
        assert obs.bytes == sum(r.bytes * 100 for r in recs)
        assert obs.bytes == sum((f.bytes_between(r.first_ms, r.last_ms) // 100) * 100 for r in recs)
        assert obs.bytes < f.bytes
