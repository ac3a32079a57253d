"""A small NetFlow v9 / IPFIX decoder: enough to read back what an exporter sent.

Used to count records when replaying captured exports, and by tests to check
what softflowd exports. Variable-length IPFIX fields are supported; enterprise
fields are skipped by length.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field


@dataclass
class DecodedRecord:
    version: int
    domain: int  # v9 source id / IPFIX observation domain
    export_s: int  # header unix secs / export time
    uptime_ms: int  # v9 sysUptime (0 for IPFIX)
    fields: dict[int, int | bytes]
    options: bool = False  # an options data record

    def time_ms(self, field_id: int) -> int:
        """v9 FIRST/LAST_SWITCHED as absolute ms (as goflow2 computes it), IPFIX ms IEs as-is."""
        v = self.fields[field_id]
        assert isinstance(v, int)
        if self.version == 9:
            return self.export_s * 1000 - self.uptime_ms + v
        return v


@dataclass
class Decoder:
    """Keeps templates per (version, domain, template id) across datagrams."""

    templates: dict[tuple[int, int, int], tuple[list[tuple[int, int]], int]] = field(default_factory=dict)
    missing_template: int = 0

    def decode(self, payload: bytes) -> list[DecodedRecord]:
        if len(payload) < 4:
            raise ValueError(f"datagram of {len(payload)} bytes is too short for a NetFlow header")
        version = struct.unpack_from("!H", payload)[0]
        if version == 9:
            _, _, uptime, secs, _, domain = struct.unpack_from("!HHIIII", payload)
            pos, end = 20, len(payload)
        elif version == 10:
            _, length, secs, _, domain = struct.unpack_from("!HHIII", payload)
            uptime, pos, end = 0, 16, min(length, len(payload))
        else:
            raise ValueError(f"unsupported NetFlow version {version}")
        out: list[DecodedRecord] = []
        while pos + 4 <= end:
            set_id, set_len = struct.unpack_from("!HH", payload, pos)
            if set_len < 4:
                raise ValueError(f"v{version} set {set_id} at byte {pos} has length {set_len} < 4")
            body = payload[pos + 4 : pos + set_len]
            pos += set_len
            if (version == 9 and set_id == 0) or (version == 10 and set_id == 2):
                self._templates(version, domain, body, options=None)
            elif (version == 9 and set_id == 1) or (version == 10 and set_id == 3):
                self._templates(version, domain, body, options=version)
            elif set_id >= 256:
                key = (version, domain, set_id)
                if key not in self.templates:
                    self.missing_template += 1
                    continue
                fields, scope_count = self.templates[key]
                out.extend(self._data(version, domain, secs, uptime, body, fields, scope_count))
        return out

    def _templates(self, version: int, domain: int, body: bytes, options: int | None) -> None:
        p = 0
        while p + 4 <= len(body):
            if options is None:
                tid, count = struct.unpack_from("!HH", body, p)
                p += 4
                scope_count = -1
            elif version == 9:
                tid, scope_len, opt_len = struct.unpack_from("!HHH", body, p)
                p += 6
                scope_count, count = scope_len // 4, (scope_len + opt_len) // 4
            else:
                tid, count, scope_count = struct.unpack_from("!HHH", body, p)
                p += 6
            if tid < 256 or count == 0:
                return  # padding
            fields = []
            for _ in range(count):
                t, n = struct.unpack_from("!HH", body, p)
                p += 4
                if version == 10 and t & 0x8000:
                    p += 4  # enterprise number
                    t = 0x8000 | (t & 0x7FFF)
                fields.append((t, n))
            self.templates[(version, domain, tid)] = (fields, scope_count)

    def _data(
        self,
        version: int,
        domain: int,
        secs: int,
        uptime: int,
        body: bytes,
        fields: list[tuple[int, int]],
        scope_count: int,
    ) -> list[DecodedRecord]:
        fixed = sum(n for _, n in fields if n != 0xFFFF)
        out = []
        p = 0
        while len(body) - p >= max(fixed, 1):
            values: dict[int, int | bytes] = {}
            for t, n in fields:
                if n == 0xFFFF:
                    n = body[p]
                    p += 1
                    if n == 255:
                        n = struct.unpack_from("!H", body, p)[0]
                        p += 2
                raw = body[p : p + n]
                p += n
                values[t] = int.from_bytes(raw, "big") if n <= 8 else raw
            out.append(DecodedRecord(version, domain, secs, uptime, values, options=scope_count >= 0))
        return out
