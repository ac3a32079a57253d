"""The truth of an exporter's records: cheetahs and flowsets of a datagram file, by truth.py's rules.

For exports the generator did not model record by record (softflowd's of a
pcap): the packet-level truth says which flows are cheetahs, and this says
what their peak interval is when the exported records are apportioned as the
definition says (whole-byte shares, truth.py), so the peak can be compared
exactly. Sampling comes from the exporter's options records (IEs 305, 50, 34,
the first found, per version and domain, as goflow2 reads them). Every
datagram of a file is taken to come from one exporter address (`replay` sends
them from one socket), so records are stitched per 5-tuple.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .decode import Decoder, DecodedRecord
from .flows import FiveTuple
from .params import TruthParams
from .truth import Cheetah, Flowset, SeenRecord, find_cheetahs, group_flowsets, stitch

SAMPLING_IES = (305, 50, 34)


@dataclass(frozen=True)
class RecordsTruth:
    records: int
    cheetahs: list[Cheetah]
    flowsets: list[Flowset]


def seen_records(payloads: Iterable[bytes]) -> list[SeenRecord]:
    dec = Decoder()
    sampling: dict[tuple[int, int], int] = {}
    out: list[SeenRecord] = []
    for p in payloads:
        for r in dec.decode(p):
            if r.options:
                rate = next((r.fields[ie] for ie in SAMPLING_IES if ie in r.fields), None)
                if isinstance(rate, int):
                    sampling[(r.version, r.domain)] = rate
                continue
            out.append(_seen(r, max(1, sampling.get((r.version, r.domain), 1))))
    return out


def _seen(r: DecodedRecord, rate: int) -> SeenRecord:
    f = r.fields
    key = FiveTuple(*(int(f[ie]) for ie in (8, 12, 7, 11, 4)))  # type: ignore[arg-type]
    if 152 in f and 153 in f:
        first, last = int(f[152]), int(f[153])  # type: ignore[arg-type]
    else:
        first, last = r.time_ms(22), r.time_ms(21)
    return SeenRecord(0, key, first, last, int(f[1]) * rate)  # type: ignore[arg-type]


def records_truth(payloads: Iterable[bytes], tp: TruthParams) -> RecordsTruth:
    seen = seen_records(payloads)
    cheetahs = find_cheetahs(stitch(seen, tp.gap_ms), tp.h_bytes, tp.interval_ms)
    return RecordsTruth(len(seen), cheetahs, group_flowsets(cheetahs, tp.tau_ms))
