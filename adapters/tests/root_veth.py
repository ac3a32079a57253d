"""A veth pair with one end in the root namespace and its peer in a namespace made for one test.

    root namespace: HOST (10.X.Y.1/24)  <==>  namespace NS: PEER (10.X.Y.2/24)

The root end is where an exporter (softflowd) and the tc adapter work, as on a router's
interface. Names and the /24 are random and checked against what the root namespace already
has, so nothing else is touched. delete() removes the link (its peer and every qdisc on it go
with it) and the namespace; it is safe to call on a half-made pair.
"""

from __future__ import annotations

import ipaddress
import secrets
import subprocess
from dataclasses import dataclass

from tests.namespaces import sh


@dataclass
class RootVeth:
    host: str  # the root-namespace end
    peer: str  # its peer, inside ns
    ns: str
    host_ip: str
    peer_ip: str

    def in_ns(self, *argv: str) -> list[str]:
        return ["ip", "netns", "exec", self.ns, *argv]

    def delete(self) -> None:
        subprocess.run(["ip", "link", "del", self.host], capture_output=True)
        subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)


def _free_subnet() -> ipaddress.IPv4Network:
    """A 10.x.y.0/24 that no address or route of the root namespace overlaps."""
    used = []
    for line in sh("ip", "-4", "-o", "addr", "show").splitlines() + sh("ip", "-4", "route", "show", "table", "all").splitlines():
        for word in line.split():
            try:
                used.append(ipaddress.ip_network(word, strict=False))
            except ValueError:
                continue
    for _ in range(100):
        net = ipaddress.ip_network(f"10.{200 + secrets.randbelow(50)}.{secrets.randbelow(256)}.0/24")
        if not any(net.overlaps(u) for u in used if u.prefixlen > 0):
            return net
    raise RuntimeError("no free 10.200-249.x.0/24 in the root namespace after 100 tries; remove stale test interfaces")


def make_root_veth() -> RootVeth:
    tag = secrets.token_hex(3)
    net = _free_subnet()
    pair = RootVeth(host=f"chx-h{tag}", peer=f"chx-p{tag}", ns=f"chx-{tag}", host_ip=str(net[1]), peer_ip=str(net[2]))
    try:
        sh("ip", "netns", "add", pair.ns)
        sh("ip", "link", "add", pair.host, "type", "veth", "peer", "name", pair.peer, "netns", pair.ns)
        sh("ip", "addr", "add", f"{pair.host_ip}/24", "dev", pair.host)
        sh("ip", "link", "set", pair.host, "up")
        sh("ip", "-n", pair.ns, "addr", "add", f"{pair.peer_ip}/24", "dev", pair.peer)
        sh("ip", "-n", pair.ns, "link", "set", pair.peer, "up")
        sh("ip", "-n", pair.ns, "link", "set", "lo", "up")
    except Exception:
        pair.delete()
        raise
    return pair
