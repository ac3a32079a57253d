"""A file of datagrams: what `--datagrams-out` writes, `catch` records and `replay` sends.

Layout: the 8-byte magic b"CHTDGRM1", then per datagram a 16-byte header
(payload length u32, virtual export time in ms u64, exporter index u16,
flow records inside u16; big-endian) followed by the payload.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, NamedTuple

MAGIC = b"CHTDGRM1"
_HEAD = struct.Struct("!IQHH")


class StoredDatagram(NamedTuple):
    payload: bytes
    export_ms: int = 0
    exporter: int = 0
    records: int = 0


class DatagramWriter:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: BinaryIO = path.open("wb")
        self._fh.write(MAGIC)
        self.count = 0

    def write(self, d: StoredDatagram) -> None:
        self._fh.write(_HEAD.pack(len(d.payload), d.export_ms, d.exporter, min(d.records, 0xFFFF)))
        self._fh.write(d.payload)
        self.count += 1

    def flush(self) -> None:
        self._fh.flush()

    def close(self) -> None:
        self._fh.close()

    def __enter__(self) -> DatagramWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_datagrams(path: Path) -> Iterator[StoredDatagram]:
    with path.open("rb") as fh:
        if fh.read(len(MAGIC)) != MAGIC:
            raise ValueError(
                f"{path}: not a datagram file (magic {MAGIC!r} missing); write one with `catch` or --datagrams-out"
            )
        while True:
            head = fh.read(_HEAD.size)
            if not head:
                return
            if len(head) < _HEAD.size:
                raise ValueError(f"{path}: truncated datagram header at the end of the file")
            n, export_ms, exporter, records = _HEAD.unpack(head)
            payload = fh.read(n)
            if len(payload) < n:
                raise ValueError(f"{path}: truncated datagram ({len(payload)} of {n} bytes)")
            yield StoredDatagram(payload, export_ms, exporter, records)
