"""Packs records into NetFlow v9 / IPFIX datagrams, per modelled exporter.

Each exporter emits a record when it ends (its last_ms); records wait at most
flush_ms (virtual) in the datagram being filled. A datagram's export time is
its newest record's last_ms rounded up to a whole second (both v9 unix_secs
and IPFIX exportTime are whole seconds). Templates (and, when sampling, the
options template plus one options data record carrying N) open the first
datagram of every exporter and every template_every-th after it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from . import ipfix, netflow_v9
from .flows import Flow
from .params import ExportParams
from .records import ExportRecord

FLOW_TEMPLATE_ID = 256
OPTIONS_TEMPLATE_ID = 257


@dataclass(frozen=True)
class Datagram:
    export_ms: int  # virtual time, whole seconds
    exporter: int
    payload: bytes
    records: int  # flow data records inside


@dataclass(frozen=True)
class ExporterIdentity:
    index: int
    source_id: int  # v9 source id / IPFIX observation domain id
    boot_ms: int  # v9 sysUptime origin


def exporter_identities(params: ExportParams, time_base_ms: int) -> list[ExporterIdentity]:
    return [
        ExporterIdentity(k, params.source_id_base + k, time_base_ms - params.boot_before_ms - 1000 * k)
        for k in range(params.exporters)
    ]


class _Encoder:
    """Version-specific pieces; one instance per exporter (it carries the sequence number)."""

    def __init__(self, params: ExportParams, ident: ExporterIdentity) -> None:
        self.p = params
        self.ident = ident
        self.sequence = 0
        v9 = params.version == 9
        n = params.sampling_of(ident.index)
        self.record_len = (netflow_v9 if v9 else ipfix).FLOW_RECORD.size
        self.header_len = netflow_v9.HEADER_LEN if v9 else ipfix.HEADER_LEN
        if v9:
            tmpl = [netflow_v9.template_flowset(FLOW_TEMPLATE_ID, netflow_v9.FLOW_FIELDS)]
            if n > 1:
                tmpl.append(
                    netflow_v9.options_template_flowset(
                        OPTIONS_TEMPLATE_ID, netflow_v9.OPTION_SCOPES, netflow_v9.OPTION_FIELDS
                    )
                )
                tmpl.append(
                    netflow_v9.flowset(
                        OPTIONS_TEMPLATE_ID, netflow_v9.sampling_record(ident.source_id, n)
                    )
                )
        else:
            tmpl = [ipfix.template_set(FLOW_TEMPLATE_ID, ipfix.FLOW_FIELDS)]
            if n > 1:
                tmpl.append(ipfix.options_template_set(OPTIONS_TEMPLATE_ID, ipfix.OPTION_SCOPES, ipfix.OPTION_FIELDS))
                tmpl.append(ipfix.set_(OPTIONS_TEMPLATE_ID, ipfix.sampling_record(ident.source_id, n)))
        self.templates = b"".join(tmpl)
        # template records + options template records + options data records
        self.template_records = 1 + (2 if n > 1 else 0)
        self.option_data_records = 1 if n > 1 else 0

    def capacity(self, with_templates: bool) -> int:
        room = self.p.max_datagram_bytes - self.header_len - 4
        if with_templates:
            room -= len(self.templates)
        n: int = room // self.record_len
        while n > 0 and (4 + n * self.record_len + 3) // 4 * 4 > room + 4:
            n -= 1
        if n < 1:
            raise ValueError(f"max datagram size {self.p.max_datagram_bytes} B cannot hold one record")
        return n

    def encode(self, records: Sequence[ExportRecord], flows: Sequence[Flow], with_templates: bool) -> Datagram:
        last = max(r.last_ms for r in records)
        export_s = -(-last // 1000)
        body = self._data(records, flows)
        head_sets = self.templates if with_templates else b""
        if self.p.version == 9:
            count = len(records) + (self.template_records if with_templates else 0)
            uptime = export_s * 1000 - self.ident.boot_ms
            if not 0 <= uptime <= 0xFFFFFFFF:
                raise ValueError(f"v9 sysUptime {uptime} ms out of range: exporter boot too far from {export_s}")
            head = netflow_v9.header(count, uptime, export_s, self.sequence, self.ident.source_id)
            self.sequence += 1
        else:
            length = ipfix.HEADER_LEN + len(head_sets) + len(body)
            head = ipfix.header(length, export_s, self.sequence, self.ident.source_id)
            self.sequence += len(records) + (self.option_data_records if with_templates else 0)
        payload = head + head_sets + body
        assert len(payload) <= self.p.max_datagram_bytes
        return Datagram(export_s * 1000, self.ident.index, payload, len(records))

    def _data(self, records: Sequence[ExportRecord], flows: Sequence[Flow]) -> bytes:
        out: list[bytes] = []
        v9 = self.p.version == 9
        for r in records:
            f = flows[r.flow_index]
            k = f.key
            fields = dict(
                bytes_=r.bytes,
                packets=r.packets,
                proto=k.proto,
                tos=f.tos,
                tcp_flags=r.tcp_flags,
                src_port=k.src_port,
                src=k.src,
                dst_port=k.dst_port,
                dst=k.dst,
                src_as=f.src_as,
                dst_as=f.dst_as,
                in_if=f.in_if,
                out_if=f.out_if,
                first_ms=r.first_ms,
                last_ms=r.last_ms,
            )
            # v9 times are sysUptime-relative, so its encoder also needs the exporter's boot time.
            if v9:
                out.append(netflow_v9.flow_record(**fields, boot_ms=self.ident.boot_ms))
            else:
                out.append(ipfix.flow_record(**fields))
        raw = b"".join(out)
        return netflow_v9.flowset(FLOW_TEMPLATE_ID, raw) if v9 else ipfix.set_(FLOW_TEMPLATE_ID, raw)


def _exporter_datagrams(
    params: ExportParams, ident: ExporterIdentity, records: list[ExportRecord], flows: Sequence[Flow]
) -> Iterator[Datagram]:
    enc = _Encoder(params, ident)
    records.sort(key=lambda r: (r.last_ms, r.first_ms, r.flow_index))
    n_sent = 0
    buf: list[ExportRecord] = []
    cap = enc.capacity(True)
    for r in records:
        if buf and (len(buf) >= cap or r.last_ms - buf[0].last_ms > params.flush_ms):
            yield enc.encode(buf, flows, n_sent % params.template_every == 0)
            n_sent += 1
            buf = []
            cap = enc.capacity(n_sent % params.template_every == 0)
        buf.append(r)
    if buf:
        yield enc.encode(buf, flows, n_sent % params.template_every == 0)


def build_datagrams(
    flows: Sequence[Flow], records: Sequence[ExportRecord], params: ExportParams, time_base_ms: int
) -> Iterator[Datagram]:
    """All exporters' datagrams, merged in export-time order (ties: exporter index)."""
    idents = exporter_identities(params, time_base_ms)
    per: list[list[ExportRecord]] = [[] for _ in idents]
    for r in records:
        per[flows[r.flow_index].exporter].append(r)
    streams = [_exporter_datagrams(params, ident, per[ident.index], flows) for ident in idents]
    return iter(heapq.merge(*streams, key=lambda d: (d.export_ms, d.exporter)))
