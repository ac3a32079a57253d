"""BGP FlowSpec (RFC 8955) routes announced by a GoBGP speaker, driven through its `gobgp` CLI.

The adapter owns the speaker's FlowSpec RIB: every FlowSpec route in it is a rule of this adapter.
Its BGP sessions carry the routes to the operator's routers. Actions (RFC 8955 section 7):
SCAVENGER and DSCP_MARK -> traffic-marking (SCAVENGER with --scavenger-dscp), RATE_LIMIT ->
traffic-rate in bytes per second (the command's bits per second / 8), REDIRECT_VRF -> redirect to
the route target in `path` (ASN:NN or A.B.C.D:NN).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from cheetah_adapters.rules import Match, Rule
from cheetah_adapters.run_command import run
from cheetah_adapters.targets.device import DeviceError, Target

FAMILIES = {4: "ipv4-flowspec", 6: "ipv6-flowspec"}
_ROUTE_TARGET = re.compile(r"^(\d{1,10}|\d{1,3}(\.\d{1,3}){3}):\d{1,10}$")
# NLRI component types (RFC 8955 section 4.2.2) and their gobgp CLI words.
_COMPONENTS = {1: "destination", 2: "source", 3: "protocol", 5: "destination-port", 6: "source-port"}
# Extended community subtypes (type 0x80): 6 traffic-rate, 8 redirect, 9 traffic-marking.
_RATE, _REDIRECT, _MARK = 6, 8, 9


@dataclass(frozen=True)
class FlowspecConfig:
    gobgp: str  # path of the gobgp CLI
    api: str = "127.0.0.1:50051"  # the speaker's gRPC API
    scavenger_dscp: int = 8  # CS1, the customary lower-effort class


def float32(value: float) -> str:
    """A traffic-rate is an IEEE float32: text both sides agree on."""
    return f"{struct.unpack('f', struct.pack('f', value))[0]:.3f}"


def _components(match: Match) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    if match.dst is not None:
        parts.append(("destination", str(match.dst)))
    if match.src is not None:
        parts.append(("source", str(match.src)))
    if match.proto:
        parts.append(("protocol", str(match.proto)))
    if match.dst_port:
        parts.append(("destination-port", str(match.dst_port)))
    if match.src_port:
        parts.append(("source-port", str(match.src_port)))
    return parts


class FlowspecDevice:
    name = "flowspec"
    actions = frozenset({"SCAVENGER", "DSCP_MARK", "RATE_LIMIT", "REDIRECT_VRF"})

    def __init__(self, config: FlowspecConfig) -> None:
        self.config = config
        host, _, port = config.api.rpartition(":")
        self.api = ["-u", host or "127.0.0.1", "-p", port]

    def gobgp(self, *args: str) -> str:
        return run([self.config.gobgp, *self.api, *args])

    def prepare(self) -> None:
        self.gobgp("global")  # fails with a clear error when the speaker does not answer

    def _action(self, rule: Rule) -> tuple[str, str]:
        if rule.action == "SCAVENGER":
            return ("mark", str(self.config.scavenger_dscp))
        if rule.action == "DSCP_MARK":
            return ("mark", str(rule.dscp))
        if rule.action == "RATE_LIMIT":
            return ("rate-limit", float32(rule.rate_limit_bps / 8))
        return ("redirect", rule.path)

    def unsupported(self, rule: Rule) -> str | None:
        if rule.action == "DSCP_MARK" and not 0 <= rule.dscp <= 63:
            return f"dscp {rule.dscp} is not a DSCP value (0-63)"
        if rule.action == "RATE_LIMIT" and not rule.rate_limit_bps > 0:
            return f"rate_limit_bps {rule.rate_limit_bps} must be > 0 (a rate of 0 drops the traffic)"
        if rule.action == "REDIRECT_VRF" and not _ROUTE_TARGET.match(rule.path):
            return f"path {rule.path!r} is not a route target (ASN:NN or A.B.C.D:NN) to redirect to"
        return None

    def fingerprint(self, rule: Rule) -> str:
        return json.dumps([FAMILIES[rule.match.family], _components(rule.match), list(self._action(rule))])

    def installed(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        for family in FAMILIES.values():
            text = self.gobgp("-j", "global", "rib", "-a", family)
            routes: dict[str, list[Any]] = json.loads(text) if text.strip() else {}
            for paths in routes.values():
                for path in paths:
                    parts = _parts_of(path["nlri"]["value"])
                    action = _action_of(path.get("attrs", []))
                    fingerprint = json.dumps([family, parts, list(action) if action else None])
                    found.setdefault(fingerprint, []).append(json.dumps([family, parts]))
        return found

    def install(self, rule: Rule) -> None:
        words = [w for name, value in _components(rule.match) for w in _cli_words(name, value)]
        self.gobgp("global", "rib", "add", "-a", FAMILIES[rule.match.family], "match", *words, "then", *self._action(rule))

    def remove(self, fingerprint: str, handle: str) -> None:
        family, parts = json.loads(handle)
        words = [w for name, value in parts for w in _cli_words(name, value)]
        self.gobgp("global", "rib", "del", "-a", family, "match", *words)


def _cli_words(name: str, value: str) -> list[str]:
    return [name, f"=={value}" if name.endswith("port") else value]


def _parts_of(components: list[dict[str, Any]]) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = []
    for component in components:
        name = _COMPONENTS.get(component["type"], f"type-{component['type']}")
        value = component["value"]
        if isinstance(value, dict):
            parts.append((name, value["prefix"]))
        elif len(value) == 1 and value[0]["op"] & 0x07 == 0x01:  # one item, operator "=="
            parts.append((name, str(value[0]["value"])))
        else:
            parts.append((name, json.dumps(value)))  # a form this adapter never announces
    return parts


def _action_of(attrs: list[dict[str, Any]]) -> tuple[str, str] | None:
    for attr in attrs:
        if attr.get("type") != 16:  # extended communities
            continue
        for community in attr["value"]:
            subtype = community.get("subtype")
            if subtype == _MARK:
                return ("mark", str(community["value"]))
            if subtype == _RATE:
                return ("rate-limit", float32(float(community["rate"])))
            if subtype == _REDIRECT:
                return ("redirect", str(community["value"]))
    return None


def check_api(config: FlowspecConfig) -> None:
    if not config.api.rpartition(":")[2].isdigit():
        raise DeviceError(f"--gobgp-api {config.api!r} must be HOST:PORT of the speaker's gRPC API")


DEFAULT_GOBGP = Path(os.environ.get("CHEETAH_GOBGP_BIN", Path(__file__).resolve().parents[2] / ".bin")) / "gobgp"


def _add_arguments(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--gobgp", default=str(DEFAULT_GOBGP), help=f"the gobgp CLI (default {DEFAULT_GOBGP}, made by adapters/build.sh)")
    g.add_argument("--gobgp-api", default="127.0.0.1:50051", help="the local gobgpd's gRPC API (default 127.0.0.1:50051)")
    g.add_argument("--scavenger-dscp", type=int, default=8, help="DSCP for SCAVENGER rules (default 8, CS1)")


def _make(args: argparse.Namespace, error: Callable[[str], None]) -> FlowspecDevice:
    if not os.access(args.gobgp, os.X_OK):
        error(f"--gobgp {args.gobgp} is not an executable; run adapters/build.sh to install GoBGP")
    config = FlowspecConfig(args.gobgp, args.gobgp_api, args.scavenger_dscp)
    check_api(config)
    return FlowspecDevice(config)


TARGET = Target("flowspec", "flowspec (BGP FlowSpec through GoBGP)", _add_arguments, _make)
