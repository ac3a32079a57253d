"""OpenFlow 1.3 flows pushed to a switch with ovs-ofctl (Open vSwitch, or any switch it can reach).

Each rule is one flow at --priority in --table. Its cookie is a tag byte (0xc7) and 56 bits of
SHA-256 of the flow's text, so the switch itself tells which flows are this adapter's and what
they are. Actions: SCAVENGER -> set_queue:--scavenger-queue then --forward; DSCP_MARK -> set the IP
DSCP then --forward; REDIRECT_PATH -> output to the port named in `path`.
"""

from __future__ import annotations

import argparse
import hashlib
import re
from dataclasses import dataclass
from typing import Callable

from cheetah_adapters.rules import Match, Rule
from cheetah_adapters.run_command import run
from cheetah_adapters.targets.device import Target

COOKIE_TAG = 0xC7 << 56
COOKIE_TAG_MASK = 0xFF << 56
_PORT = re.compile(r"^[A-Za-z0-9_.\-]{1,15}$")
_COOKIE = re.compile(r"\bcookie=0x([0-9a-f]+)")


@dataclass(frozen=True)
class OpenflowConfig:
    switch: str  # what ovs-ofctl connects to: a bridge name, unix:/path/BRIDGE.mgmt, tcp:HOST:PORT
    table: int = 0
    priority: int = 40000
    scavenger_queue: int = 1
    forward: str = "NORMAL"  # what follows set_queue / DSCP marking: NORMAL, or output:PORT


def match_text(match: Match) -> str:
    v4 = match.family == 4
    fields = ["ip" if v4 else "ipv6"]
    if match.src is not None:
        fields.append(f"{'nw_src' if v4 else 'ipv6_src'}={match.src}")
    if match.dst is not None:
        fields.append(f"{'nw_dst' if v4 else 'ipv6_dst'}={match.dst}")
    if match.proto:
        fields.append(f"nw_proto={match.proto}")
    if match.src_port:
        fields.append(f"tp_src={match.src_port}")
    if match.dst_port:
        fields.append(f"tp_dst={match.dst_port}")
    return ",".join(fields)


class OpenflowDevice:
    name = "openflow"
    actions = frozenset({"SCAVENGER", "DSCP_MARK", "REDIRECT_PATH"})

    def __init__(self, config: OpenflowConfig) -> None:
        self.config = config

    def ofctl(self, *args: str) -> str:
        return run(["ovs-ofctl", "-O", "OpenFlow13", *args])

    def prepare(self) -> None:
        self.ofctl("show", self.config.switch)  # fails clearly when the switch does not answer

    def unsupported(self, rule: Rule) -> str | None:
        if rule.action == "DSCP_MARK" and not 0 <= rule.dscp <= 63:
            return f"dscp {rule.dscp} is not a DSCP value (0-63)"
        if rule.action == "REDIRECT_PATH" and not _PORT.match(rule.path):
            return f"path {rule.path!r} is not a switch port name or number to output to"
        return None

    def actions_text(self, rule: Rule) -> str:
        if rule.action == "SCAVENGER":
            return f"set_queue:{self.config.scavenger_queue},{self.config.forward}"
        if rule.action == "DSCP_MARK":
            return f"set_field:{rule.dscp}->ip_dscp,{self.config.forward}"
        return f"output:{rule.path}"

    def flow_text(self, rule: Rule) -> str:
        return f"table={self.config.table},priority={self.config.priority},{match_text(rule.match)},actions={self.actions_text(rule)}"

    def fingerprint(self, rule: Rule) -> str:
        digest = int.from_bytes(hashlib.sha256(self.flow_text(rule).encode()).digest()[:7], "big")
        return f"0x{COOKIE_TAG | digest:016x}"

    def installed(self) -> dict[str, list[str]]:
        text = self.ofctl("dump-flows", self.config.switch, f"cookie=0x{COOKIE_TAG:x}/0x{COOKIE_TAG_MASK:x}")
        found: dict[str, list[str]] = {}
        for line in text.splitlines():
            cookie = _COOKIE.search(line)
            if cookie:
                name = f"0x{int(cookie.group(1), 16):016x}"
                found.setdefault(name, []).append(name)
        return found

    def install(self, rule: Rule) -> None:
        self.ofctl("add-flow", self.config.switch, f"cookie={self.fingerprint(rule)},{self.flow_text(rule)}")

    def remove(self, fingerprint: str, handle: str) -> None:
        self.ofctl("del-flows", self.config.switch, f"cookie={handle}/-1")


def _add_arguments(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--switch", help="ovs-ofctl target: bridge name, unix:PATH.mgmt or tcp:HOST:PORT (required for openflow)")
    g.add_argument("--table", type=int, default=0)
    g.add_argument("--priority", type=int, default=40000)
    g.add_argument("--scavenger-queue", type=int, default=1, help="queue id for SCAVENGER (set_queue)")
    g.add_argument("--forward", default="NORMAL", help="action after set_queue/DSCP marking (default NORMAL)")


def _make(args: argparse.Namespace, error: Callable[[str], None]) -> OpenflowDevice:
    if not args.switch:
        error("--target openflow needs --switch")
    return OpenflowDevice(OpenflowConfig(args.switch, args.table, args.priority, args.scavenger_queue, args.forward))


TARGET = Target("openflow", "openflow (OpenFlow 1.3 via ovs-ofctl)", _add_arguments, _make)
