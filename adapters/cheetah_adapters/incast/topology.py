"""The incast experiment's network: N senders and one receiver behind a top-of-rack switch whose
port towards the receiver is the shallow-buffer bottleneck (docs/INCAST.md, "Topology").

    ns <tag>-s0 (eth0 10.9.0.10) ─┐
    ns <tag>-s1 (eth0 10.9.0.11) ─┤ ns <tag>-sw: bridge br0, ports s0..sN-1 and r0
    ...                           │   r0 egress: tbf rate R, byte limit B (the port buffer)
    ns <tag>-sN-1               ──┘ ═ r0 ══ ns <tag>-r (eth0 10.9.0.1): the receiver (aggregator)

Everything lives in namespaces made here (names start with "ix" and a random tag), so nothing of
the host is touched and delete() (namespaces take their veth ends and qdiscs with them) cleans up
even a half-built topology. The senders' eth0 have gso_max_segs 1: TCP then hands the veth one
MSS per packet, as a NIC puts on the wire, instead of 64 KB GSO bursts (no ethtool needed).
"""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
from dataclasses import dataclass, field

from cheetah_adapters.incast.qdisc import in_netns

RECEIVER_IP = "10.9.0.1"
SENDER_BASE = 10  # sender i is 10.9.0.(10 + i)
MAX_SENDERS = 200
PREFIX_LEN = 24
PORT_TO_RECEIVER = "r0"  # the bottleneck: the switch's port towards the receiver


class TopologyError(RuntimeError):
    pass


def sh(*argv: str, stdin: str | None = None) -> str:
    done = subprocess.run(list(argv), input=stdin, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise TopologyError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def sender_ip(i: int) -> str:
    return f"10.9.0.{SENDER_BASE + i}"


@dataclass(frozen=True)
class Bottleneck:
    rate: str = "100mbit"  # tc rate of the port towards the receiver
    buffer_bytes: int = 65536  # the port buffer B: tbf's byte limit
    burst_bytes: int = 3028  # tbf bucket: two full frames, so the port sends at line rate, not in bursts


@dataclass
class Topology:
    tag: str
    senders: int
    bottleneck: Bottleneck
    namespaces: list[str] = field(default_factory=list)  # every namespace made, for delete()

    @property
    def switch(self) -> str:
        return f"{self.tag}-sw"

    @property
    def receiver(self) -> str:
        return f"{self.tag}-r"

    def sender(self, i: int) -> str:
        return f"{self.tag}-s{i}"

    def delete(self) -> None:
        for ns in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.namespaces.clear()

    def qdisc_stats(self) -> dict[str, int]:
        """The bottleneck qdisc's own counters: sent bytes/packets, drops, overlimits, backlog."""
        shown = json.loads(sh("tc", "-n", self.switch, "-s", "-j", "qdisc", "show", "dev", PORT_TO_RECEIVER, "root") or "[]")
        if not shown:
            raise TopologyError(f"no root qdisc on {PORT_TO_RECEIVER} in {self.switch}")
        q = shown[0]
        return {k: int(q.get(k, 0)) for k in ("bytes", "packets", "drops", "overlimits", "backlog", "qlen")}


def build(senders: int, bottleneck: Bottleneck = Bottleneck()) -> Topology:
    if not 1 <= senders <= MAX_SENDERS:
        raise TopologyError(f"senders must be 1..{MAX_SENDERS}, not {senders}")
    topo = Topology(tag="ix" + secrets.token_hex(3), senders=senders, bottleneck=bottleneck)
    try:
        for ns in [topo.switch, topo.receiver] + [topo.sender(i) for i in range(senders)]:
            sh("ip", "netns", "add", ns)
            topo.namespaces.append(ns)
        sw = [
            "link add br0 type bridge stp_state 0",
            "link set lo up",
        ]
        sh("ip", "link", "add", PORT_TO_RECEIVER, "netns", topo.switch, "type", "veth", "peer", "name", "eth0", "netns", topo.receiver)
        for i in range(senders):
            sh("ip", "link", "add", f"s{i}", "netns", topo.switch, "type", "veth", "peer", "name", "eth0", "netns", topo.sender(i))
        for port in [PORT_TO_RECEIVER] + [f"s{i}" for i in range(senders)]:
            sw += [f"link set {port} master br0", f"link set {port} up"]
        sw.append("link set br0 up")
        sh("ip", "-n", topo.switch, "-batch", "-", stdin="\n".join(sw) + "\n")
        b = bottleneck
        sh("tc", "-n", topo.switch, "qdisc", "add", "dev", PORT_TO_RECEIVER, "root", "handle", "1:", "tbf",
           "rate", b.rate, "burst", str(b.burst_bytes), "limit", str(b.buffer_bytes))
        hosts = [(topo.receiver, RECEIVER_IP, False)] + [(topo.sender(i), sender_ip(i), True) for i in range(senders)]
        for ns, ip, is_sender in hosts:
            cmds = [f"addr add {ip}/{PREFIX_LEN} dev eth0", "link set lo up"]
            if is_sender:
                cmds.append("link set eth0 gso_max_segs 1")
            cmds.append("link set eth0 up")
            sh("ip", "-n", ns, "-batch", "-", stdin="\n".join(cmds) + "\n")
    except Exception:
        topo.delete()
        raise
    return topo


def socket_in(ns: str, family: int = socket.AF_INET, kind: int = socket.SOCK_STREAM) -> socket.socket:
    """A socket made inside namespace `ns` (it stays there; this process does not move)."""
    return in_netns(ns, lambda: socket.socket(family, kind))
