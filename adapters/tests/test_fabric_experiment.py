"""The fabric experiment's pure parts (adapters/cheetah_adapters/fabric_experiment.py; docs/FABRIC.md,
"The experiment"): flow placement for collisions against a path oracle, the mean and its 95 % interval,
the summary, with values computed by hand."""

from __future__ import annotations

import math

import pytest

from cheetah_adapters.fabric_experiment import (SERVER_PORT, TESTS, PlacementError, crosses, csv_text, flows_of,
                                                mean_ci95, place, start_offset, summarize, svg)


def test_mean_and_95_interval_by_hand() -> None:
    # 10, 12, 14: mean 12, sample sd 2, t(0.975, 2 df) = 4.303: 4.303 * 2 / sqrt(3) = 4.96868
    mean, half = mean_ci95([10.0, 12.0, 14.0])
    assert mean == 12.0 and half == pytest.approx(4.96868, abs=1e-5)
    # 1..5: mean 3, sd sqrt(2.5) = 1.581139, t(4 df) = 2.776: 2.776 * 1.581139 / sqrt(5) = 1.962923
    mean, half = mean_ci95([1.0, 2.0, 3.0, 4.0, 5.0])
    assert mean == 3.0 and half == pytest.approx(1.962923, abs=1e-5)
    assert mean_ci95([5.0]) == (5.0, 0.0)  # one run: no interval
    with pytest.raises(ValueError):
        mean_ci95([])


def test_a_path_crosses_a_hop_only_in_its_direction() -> None:
    path = ["e1", "a1", "c1", "a7", "e7"]
    assert crosses(path, ("a1", "c1")) and crosses(path, ("c1", "a7"))
    assert not crosses(path, ("c1", "a1")) and not crosses(path, ("e1", "c1"))


def test_placement_takes_the_first_ports_from_the_seeds_offset_that_collide() -> None:
    # A hand-made oracle: client ports divisible by 4 go up a1 -> c1, the others a1 -> c2.
    calls = []

    def path_of(src: str, dst: str, cport: int, sport: int) -> list[str]:
        calls.append((src, cport, sport))
        return ["e1", "a1", "c1" if cport % 4 == 0 else "c2", "a3", "e3"]

    # ports 100..119, seed 1: offset 7919 mod 20 = 19, so the search starts at 119 and wraps to 100.
    assert start_offset(1, 20) == 19 and start_offset(3, 100) == 57
    flows = [("h1", "h5", ("a1", "c1")), ("h2", "h9", ("a1", "c1")), ("h3", "h13", ("a1", "c2"))]
    # F1: 119 (c2) no, 100 (c1) yes. F2: 119 no, 100 taken, 101-103 no, 104 yes. F3 (wants c2): 119.
    assert place(flows, path_of, seed=1, ports=range(100, 120)) == [100, 104, 119]
    assert {sport for src, _, sport in calls if src == "h1"} == {SERVER_PORT}  # flow i asks with server port 5201 + i
    assert {sport for src, _, sport in calls if src == "h3"} == {SERVER_PORT + 2}
    with pytest.raises(PlacementError, match="none of 5 client ports from 119 crosses a1 -> c3"):
        place([("h1", "h5", ("a1", "c3"))], path_of, seed=1, ports=range(100, 120), tries=5)


def test_the_tests_are_the_studys_collisions() -> None:
    # Tests 1, 3: three flows on one core link; 2, 4: a fourth, background flow on another.
    assert [len(flows_of(TESTS[t], 1)) for t in (1, 2, 3, 4)] == [3, 4, 3, 4]
    assert {hop for _, _, hop, _ in flows_of(TESTS[1], 1)} == {("a1", "c1")}
    assert flows_of(TESTS[4], 2)[3] == ("h11", "h16", ("c2", "a7"), 2.0)
    for t in TESTS.values():  # distinct sources and destinations: no host link is shared
        ends = [s for s, _ in t.flows] + [d for _, d in t.flows]
        assert len(set(ends)) == len(ends)


def test_summary_rows_by_hand() -> None:
    def rec(seed: int, flow: int, fct: float, bps: float) -> dict[str, object]:
        return {"test": 1, "variation": 1, "mode": "ecmp", "seed": seed, "flow": flow, "src": "h1", "dst": "h5",
                "background": False, "fct_s": fct, "throughput_bps": bps, "on_hop": True}

    rows = summarize([rec(1, 1, 10.0, 4e6), rec(2, 1, 12.0, 5e6), rec(3, 1, 14.0, 6e6), rec(1, 2, 20.0, 3e6)])
    assert [(r["flow"], r["runs"], r["fct_s_mean"], r["fct_s_ci95"], r["throughput_mbps_mean"], r["throughput_mbps_ci95"])
            for r in rows] == [(1, 3, 12.0, 4.969, 5.0, round(4.303 * 1 / math.sqrt(3), 3)), (2, 1, 20.0, 0.0, 3.0, 0.0)]
    assert csv_text(rows).splitlines()[1].startswith("1,1,ecmp,1,h1,h5,false,3,12.0,4.969,5.0,2.484,true")
    assert svg(rows, 20 * 1024 * 1024).count("<rect") == 1 + 2 + 1  # background, two bars, one legend key
