"""The edges workload (--workload edges): every case's truth, computed by hand.

Defaults: H = 1e9 B, I = 60 s, G = 30 s, tau = 10 s, active timeout 60 s;
exporter 0 samples 1:10, exporter 1 1:100. The time base is aligned to I, so
the cases' interval J starts one interval later: J0 = BASE + 60 s.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from cheetah_generator.decode import Decoder
from cheetah_generator.flows import ip_from_str
from cheetah_generator.netflow_run import datagrams_of
from cheetah_generator.params import ExportParams, TruthParams, WorkloadParams
from cheetah_generator.scenario import Scenario, build_scenario
from cheetah_generator.truth import Cheetah

BASE = 1_793_574_000_000  # 2026-11-01T23:00:00Z, a multiple of 60 s
J0 = BASE + 60_000
H = 1_000_000_000
G = 30_000
TAU = 10_000
WP = WorkloadParams(time_base_ms=BASE, span_ms=900_000, margin_ms=0)
EP = ExportParams(exporter_sampling=(10, 100))
SAMPLING = {0: 10, 1: 100}


@pytest.fixture(scope="module")
def edges() -> Scenario:
    return build_scenario(WP, TruthParams(), EP, "edges")


def pair(exporter: int, host: int) -> tuple[int, int]:
    """Exporter k's case j goes from site k+1's host 10+j to site k+2's host 10+j."""
    return ip_from_str(f"198.18.{exporter + 1}.{host}"), ip_from_str(f"198.18.{exporter + 2}.{host}")


def cheetahs_of(sc: Scenario, exporter: int, host: int) -> list[Cheetah]:
    src, dst = pair(exporter, host)
    return [c for c in sc.cheetahs if (c.key.src, c.key.dst) == (src, dst)]


def summary(cs: list[Cheetah]) -> list[tuple[int, int, int, int]]:
    """(start - J0, end - J0, bytes, peak) per cheetah."""
    return [(c.start_ms - J0, c.end_ms - J0, c.bytes, c.peak_interval_bytes) for c in cs]


# Case j of each exporter uses host 10 + j: peak H-1, H, H+1; stitch-join G, G+1;
# stitch-split G, G+1; flowset tau, tau+1; uneven.
@pytest.mark.parametrize("exporter", [0, 1])
class TestCases:
    def test_peak_one_byte_below_h_is_not_a_cheetah(self, edges: Scenario, exporter: int) -> None:
        assert cheetahs_of(edges, exporter, 10) == []

    @pytest.mark.parametrize("host,delta", [(11, 0), (12, 1)])
    def test_peak_of_exactly_h_and_one_above(self, edges: Scenario, exporter: int, host: int, delta: int) -> None:
        n = SAMPLING[exporter]
        # Record 1: (H - 1000) / N exported, all in J. Record 2: 1000 + delta exported over N x 100 ms
        # from J0 + 59.9 s, so 100 ms (1/N of it) in J: N * (1000 + delta) / N = 1000 + delta scaled bytes.
        # Peak = H - 1000 + 1000 + delta; bytes = H - 1000 + N * (1000 + delta).
        assert summary(cheetahs_of(edges, exporter, host)) == [
            (1_000, 59_900 + n * 100, H - 1_000 + n * (1_000 + delta), H + delta)
        ]

    def test_stitch_join_gap_g_is_one_cheetah(self, edges: Scenario, exporter: int) -> None:
        # 2 x ceil(0.6 H / N) exported = 1.2e9 scaled for N = 10, 100; [J0+1 s, J0+11 s) + [J0+41 s, J0+51 s).
        assert summary(cheetahs_of(edges, exporter, 13)) == [(1_000, 51_000, 1_200_000_000, 1_200_000_000)]

    def test_stitch_join_gap_g_plus_one_is_no_cheetah(self, edges: Scenario, exporter: int) -> None:
        assert cheetahs_of(edges, exporter, 14) == []

    def test_stitch_split_gap_g_is_one_cheetah_of_both(self, edges: Scenario, exporter: int) -> None:
        assert summary(cheetahs_of(edges, exporter, 15)) == [(1_000, 51_000, 3 * H, 3 * H)]

    def test_stitch_split_gap_g_plus_one_is_two_cheetahs(self, edges: Scenario, exporter: int) -> None:
        one = 3 * H // 2
        assert summary(cheetahs_of(edges, exporter, 16)) == [
            (1_000, 11_000, one, one),
            (41_001, 51_001, one, one),
        ]

    def test_flowset_starts_tau_apart_are_one_set(self, edges: Scenario, exporter: int) -> None:
        src, dst = pair(exporter, 17)
        [s] = [s for s in edges.flowsets if (s.src, s.dst) == (src, dst)]
        # starts J0 + 1 s, + 11 s, + 21 s (the last 20 s after the first: the gap is to the previous start)
        assert [m.start_ms - J0 for m in s.members] == [1_000, 11_000, 21_000]
        assert (s.start_ms - J0, s.end_ms - J0, s.bytes) == (1_000, 41_000, 3 * 3 * H // 2)

    def test_flowset_starts_tau_plus_one_are_two_sets(self, edges: Scenario, exporter: int) -> None:
        src, dst = pair(exporter, 18)
        sets = [s for s in edges.flowsets if (s.src, s.dst) == (src, dst)]
        assert [(s.n_flows, s.start_ms - J0, s.end_ms - J0) for s in sets] == [(1, 1_000, 21_000), (1, 11_001, 31_001)]

    def test_every_case_is_there(self, edges: Scenario, exporter: int) -> None:
        names = [c.name for c in edges.cases if c.exporter == exporter]
        n = SAMPLING[exporter]
        assert names == [
            f"{x} 1:{n}"
            for x in (
                "peak H-1",
                "peak H+0",
                "peak H+1",
                "stitch-join gap G",
                "stitch-join gap G+1",
                "stitch-split gap G",
                "stitch-split gap G+1",
                "flowset starts tau",
                "flowset starts tau+1",
                "uneven",
            )
        ]


def uneven_by_hand(n: int) -> tuple[int, int, Fraction]:
    """(bytes, peak, exact-fraction peak) of the uneven case, the peak by per-millisecond summation.

    2,987,654,321 B over 149,999 ms from J0 + 12,345 ms, cut every 23,456 ms: a cut's bytes are what the
    flow sent by its end minus by its start, floor(B * t / D); exported floor(bytes / N), scaled x N.
    Each record then sends floor(b * t / d) by its ms t; summing those per-ms deltas per interval is
    an independent way to the whole-byte shares.
    """
    total, dur, off, cut = 2_987_654_321, 149_999, 12_345, 23_456
    edges_ = list(range(0, dur, cut)) + [dur]
    records = []
    for a, b in zip(edges_, edges_[1:], strict=False):
        sent = total * b // dur - total * a // dur
        records.append((off + a, off + b, sent // n * n))
    per_interval: dict[int, int] = {}
    exact: dict[int, Fraction] = {}
    for a, b, nbytes in records:
        d = b - a
        for t in range(a, b):
            k = t // 60_000
            per_interval[k] = per_interval.get(k, 0) + nbytes * (t + 1 - a) // d - nbytes * (t - a) // d
            exact[k] = exact.get(k, Fraction(0)) + Fraction(nbytes, d)
    return sum(r[2] for r in records), max(per_interval.values()), max(exact.values())


@pytest.mark.parametrize("exporter,host", [(0, 19), (1, 19)])
def test_uneven_peak_is_the_whole_byte_shares_of_the_exported_records(
    edges: Scenario, exporter: int, host: int
) -> None:
    nbytes, peak, _ = uneven_by_hand(SAMPLING[exporter])
    [c] = cheetahs_of(edges, exporter, host)
    assert (c.start_ms - J0, c.end_ms - J0, c.bytes, c.peak_interval_bytes) == (12_345, 162_344, nbytes, peak)
    assert (nbytes, peak) == ((2_987_654_290, 1_195_069_686), (2_987_653_800, 1_195_069_492))[exporter]


def test_uneven_case_tells_whole_byte_shares_from_rounded_fractions() -> None:
    # At 1:10 exact fractions put ~1,195,069,686.77 B in the peak interval (it would round to ...687):
    # a platform spreading fractions and rounding differs from the definition by one byte here.
    _, peak, exact = uneven_by_hand(10)
    assert peak == 1_195_069_686 and round(exact) == 1_195_069_687


def test_no_stray_cheetahs_or_flowsets(edges: Scenario) -> None:
    # Per exporter: peak 2 + join 1 + split 1 + 2 + flowsets 3 + 2 + uneven 1 = 12 cheetahs;
    # flowsets: 2 + 1 + 1 + 2 + 1 + 2 + 1 = 10.
    assert (len(edges.cheetahs), len(edges.flowsets)) == (24, 20)


def test_sampling_is_announced_per_exporter(edges: Scenario) -> None:
    dec = Decoder()
    announced = {}
    for d in datagrams_of(edges):
        for r in dec.decode(d.payload):
            if r.options:
                announced[r.domain] = r.fields[34]
    assert announced == {1: 10, 2: 100}


def test_records_are_plausible_to_a_collector(edges: Scenario) -> None:
    # The normaliser refuses < 20 or > 65535 bytes per packet and records longer than the
    # exporter's active timeout would close flows early: none here.
    for r in edges.records:
        assert r.packets >= 1 and 20 <= r.bytes / r.packets <= 65_535, r
        assert 0 <= r.last_ms - r.first_ms <= EP.active_timeout_ms, r


def test_ticks_carry_event_time_past_every_closing(edges: Scenario) -> None:
    last_end = max(c.end_ms for c in edges.cheetahs)
    last_tick = max(r.last_ms for r in edges.records)
    assert last_tick >= last_end + G + EP.active_timeout_ms + TAU + 300_000  # + the default flowset lateness
    ticks = [f for f in edges.flows if f.kind == "tick"]
    assert len({f.key for f in ticks}) == len(ticks)


def test_parameters_it_cannot_serve_are_refused() -> None:
    with pytest.raises(ValueError, match="give --span >= 323 s"):
        build_scenario(WorkloadParams(time_base_ms=BASE, span_ms=200_000, margin_ms=0), TruthParams(), EP, "edges")
    with pytest.raises(ValueError, match="must fit in I"):
        build_scenario(WP, TruthParams(gap_ms=50_000), EP, "edges")


@pytest.mark.parametrize("version", [9, 10])
def test_the_records_on_the_wire_give_the_same_truth(version: int) -> None:
    # records-truth decodes the datagrams (sampling from the options records) and applies truth.py:
    # what a collector can know from the wire is exactly the model's truth.
    from dataclasses import replace

    from cheetah_generator.records_truth import records_truth

    sc = build_scenario(WP, TruthParams(), replace(EP, version=version), "edges")
    rt = records_truth((d.payload for d in datagrams_of(sc)), TruthParams())
    assert rt.records == len(sc.records)
    assert rt.cheetahs == sc.cheetahs
    assert rt.flowsets == sc.flowsets
