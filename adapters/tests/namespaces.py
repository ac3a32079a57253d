"""Two network namespaces joined by a veth pair, made for one test and deleted after it.

    <name>-a (veth a, 10.77.0.1/24, fd77::1/64)  <==>  <name>-b (veth b, 10.77.0.2/24, fd77::2/64)

Deleting a namespace deletes its end of the veth and every qdisc on it, so cleanup is complete
even when a test fails half-way.
"""

from __future__ import annotations

import secrets
import subprocess
from dataclasses import dataclass


def sh(*argv: str) -> str:
    done = subprocess.run(list(argv), capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


@dataclass
class VethPair:
    a: str  # namespace names
    b: str
    dev_a: str
    dev_b: str
    ip_a: str = "10.77.0.1"
    ip_b: str = "10.77.0.2"
    ip6_a: str = "fd77::1"
    ip6_b: str = "fd77::2"

    def run_in(self, ns: str, *argv: str) -> str:
        return sh("ip", "netns", "exec", ns, *argv)

    def delete(self) -> None:
        for ns in (self.a, self.b):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def make_pair() -> VethPair:
    tag = "cha" + secrets.token_hex(3)
    pair = VethPair(a=f"{tag}-a", b=f"{tag}-b", dev_a=f"{tag}a", dev_b=f"{tag}b")
    try:
        sh("ip", "netns", "add", pair.a)
        sh("ip", "netns", "add", pair.b)
        sh("ip", "link", "add", pair.dev_a, "netns", pair.a, "type", "veth", "peer", "name", pair.dev_b, "netns", pair.b)
        for ns, dev, ip, ip6 in ((pair.a, pair.dev_a, pair.ip_a, pair.ip6_a), (pair.b, pair.dev_b, pair.ip_b, pair.ip6_b)):
            sh("ip", "-n", ns, "addr", "add", f"{ip}/24", "dev", dev)
            sh("ip", "-n", ns, "addr", "add", f"{ip6}/64", "dev", dev, "nodad")
            sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
    except Exception:
        pair.delete()
        raise
    return pair
