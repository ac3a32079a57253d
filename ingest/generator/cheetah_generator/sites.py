"""Research sites (site-a, site-b, ...), each a /24 inside 198.18.0.0/15, and 5-tuple bookkeeping."""

from __future__ import annotations

import random
from dataclasses import dataclass

from .flows import FiveTuple

BASE_198_18 = (198 << 24) | (18 << 16)
DTN_HOSTS = range(10, 20)  # data transfer nodes: .10 - .19
GENERAL_HOSTS = range(20, 251)
EPHEMERAL_PORTS = (32768, 60999)


@dataclass(frozen=True)
class Site:
    index: int
    name: str
    prefix: int  # network address of the /24
    asn: int
    ifindex: int  # interface of the site's border link on the exporter

    def host(self, last_octet: int) -> int:
        return self.prefix | last_octet

    @property
    def cidr(self) -> str:
        return f"198.18.{(self.prefix >> 8) & 0xFF}.0/24"


def make_sites(n: int) -> list[Site]:
    """site-a is 198.18.1.0/24, site-b 198.18.2.0/24, ... (private AS 65001, 65002, ...)."""
    sites = []
    for i in range(n):
        name = "site-" + _letters(i)
        sites.append(Site(i, name, BASE_198_18 | ((i + 1) << 8), 65001 + i, 10 + i))
    return sites


def _letters(i: int) -> str:
    s = ""
    i += 1
    while i:
        i, r = divmod(i - 1, 26)
        s = chr(97 + r) + s
    return s


class TupleRegistry:
    """Hands out source ports so that no 5-tuple is ever used by two flows.

    The platform stitches records of one 5-tuple whose gap is <= G; unique
    5-tuples make sure two modelled flows never merge into one by accident.
    """

    def __init__(self) -> None:
        self._used: set[FiveTuple] = set()

    def __contains__(self, key: FiveTuple) -> bool:
        return key in self._used

    def allocate(self, rng: random.Random, src: int, dst: int, dst_port: int, proto: int) -> FiveTuple:
        lo, hi = EPHEMERAL_PORTS
        for _ in range(1000):
            key = FiveTuple(src, dst, lo + int(rng.random() * (hi - lo + 1)), dst_port, proto)
            if key not in self._used:
                return key
        raise RuntimeError(f"no free source port for {src}->{dst}:{dst_port}/{proto}: use more sites or fewer flows")

    def claim(self, keys: list[FiveTuple]) -> None:
        """Mark keys used (they come from allocate(), so they are free)."""
        self._used.update(keys)
