"""Sites file: which address prefixes belong to which site.

Format (JSON): an object mapping a site name to a list of CIDR prefixes,
IPv4 or IPv6, e.g. ``{"lab-a": ["198.18.0.0/17"], "lab-b": ["198.18.128.0/17"]}``.
An address belongs to the first site (in file order) with a matching prefix.
Addresses in cheetah.v1 are IPv6 (IPv4 mapped), so IPv4 prefixes are turned
into their IPv4-mapped IPv6 form (``::ffff:198.18.0.0/113``) for the queries.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from pathlib import Path

from .errors import WarehouseError


@dataclass(frozen=True)
class Site:
    name: str
    prefixes: tuple[str, ...]  # as IPv6 CIDRs


@dataclass(frozen=True)
class Sites:
    sites: tuple[Site, ...] = ()

    def query_params(self) -> dict[str, str]:
        """Parallel arrays, one entry per prefix: {site_names:Array(String)}, {site_prefixes:Array(String)}."""
        names: list[str] = []
        prefixes: list[str] = []
        for site in self.sites:
            for prefix in site.prefixes:
                names.append(site.name)
                prefixes.append(prefix)
        return {"site_names": _array_literal(names), "site_prefixes": _array_literal(prefixes)}


def _array_literal(values: list[str]) -> str:
    quoted = ("'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'" for v in values)
    return "[" + ",".join(quoted) + "]"


def as_ipv6_cidr(prefix: str) -> str:
    network = ipaddress.ip_network(prefix, strict=False)
    if isinstance(network, ipaddress.IPv4Network):
        mapped = ipaddress.IPv6Address("::ffff:" + str(network.network_address))
        return f"{mapped}/{96 + network.prefixlen}"
    return str(network)


def parse_sites(text: str, origin: str = "sites file") -> Sites:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WarehouseError(
            f"{origin} is not valid JSON ({exc}); expected an object like "
            '{"lab-a": ["198.18.0.0/17"], "lab-b": ["198.18.128.0/17"]}'
        ) from None
    if not isinstance(data, dict) or not data:
        raise WarehouseError(f"{origin} must be a non-empty JSON object mapping site name -> list of CIDR prefixes")
    sites: list[Site] = []
    for name, prefixes in data.items():
        if not isinstance(prefixes, list) or not prefixes or not all(isinstance(p, str) for p in prefixes):
            raise WarehouseError(f"{origin}: site {name!r} must map to a non-empty list of CIDR strings")
        converted: list[str] = []
        for prefix in prefixes:
            try:
                converted.append(as_ipv6_cidr(prefix))
            except ValueError as exc:
                raise WarehouseError(f"{origin}: site {name!r} has an invalid prefix {prefix!r}: {exc}") from None
        sites.append(Site(str(name), tuple(converted)))
    return Sites(tuple(sites))


def load_sites(path: Path) -> Sites:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise WarehouseError(f"cannot read sites file {path}: {exc.strerror}") from None
    return parse_sites(text, origin=f"sites file {path}")
