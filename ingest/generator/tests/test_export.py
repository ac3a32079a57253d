"""Datagram packing, read back with the package's own decoder (goflow2 checks it for real elsewhere)."""

from __future__ import annotations

import struct
from collections import Counter, defaultdict

import pytest

from cheetah_generator.decode import Decoder
from cheetah_generator.export import build_datagrams
from cheetah_generator.params import ExportParams, TruthParams, WorkloadParams
from cheetah_generator.scenario import Scenario, build_scenario

WP = WorkloadParams(seed=5, span_ms=1_200_000, margin_ms=300_000, mice_per_s=3.0, realtime_flows=4, transfers=4)


def scenario(version: int, sampling: int) -> Scenario:
    return build_scenario(WP, TruthParams(), ExportParams(version=version, sampling=sampling, template_every=10))


@pytest.mark.parametrize("version,sampling", [(9, 1), (10, 1), (9, 64), (10, 64)])
def test_every_record_exactly_once_with_its_values(version: int, sampling: int) -> None:
    sc = scenario(version, sampling)
    dec = Decoder()
    got: Counter[tuple[int | bytes, ...]] = Counter()
    options = []
    datagrams = list(build_datagrams(sc.flows, sc.records, sc.export, WP.time_base_ms))
    for d in datagrams:
        assert len(d.payload) <= 1400
        for r in dec.decode(d.payload):
            if r.options:
                options.append(r)
                continue
            start_id, end_id = (22, 21) if version == 9 else (152, 153)
            got[
                (
                    r.fields[8],
                    r.fields[12],
                    r.fields[7],
                    r.fields[11],
                    r.fields[4],
                    r.fields[1],
                    r.fields[2],
                    r.time_ms(start_id),
                    r.time_ms(end_id),
                    r.fields[6],
                )
            ] += 1
    want: Counter[tuple[int | bytes, ...]] = Counter()
    for rec in sc.records:
        k = sc.flows[rec.flow_index].key
        want[
            (
                k.src,
                k.dst,
                k.src_port,
                k.dst_port,
                k.proto,
                rec.bytes,
                rec.packets,
                rec.first_ms,
                rec.last_ms,
                rec.tcp_flags,
            )
        ] += 1
    assert dec.missing_template == 0
    assert got == want
    if sampling > 1:
        assert options and all(o.fields[34] == sampling for o in options)
    else:
        assert not options


@pytest.mark.parametrize("version", [9, 10])
def test_headers_sequence_templates_and_time_order(version: int) -> None:
    sc = scenario(version, 8)
    datagrams = list(build_datagrams(sc.flows, sc.records, sc.export, WP.time_base_ms))
    assert [d.export_ms for d in datagrams] == sorted(d.export_ms for d in datagrams)
    per_exporter = defaultdict(list)
    for d in datagrams:
        per_exporter[d.exporter].append(d)
    assert set(per_exporter) == {0, 1}
    for idx, ds in per_exporter.items():
        data_records_before = 0
        for n, d in enumerate(ds):
            p = d.payload
            assert struct.unpack_from("!H", p)[0] == version
            has_templates = struct.unpack_from("!H", p, 20 if version == 9 else 16)[0] == (0 if version == 9 else 2)
            assert has_templates == (n % 10 == 0)
            if version == 9:
                count, uptime, secs, seq, source = struct.unpack_from("!HIIII", p, 2)
                assert seq == n and source == idx + 1
                assert count == d.records + (3 if has_templates else 0)
                assert secs * 1000 - uptime == WP.time_base_ms - 86_400_000 - 1000 * idx  # exporter boot
            else:
                length, secs, seq, domain = struct.unpack_from("!HIII", p, 2)
                assert length == len(p) and domain == idx + 1
                assert seq == data_records_before
                data_records_before += d.records + (1 if has_templates else 0)
            assert secs * 1000 == d.export_ms
