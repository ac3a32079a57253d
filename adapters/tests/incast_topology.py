"""Three network namespaces for the incast guard's tests: a receiver, a switch and a sender side.

    <tag>-r (r0: 10.78.1.2, fd78:1::2) == s-r [guard here] <tag>-s [forwards] s-x == x0 (10.78.2.2, fd78:2::2) <tag>-x

The guard sits on the switch's port towards the receiver (s-r): its ingress sees what the receiver
sends, its egress what goes to it. Crafted packets use the addresses FAKE_R / FAKE_X, which no
namespace owns: the switch forwards them (static neighbours) and the far side's kernel drops them
without answering, so a test sees exactly the packets it sent.
"""

from __future__ import annotations

import secrets
import socket
import subprocess
from dataclasses import dataclass
from typing import Iterator

import pytest

from cheetah_adapters.incast.qdisc import in_netns
from tests.conftest import require_tool
from tests.namespaces import sh

FAKE_R, FAKE_X = "10.78.1.50", "10.78.2.50"
FAKE6_R, FAKE6_X = "fd78:1::50", "fd78:2::50"
ETH_P_ALL = 0x0003


@dataclass
class Topology:
    tag: str

    @property
    def r(self) -> str:
        return f"{self.tag}-r"

    @property
    def s(self) -> str:
        return f"{self.tag}-s"

    @property
    def x(self) -> str:
        return f"{self.tag}-x"

    def mac(self, ns: str, dev: str) -> bytes:
        text = sh("ip", "-n", ns, "-br", "link", "show", dev).split()
        return bytes.fromhex(text[2].replace(":", ""))

    def raw(self, ns: str, dev: str) -> socket.socket:
        """An AF_PACKET socket on dev, made inside ns (it stays there)."""

        def make() -> socket.socket:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((dev, ETH_P_ALL))
            s.settimeout(0.2)
            return s

        return in_netns(ns, make)

    def delete(self) -> None:
        for ns in (self.r, self.s, self.x):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def make_topology() -> Topology:
    t = Topology("cig" + secrets.token_hex(2))
    try:
        for ns in (t.r, t.s, t.x):
            sh("ip", "netns", "add", ns)
            sh("ip", "-n", ns, "link", "set", "lo", "up")
        sh("ip", "link", "add", "r0", "netns", t.r, "type", "veth", "peer", "name", "s-r", "netns", t.s)
        sh("ip", "link", "add", "x0", "netns", t.x, "type", "veth", "peer", "name", "s-x", "netns", t.s)
        for ns, dev, v4, v6 in (
            (t.r, "r0", "10.78.1.2/24", "fd78:1::2/64"), (t.s, "s-r", "10.78.1.1/24", "fd78:1::1/64"),
            (t.s, "s-x", "10.78.2.1/24", "fd78:2::1/64"), (t.x, "x0", "10.78.2.2/24", "fd78:2::2/64"),
        ):
            sh("ip", "-n", ns, "addr", "add", v4, "dev", dev)
            sh("ip", "-n", ns, "addr", "add", v6, "dev", dev, "nodad")
            sh("ip", "-n", ns, "link", "set", dev, "up")
        sh("ip", "-n", t.r, "route", "add", "default", "via", "10.78.1.1")
        sh("ip", "-n", t.r, "-6", "route", "add", "default", "via", "fd78:1::1")
        sh("ip", "-n", t.x, "route", "add", "default", "via", "10.78.2.1")
        sh("ip", "-n", t.x, "-6", "route", "add", "default", "via", "fd78:2::1")
        sh("ip", "netns", "exec", t.s, "sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1")
        for dev, far_ns, far_dev, v4, v6 in ((("s-r", t.r, "r0", FAKE_R, FAKE6_R)), ("s-x", t.x, "x0", FAKE_X, FAKE6_X)):
            mac = ":".join(f"{b:02x}" for b in t.mac(far_ns, far_dev))
            sh("ip", "-n", t.s, "neigh", "replace", v4, "lladdr", mac, "dev", dev, "nud", "permanent")
            sh("ip", "-n", t.s, "-6", "neigh", "replace", v6, "lladdr", mac, "dev", dev, "nud", "permanent")
    except Exception:
        t.delete()
        raise
    return t


@pytest.fixture
def topology() -> Iterator[Topology]:
    """Imported by the incast tests: a fresh topology per test, deleted after it."""
    require_tool("tc", "iproute2")
    t = make_topology()
    try:
        yield t
    finally:
        t.delete()
