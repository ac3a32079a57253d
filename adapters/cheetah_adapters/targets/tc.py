"""Linux tc: an HTB qdisc with a primary (default) and a scavenger class, u32 filters per rule.

    1:   htb, default 1:10
    1:1  rate C                              (the link)
    1:10 primary:   rate C - S, ceil C, prio 0
    1:20 scavenger: rate S,     ceil C, prio 7   (borrows what the primary leaves)

A SCAVENGER rule is a u32 filter under 1: (pref 10 for IPv4, 11 for IPv6) sending its matches to
1:20. Filters are read back and named by their keys and class, so reconcile needs no handle table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cheetah_adapters.rules import Rule
from cheetah_adapters.run_command import run
import argparse
from typing import Callable

from cheetah_adapters.targets.device import DeviceError, Target
from cheetah_adapters.targets.tc_match import describe_keys, u32_keys

PRIMARY, SCAVENGER = "1:10", "1:20"
PREF = {4: 10, 6: 11}
PROTOCOL = {4: "ip", 6: "ipv6"}
# Root qdiscs a fresh interface has: replacing them takes nothing from an operator.
STOCK_QDISCS = {"noqueue", "pfifo_fast", "mq", "fq_codel", "noop", "pfifo", "fq"}

_FILTER = re.compile(r"^filter .*protocol (\S+) pref (\d+) u32 .*\bfh (\S+::\S+) .*?\*?flowid (\S+)")
_KEY = re.compile(r"^\s+match ([0-9a-f]{8})/([0-9a-f]{8}) at (\d+)")
_QDISC = re.compile(r"^qdisc (\S+) (\S+) root")
_CLASS_SENT = re.compile(r"^class htb (\S+) .*?\n\s*Sent (\d+) bytes (\d+) pkt", re.M)


@dataclass(frozen=True)
class TcConfig:
    interface: str
    netns: str = ""  # run tc in this network namespace (tc -n)
    rate: str = "1gbit"  # C, in tc units
    scavenger_rate: str = "8mbit"  # S: the scavenger's guaranteed share
    replace_qdisc: bool = False  # take over a root qdisc this adapter did not make


class TcDevice:
    name = "tc"
    actions = frozenset({"SCAVENGER"})

    def __init__(self, config: TcConfig) -> None:
        self.config = config

    def tc(self, *args: str) -> str:
        netns = ["-n", self.config.netns] if self.config.netns else []
        return run(["tc", *netns, *args])

    # --- qdisc and classes ----------------------------------------------------------------

    def prepare(self) -> None:
        dev = self.config.interface
        found = _QDISC.match(self.tc("qdisc", "show", "dev", dev, "root"))
        kind, handle = (found.group(1), found.group(2)) if found else ("", "")
        if (kind, handle) != ("htb", "1:"):
            if kind and kind not in STOCK_QDISCS and not self.config.replace_qdisc:
                raise DeviceError(
                    f"interface {dev} has a root qdisc {kind} {handle} that this adapter did not make; "
                    "remove it, or pass --replace-qdisc to let the adapter replace it"
                )
            self.tc("qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "10")
        c, s = self.config.rate, self.config.scavenger_rate
        primary = f"{_bits(c) - _bits(s)}bit"
        self.tc("class", "replace", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", c, "ceil", c)
        self.tc("class", "replace", "dev", dev, "parent", "1:1", "classid", PRIMARY, "htb", "rate", primary, "ceil", c, "prio", "0", "quantum", "1514")
        self.tc("class", "replace", "dev", dev, "parent", "1:1", "classid", SCAVENGER, "htb", "rate", s, "ceil", c, "prio", "7", "quantum", "1514")

    def class_counters(self) -> dict[str, tuple[int, int]]:
        """classid -> (bytes, packets) sent, from tc -s class show."""
        text = self.tc("-s", "class", "show", "dev", self.config.interface)
        return {m.group(1): (int(m.group(2)), int(m.group(3))) for m in _CLASS_SENT.finditer(text)}

    # --- filters ----------------------------------------------------------------------------

    def unsupported(self, rule: Rule) -> str | None:
        return None

    def fingerprint(self, rule: Rule) -> str:
        return f"{PROTOCOL[rule.match.family]} {SCAVENGER} {describe_keys(u32_keys(rule.match))}"

    def installed(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        current: tuple[str, str, str, str] | None = None
        keys: list[tuple[int, int, int]] = []

        def close() -> None:
            if current is not None:
                protocol, pref, fh, flowid = current
                found.setdefault(f"{protocol} {flowid} {describe_keys(keys)}", []).append(f"{protocol} {pref} {fh}")

        text = self.tc("filter", "show", "dev", self.config.interface, "parent", "1:")
        for line in text.splitlines():
            head = _FILTER.match(line)
            key = _KEY.match(line)
            if line.startswith("filter"):
                close()
                current, keys = None, []
                if head and int(head.group(2)) in PREF.values():
                    current = (head.group(1), head.group(2), head.group(3), head.group(4))
            elif key and current is not None:
                keys.append((int(key.group(3)), int(key.group(1), 16), int(key.group(2), 16)))
        close()
        return found

    def install(self, rule: Rule) -> None:
        family = rule.match.family
        args = ["filter", "add", "dev", self.config.interface, "parent", "1:", "protocol", PROTOCOL[family], "pref", str(PREF[family]), "u32"]
        for offset, value, mask in u32_keys(rule.match):
            args += ["match", "u32", f"0x{value:08x}", f"0x{mask:08x}", "at", str(offset)]
        self.tc(*args, "flowid", SCAVENGER)

    def remove(self, fingerprint: str, handle: str) -> None:
        protocol, pref, fh = handle.split()
        self.tc("filter", "del", "dev", self.config.interface, "parent", "1:", "protocol", protocol, "pref", pref, "handle", fh, "u32")


_UNITS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9, "tbit": 10**12, "bps": 8, "kbps": 8 * 10**3, "mbps": 8 * 10**6, "gbps": 8 * 10**9}


def _bits(rate: str) -> int:
    """tc rate text (100mbit, 1gbit, 12500kbps) in bits per second."""
    found = re.fullmatch(r"(\d+(?:\.\d+)?)([a-z]*)", rate.strip().lower())
    if not found or found.group(2) not in _UNITS:
        raise DeviceError(f"rate {rate!r} is not a tc rate; write it as 100mbit, 1gbit or 12500kbps")
    return int(float(found.group(1)) * _UNITS[found.group(2)])


def check_rates(config: TcConfig) -> None:
    if _bits(config.scavenger_rate) >= _bits(config.rate):
        raise DeviceError(f"--scavenger-rate {config.scavenger_rate} must be below --rate {config.rate}")


def _add_arguments(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--interface", help="tc: the egress interface to shape; incast: the receiver's access port (required for both)")
    g.add_argument("--netns", default="", help="network namespace of the interface (tc and incast)")
    g.add_argument("--rate", default="1gbit", help="link rate C for the HTB root, tc units (default 1gbit)")
    g.add_argument("--scavenger-rate", default="8mbit", help="the scavenger class's guaranteed rate (default 8mbit); it borrows up to C")
    g.add_argument("--replace-qdisc", action="store_true", help="replace a root qdisc this adapter did not make")


def _make(args: argparse.Namespace, error: Callable[[str], None]) -> TcDevice:
    if not args.interface:
        error("--target tc needs --interface")
    config = TcConfig(args.interface, args.netns, args.rate, args.scavenger_rate, args.replace_qdisc)
    check_rates(config)
    return TcDevice(config)


TARGET = Target("tc", "tc (Linux traffic control)", _add_arguments, _make)
