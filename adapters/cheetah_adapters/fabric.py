"""The fabric topology file (docs/FABRIC.md, "The topology file"), read by the openflow adapter to
place a REROUTE's links (`SW:PORT>SW:PORT`) on switches and OpenFlow ports.

The format is the one net.cheetah.fabric.FabricFile reads; this loader checks what the adapter
relies on (names, ports, cables, hosts, no unknown field) with errors naming the file and the
entry. `./cheetah fabric check FILE` is the complete check (reachability, equal-cost paths).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

LAYERS = ("edge", "aggregation", "core")
MAX_PORT = 65280  # OpenFlow's highest physical port number (OFPP_MAX)
_ENDPOINT = re.compile(r"^([^:\s>,]+):(\d+)$")


class FabricError(ValueError):
    pass


@dataclass(frozen=True)
class Hop:
    """One link of a path as a switch sees it: the switch it leaves and the port it leaves by."""

    switch: str
    out_port: int
    link: str  # FROM>TO
    to_switch: str


@dataclass(frozen=True)
class Fabric:
    name: str
    layers: dict[str, str]  # switch -> layer
    ports: dict[str, tuple[int, ...]]
    cables: dict[tuple[str, int], tuple[str, int]]  # each switch-to-switch port -> the port at the cable's other end
    hosts: dict[str, tuple[str, int]]  # address -> its edge switch port
    capacities: dict[tuple[str, int], float] = field(default_factory=dict)  # switch port (cable or host) -> bit/s each way
    host_names: dict[str, str] = field(default_factory=dict)  # address -> the host's name

    def path(self, text: str) -> list[Hop]:
        """The hops of a REROUTE path (`A:1>B:2,B:3>C:1`): each link must be a cable of this fabric,
        each link must start on the switch the previous one ends on, and no switch is crossed twice."""
        if not text.strip():
            raise FabricError("the path is empty: a REROUTE names its links (SW:PORT>SW:PORT, comma-separated)")
        hops: list[Hop] = []
        seen: set[str] = set()
        previous_end: str | None = None
        for i, link in enumerate(text.split(",")):
            ends = link.split(">")
            if len(ends) != 2:
                raise FabricError(f"path link {i} {link!r} is not FROM>TO (SW:PORT>SW:PORT)")
            (a_sw, a_port), (b_sw, b_port) = (_endpoint(e, f"path link {i}") for e in ends)
            if self.cables.get((a_sw, a_port)) != (b_sw, b_port):
                raise FabricError(f"path link {i} {link!r} is not a cable of fabric {self.name!r}")
            if previous_end is not None and a_sw != previous_end:
                raise FabricError(f"path link {i} {link!r} starts at {a_sw!r}, not at {previous_end!r} where link {i - 1} ends")
            if a_sw in seen:
                raise FabricError(f"path crosses switch {a_sw!r} twice")
            seen.add(a_sw)
            hops.append(Hop(a_sw, a_port, link, b_sw))
            previous_end = b_sw
        if previous_end in seen:
            raise FabricError(f"path crosses switch {previous_end!r} twice")
        return hops


def _endpoint(text: Any, where: str) -> tuple[str, int]:
    m = _ENDPOINT.match(str(text).strip())
    if not m:
        raise FabricError(f"{where}: {str(text)!r} is not a port (SWITCH:PORT)")
    return m.group(1), int(m.group(2))


def _fields(entry: Any, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise FabricError(f"{where}: must be a mapping ({{{', '.join(required)}}})")
    unknown = sorted(set(entry) - set(required) - set(optional))
    if unknown:
        raise FabricError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(required + optional)})")
    for name in required:
        if entry.get(name) is None:
            raise FabricError(f"{where}: has no {name}")
    return entry


def _capacity(value: Any, where: str) -> float:
    try:
        bps = float(value)  # YAML reads 10e6 as a string: float() takes it
    except (TypeError, ValueError):
        raise FabricError(f"{where}: capacity_bps {value!r} is not a number") from None
    if not bps > 0 or bps == float("inf"):
        raise FabricError(f"{where}: capacity_bps {value!r} must be a positive number")
    return bps


def parse(text: str, source: str) -> Fabric:
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = f" (line {mark.line + 1})" if mark is not None else ""
        raise FabricError(f"{source} is not valid YAML{line}: {getattr(e, 'problem', e)}") from None
    if not isinstance(doc, dict):
        raise FabricError(f"{source} must be a YAML mapping with name, switches, links, hosts")
    _fields(doc, source, ("name", "switches", "links"), ("hosts",))
    layers: dict[str, str] = {}
    ports: dict[str, tuple[int, ...]] = {}
    for i, entry in enumerate(doc["switches"] or []):
        where = f"{source}: switches[{i}]"
        sw = _fields(entry, where, ("name", "layer", "ports"))
        name = str(sw["name"])
        if name in layers:
            raise FabricError(f"{where}: switch {name!r} is declared twice")
        if sw["layer"] not in LAYERS:
            raise FabricError(f"{where}: layer {sw['layer']!r} is not one of {', '.join(LAYERS)}")
        numbers = sw["ports"]
        if not isinstance(numbers, list) or not all(isinstance(p, int) and not isinstance(p, bool) for p in numbers):
            raise FabricError(f"{where}: ports must be a list of port numbers")
        for p in numbers:
            if not 1 <= p <= MAX_PORT:
                raise FabricError(f"{where}: port {p} is outside 1..{MAX_PORT}")
        if len(set(numbers)) != len(numbers):
            raise FabricError(f"{where}: switch {name!r} lists a port twice")
        layers[name], ports[name] = str(sw["layer"]), tuple(numbers)
    used: dict[tuple[str, int], str] = {}

    def take(end: Any, where: str) -> tuple[str, int]:
        sw, port = _endpoint(end, where)
        if sw not in layers:
            raise FabricError(f"{where}: unknown switch {sw!r}")
        if port not in ports[sw]:
            raise FabricError(f"{where}: switch {sw!r} has no port {port} (it lists {list(ports[sw])})")
        if (sw, port) in used:
            raise FabricError(f"{where}: port {sw}:{port} is already used by {used[(sw, port)]}")
        used[(sw, port)] = where
        return sw, port

    cables: dict[tuple[str, int], tuple[str, int]] = {}
    capacities: dict[tuple[str, int], float] = {}
    for i, entry in enumerate(doc["links"] or []):
        where = f"{source}: links[{i}]"
        cable = _fields(entry, where, ("a", "b", "capacity_bps"))
        a, b = take(cable["a"], where), take(cable["b"], where)
        if a[0] == b[0]:
            raise FabricError(f"{where}: connects switch {a[0]!r} to itself")
        capacities[a] = capacities[b] = _capacity(cable["capacity_bps"], where)
        cables[a], cables[b] = b, a
    hosts: dict[str, tuple[str, int]] = {}
    names: dict[str, str] = {}
    for i, entry in enumerate(doc.get("hosts") or []):
        where = f"{source}: hosts[{i}]"
        host = _fields(entry, where, ("name", "address", "edge", "capacity_bps"))
        try:
            address = str(ipaddress.ip_address(str(host["address"])))
        except ValueError:
            raise FabricError(f"{where}: address {host['address']!r} is not an IP address (names are not resolved)") from None
        edge = take(host["edge"], where)
        if layers[edge[0]] != "edge":
            raise FabricError(f"{where}: host {host['name']!r} is on {edge[0]!r}, a {layers[edge[0]]} switch, not an edge switch")
        if address in hosts:
            raise FabricError(f"{where}: address {address} is already the address of another host")
        capacities[edge] = _capacity(host["capacity_bps"], where)
        hosts[address], names[address] = edge, str(host["name"])
    return Fabric(str(doc["name"]), layers, ports, cables, hosts, capacities, names)


def load(path: Path) -> Fabric:
    try:
        text = path.read_text()
    except OSError as e:
        raise FabricError(f"fabric file {path}: cannot read it ({e.strerror})") from None
    return parse(text, str(path))
