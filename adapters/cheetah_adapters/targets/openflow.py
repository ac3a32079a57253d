"""OpenFlow 1.3 flows pushed to a switch with ovs-ofctl (Open vSwitch, or any switch it can reach).

Each rule is one flow at --priority in --table. Its cookie is a tag byte (0xc7) and 56 bits of
SHA-256 of the flow's text, so the switch itself tells which flows are this adapter's and what
they are. Actions: SCAVENGER -> set_queue:--scavenger-queue then --forward; DSCP_MARK -> set the IP
DSCP then --forward; REDIRECT_PATH -> output to the port named in `path`.

REROUTE (docs/FABRIC.md, "Reroute commands"), with --fabric FILE: one flow on each switch the path
leaves (the FROM switch of each link `SW:PORT>SW:PORT`), matching the command's 5-tuple at
--priority, output to that link's port; the last switch of the path delivers by its own
forwarding. Each switch is reached at --fabric-switch-target with {switch} replaced by its name.
These flows carry the tag byte 0xc8 and 56 bits of SHA-256 of the command id, so a REMOVE (or
reconcile) deletes exactly one reroute's flows on every switch.
"""

from __future__ import annotations

import argparse
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from cheetah_adapters.fabric import Fabric, FabricError, Hop
from cheetah_adapters.fabric import load as load_fabric
from cheetah_adapters.rules import Match, Rule
from cheetah_adapters.run_command import run
from cheetah_adapters.targets.device import DeviceError, Target

COOKIE_TAG = 0xC7 << 56
COOKIE_TAG_MASK = 0xFF << 56
REROUTE_TAG = 0xC8 << 56
_OUTPUT = re.compile(r"\bactions=output:(\d+)$")
_PORT = re.compile(r"^[A-Za-z0-9_.\-]{1,15}$")
_COOKIE = re.compile(r"\bcookie=0x([0-9a-f]+)")


@dataclass(frozen=True)
class OpenflowConfig:
    switch: str  # what ovs-ofctl connects to: a bridge name, unix:/path/BRIDGE.mgmt, tcp:HOST:PORT
    table: int = 0
    priority: int = 40000
    scavenger_queue: int = 1
    forward: str = "NORMAL"  # what follows set_queue / DSCP marking: NORMAL, or output:PORT
    fabric: Fabric | None = None  # the topology REROUTE paths are read on (None: REROUTE is not applied)
    fabric_switch_target: str = "{switch}"  # ovs-ofctl target of a fabric switch


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

    def __init__(self, config: OpenflowConfig) -> None:
        self.config = config
        single = {"SCAVENGER", "DSCP_MARK", "REDIRECT_PATH"} if config.switch else set()
        self.actions = frozenset(single | ({"REROUTE"} if config.fabric else set()))
        # A reroute's fingerprint (its cookie) -> the out port expected on each switch of its path,
        # recorded by fingerprint() so installed() can tell a complete reroute from a damaged one.
        self._expected: dict[str, dict[str, int]] = {}

    def fabric_target(self, switch: str) -> str:
        return self.config.fabric_switch_target.replace("{switch}", switch)

    def hops(self, rule: Rule) -> list[Hop]:
        """The path's hops on this fabric; a DeviceError when it has none there (a rule kept in the
        state from before a restart with another fabric file, or without --fabric)."""
        if self.config.fabric is None:
            raise DeviceError(f"reroute {rule.rule_id}: this adapter has no --fabric to place its path on")
        try:
            return self.config.fabric.path(rule.path)
        except FabricError as e:
            raise DeviceError(f"reroute {rule.rule_id}: {e}") from e

    def ofctl(self, *args: str) -> str:
        return run(["ovs-ofctl", "-O", "OpenFlow13", *args])

    def prepare(self) -> None:
        # Fails clearly when a switch does not answer.
        if self.config.switch:
            self.ofctl("show", self.config.switch)
        for switch in self.config.fabric.layers if self.config.fabric else ():
            self.ofctl("show", self.fabric_target(switch))

    def unsupported(self, rule: Rule) -> str | None:
        if rule.action == "REROUTE":
            return self._reroute_problem(rule)
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

    def _reroute_problem(self, rule: Rule) -> str | None:
        fabric = self.config.fabric
        assert fabric is not None
        try:
            hops = fabric.path(rule.path)
        except FabricError as e:
            return str(e)
        for side, net, switch in (("source", rule.match.src, hops[0].switch), ("destination", rule.match.dst, hops[-1].to_switch)):
            if net is None or net.num_addresses != 1:
                return f"a reroute matches one flow: its {side} must be one address, not {net or 'any'}"
            edge = fabric.hosts.get(str(net.network_address))
            if edge is not None and edge[0] != switch:
                return f"the path {'starts' if side == 'source' else 'ends'} at {switch!r} but {side} {net.network_address} is on {edge[0]!r}"
        return None

    def reroute_flow_text(self, rule: Rule, hop: Hop) -> str:
        return f"table={self.config.table},priority={self.config.priority},{match_text(rule.match)},actions=output:{hop.out_port}"

    def flow_text(self, rule: Rule) -> str:
        return f"table={self.config.table},priority={self.config.priority},{match_text(rule.match)},actions={self.actions_text(rule)}"

    def fingerprint(self, rule: Rule) -> str:
        if rule.action == "REROUTE":
            digest = int.from_bytes(hashlib.sha256(rule.rule_id.encode()).digest()[:7], "big")
            name = f"0x{REROUTE_TAG | digest:016x}"
            try:
                self._expected[name] = {hop.switch: hop.out_port for hop in self.hops(rule)}
            except DeviceError:
                # No path on this fabric: a fingerprint no switch holds, so reconcile deletes the
                # flows under its cookie (not wanted) and its install fails, saying why.
                self._expected.pop(name, None)
                return f"{name} (no path on this fabric)"
            return name
        digest = int.from_bytes(hashlib.sha256(self.flow_text(rule).encode()).digest()[:7], "big")
        return f"0x{COOKIE_TAG | digest:016x}"

    def _dump(self, target: str, tag: int) -> list[tuple[str, str]]:
        """(cookie, flow line) of this adapter's flows with this tag on one switch."""
        text = self.ofctl("dump-flows", target, f"cookie=0x{tag:x}/0x{COOKIE_TAG_MASK:x}")
        return [(f"0x{int(c.group(1), 16):016x}", line.strip()) for line in text.splitlines() if (c := _COOKIE.search(line))]

    def installed(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        if self.config.switch:
            for name, _ in self._dump(self.config.switch, COOKIE_TAG):
                found.setdefault(name, []).append(name)
        if self.config.fabric:
            ports: dict[str, dict[str, list[int]]] = {}  # cookie -> switch -> out ports seen
            for switch in self.config.fabric.layers:
                for name, line in self._dump(self.fabric_target(switch), REROUTE_TAG):
                    out = _OUTPUT.search(line)
                    ports.setdefault(name, {}).setdefault(switch, []).append(int(out.group(1)) if out else -1)
            for name, seen in ports.items():
                expected = self._expected.get(name)
                whole = expected is not None and seen == {sw: [port] for sw, port in expected.items()}
                # A reroute is one entry made of a flow per switch. One whose flows are not exactly
                # those of its path (a switch missing, a wrong port, a stray copy) is reported with a
                # second handle, the engine's sign of an extra entry: reconcile removes it (all its
                # flows, by cookie) and installs it whole again.
                found[name] = [name] if whole or expected is None else [name, name]
        return found

    def install(self, rule: Rule) -> None:
        cookie = self.fingerprint(rule)
        if rule.action != "REROUTE":
            self.ofctl("add-flow", self.config.switch, f"cookie={cookie},{self.flow_text(rule)}")
            return
        hops = self.hops(rule)
        try:
            for hop in hops:
                self.ofctl("add-flow", self.fabric_target(hop.switch), f"cookie={cookie},{self.reroute_flow_text(rule, hop)}")
        except DeviceError:
            try:
                self._remove_reroute(cookie)  # all or nothing: no half path is left behind
            except DeviceError:
                pass  # the switch that failed may refuse this too; reconcile deletes what stays
            raise

    def _remove_reroute(self, cookie: str) -> None:
        """Deletes a reroute's flows on every fabric switch; one switch failing does not stop the others."""
        if self.config.fabric is None:
            raise DeviceError(f"flows with cookie {cookie} are a reroute's, and this adapter has no --fabric")
        errors: list[str] = []
        for switch in self.config.fabric.layers:
            try:
                self.ofctl("del-flows", self.fabric_target(switch), f"cookie={cookie}/-1")
            except DeviceError as e:
                errors.append(f"{switch}: {e}")
        if errors:
            raise DeviceError("; ".join(errors))

    def remove(self, fingerprint: str, handle: str) -> None:
        if int(handle, 16) & COOKIE_TAG_MASK == REROUTE_TAG:
            self._remove_reroute(handle)
        else:
            self.ofctl("del-flows", self.config.switch, f"cookie={handle}/-1")


def _add_arguments(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--switch", help="ovs-ofctl target: bridge name, unix:PATH.mgmt or tcp:HOST:PORT (openflow needs --switch, --fabric or both)")
    g.add_argument("--table", type=int, default=0)
    g.add_argument("--priority", type=int, default=40000)
    g.add_argument("--scavenger-queue", type=int, default=1, help="queue id for SCAVENGER (set_queue)")
    g.add_argument("--forward", default="NORMAL", help="action after set_queue/DSCP marking (default NORMAL)")
    g.add_argument("--fabric", metavar="FILE", help="fabric topology file (docs/FABRIC.md): apply REROUTE along its switches")
    g.add_argument("--fabric-switch-target", default="{switch}", metavar="TEMPLATE",
                   help="ovs-ofctl target of a fabric switch, {switch} replaced by its name (default {switch}: a bridge of that name)")


def _make(args: argparse.Namespace, error: Callable[[str], None]) -> OpenflowDevice:
    if not args.switch and not args.fabric:
        error("--target openflow needs --switch (a switch) or --fabric (a fabric's switches), or both")
    fabric = None
    if args.fabric:
        if "{switch}" not in args.fabric_switch_target:
            error(f"--fabric-switch-target {args.fabric_switch_target!r} has no {{switch}}: every fabric switch would get the same target")
        try:
            fabric = load_fabric(Path(args.fabric))
        except FabricError as e:
            error(f"--fabric: {e}")
    return OpenflowDevice(OpenflowConfig(args.switch or "", args.table, args.priority, args.scavenger_queue, args.forward,
                                         fabric, args.fabric_switch_target))


TARGET = Target("openflow", "openflow (OpenFlow 1.3 via ovs-ofctl)", _add_arguments, _make)
