"""cheetah fabric-up: bring a fabric topology file (docs/FABRIC.md) up on a private Open vSwitch, and
take it down again (docs/FABRIC.md, "Bring-up").

Up: ovsdb-server and ovs-vswitchd (userspace datapath) with their database, sockets, pidfiles and logs
in --run-dir, one netdev bridge per switch (named PREFIX+switch), one patch port pair per cable and
one internal port per host, each at the OpenFlow port number of the file; then the fabric's default
forwarding, by destination address, at --priority (below the openflow adapter's reroute priority):
on the host's edge switch, output to the host's port; elsewhere towards the switches one hop nearer
the host's edge switch (shortest paths over the cables): one such port is an output (downward in a
fat-tree, deterministic), several are an OpenFlow select group hashing the 5-tuple over them (ECMP).

With --netns each host is a network namespace (PREFIX-NAME) holding one end of a veth whose other end
is the host's port on its edge switch, every cable is a veth pair, and every veth end is shaped to its
link's capacity from the file (tc HTB on the end's egress): a 10 Mb/s link carries 10 Mb/s. The hosts'
own ends send with transmit checksum offload off (the userspace datapath reads frames by packet socket,
where a partial checksum stays unfinished) and one MSS per packet; each host knows every other host's
address as on-link with a permanent neighbour entry (no ARP needed).

Down (--down --run-dir DIR): deletes the bridges it made and stops the two daemons by the PIDs of
their pidfiles in DIR (checking each PID still runs a daemon of DIR), never by name; then deletes the
namespaces and veths whose names DIR's state file records (each must start with the run's prefix).

stdout: one JSON line, {"event": "up", ...} with the adapter's --fabric-switch-target, or
{"event": "down", ...}. Exit status: 0, 2 for bad options or a bad file, 1 when OVS fails.
"""

from __future__ import annotations

import argparse
import ctypes
import fcntl
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path

from cheetah_adapters.fabric import Fabric, FabricError, load
from cheetah_adapters.ovs import FabricSwitches, _run, delete_veths, host_mac, start_fabric

DEFAULT_PRIORITY = 100  # the adapter's reroute flows are at 40000 (openflow --priority)
STATE_FILE = "fabric-up.json"
PIDFILES = ("vswitchd.pid", "ovsdb.pid")  # stopped in this order
# The select groups' hash: the 5-tuple. A field whose prerequisite a packet lacks (udp_* of a TCP
# packet) is left out of its hash. selection_method needs OpenFlow 1.5 on the wire: with -O OpenFlow13
# ovs-ofctl drops it silently and the group falls back to OVS's default selection.
HASH_FIELDS = "ip_src,ip_dst,nw_proto,tcp_src,tcp_dst,udp_src,udp_dst"
# sFlow (docs/FABRIC.md, "sFlow"): the study's 1-in-10 packet sampling and 1 s counter push.
DEFAULT_SAMPLING = 10
DEFAULT_POLLING = 1
SFLOW_AGENT = "127.0.0.1"  # the agent address every bridge puts in its datagrams (the flows' exporter)
SFLOW_MAP = "sflow-map.json"
# --netns shaping (tc HTB on each veth end's egress): the bucket is two full frames, so a port sends at
# its rate rather than in bursts; the queue behind it is QUEUE_PACKETS frames (120 ms at 10 Mb/s).
BURST_BYTES = 3028
QUEUE_PACKETS = 100
HOST_DEV = "eth0"  # a host's own end, inside its namespace
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.]{1,24}$")


@dataclass(frozen=True)
class SflowConfig:
    target: str  # HOST:PORT of the collector's sFlow listener
    sampling: int = DEFAULT_SAMPLING  # 1 in N packets
    polling: int = DEFAULT_POLLING  # counter push interval, seconds
    agent: str = SFLOW_AGENT


@dataclass(frozen=True)
class Forwarding:
    """One switch's default forwarding: groups (id -> ports) and flows (address -> actions)."""

    groups: dict[int, tuple[int, ...]]
    flows: dict[str, str]


def plan(fabric: Fabric) -> dict[str, Forwarding]:
    """Each switch's default forwarding for every host address of the fabric (pure, no OVS)."""
    neighbours: dict[str, list[tuple[int, str]]] = {sw: [] for sw in fabric.layers}
    for (sw, port), (other, _) in fabric.cables.items():
        neighbours[sw].append((port, other))
    groups: dict[str, dict[tuple[int, ...], int]] = {sw: {} for sw in fabric.layers}
    flows: dict[str, dict[str, str]] = {sw: {} for sw in fabric.layers}
    for address, (edge, host_port) in sorted(fabric.hosts.items()):
        hops = {edge: 0}  # switch -> cables to the host's edge switch
        queue = deque([edge])
        while queue:
            sw = queue.popleft()
            for _, other in neighbours[sw]:
                if other not in hops:
                    hops[other] = hops[sw] + 1
                    queue.append(other)
        for sw in fabric.layers:
            if sw == edge:
                flows[sw][address] = f"output:{host_port}"
            elif sw in hops:
                nearer = tuple(sorted(port for port, other in neighbours[sw] if hops.get(other) == hops[sw] - 1))
                if len(nearer) == 1:
                    flows[sw][address] = f"output:{nearer[0]}"
                else:
                    gid = groups[sw].setdefault(nearer, len(groups[sw]) + 1)
                    flows[sw][address] = f"group:{gid}"
    return {sw: Forwarding({gid: ports for ports, gid in groups[sw].items()}, flows[sw]) for sw in fabric.layers}


def flow_texts(address: str, actions: str, priority: int) -> list[str]:
    """ovs-ofctl flows for traffic to `address`: IP by destination, ARP by target address."""
    if ":" in address:
        return [f"table=0,priority={priority},ipv6,ipv6_dst={address},actions={actions}"]
    return [f"table=0,priority={priority},ip,nw_dst={address},actions={actions}",
            f"table=0,priority={priority},arp,arp_tpa={address},actions={actions}"]


def group_text(gid: int, ports: tuple[int, ...], basis: int) -> str:
    """A select group over `ports`. `basis` seeds the hash (selection_method_param): each switch gets its
    own, else every switch of a fat-tree would pick the same bucket index for a flow and the flows
    that went up the first aggregation switch would all take its first core (hash polarization)."""
    buckets = ",".join(f"bucket=output:{p}" for p in ports)
    return f"group_id={gid},type=select,selection_method=hash,fields({HASH_FIELDS}),selection_method_param={basis},{buckets}"


def install(switches: FabricSwitches, forwarding: dict[str, Forwarding], priority: int) -> None:
    for index, (sw, fw) in enumerate(forwarding.items()):
        target = switches.target(sw)
        for gid, ports in sorted(fw.groups.items()):
            basis = index + 1  # the switch's position in the file: fixed for a file, different per switch
            _run(["ovs-ofctl", "-O", "OpenFlow15", "add-group", target, group_text(gid, ports, basis)], switches.daemons.work)
        flows = switches.daemons.work / f"flows-{sw}.txt"  # one ovs-ofctl per switch, not one per flow
        flows.write_text("".join(f"{text}\n" for address, actions in sorted(fw.flows.items())
                                 for text in flow_texts(address, actions, priority)))
        switches.ofctl("add-flows", target, str(flows))


def configure_sflow(switches: FabricSwitches, fabric: Fabric, sflow: SflowConfig) -> list[dict[str, object]]:
    """One sFlow record per bridge, then the map from what its datagrams name (agent address, ifIndex) to
    (switch, OpenFlow port), read back from OVS's Interface table. Only ports with a kernel ifindex are
    named by sFlow (the veth cables and the hosts' internal ports; docs/FABRIC.md, "sFlow")."""
    commands: list[str] = []
    for n, sw in enumerate(fabric.layers):
        commands += ["--", f"--id=@s{n}", "create", "sflow", f"agent={sflow.agent}", f'targets="{sflow.target}"',
                     f"sampling={sflow.sampling}", f"polling={sflow.polling}", "header=128",
                     "--", "set", "bridge", switches.prefix + sw, f"sflow=@s{n}"]
    switches.daemons.vsctl(*commands[1:])
    deadline = time.monotonic() + 30
    while True:  # ovs-vswitchd fills in ifindex once it has opened the port
        rows = []
        for sw in fabric.layers:
            for iface in switches.daemons.vsctl("list-ifaces", switches.prefix + sw).split():
                ofport, ifindex = (switches.daemons.vsctl("get", "interface", iface, col).strip() for col in ("ofport", "ifindex"))
                if ofport.lstrip("-").isdigit() and int(ofport) in fabric.ports[sw]:
                    rows.append({"agent": sflow.agent, "if_index": int(ifindex) if ifindex.isdigit() else 0, "switch": sw,
                                 "port": int(ofport), "interface": iface})
        unnamed = [r for r in rows if r["if_index"] == 0]
        if not unnamed and len(rows) == sum(len(p) for p in fabric.ports.values()):
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"ports without a kernel ifindex (sFlow cannot name them) or not on their bridges: "
                               f"{unnamed or sorted((r['switch'], r['port']) for r in rows)}")
        time.sleep(0.1)
    return sorted(rows, key=lambda r: (r["switch"], r["port"]))  # type: ignore[arg-type,return-value]


def shaping_commands(dev: str, bps: float) -> list[list[str]]:
    """tc commands (without `tc` and its -n) limiting dev's egress to bps: one HTB class of rate = ceil
    = bps, a pfifo of QUEUE_PACKETS frames behind it."""
    rate = f"{int(round(bps))}bit"
    return [["qdisc", "replace", "dev", dev, "root", "handle", "1:", "htb", "default", "1"],
            ["class", "add", "dev", dev, "parent", "1:", "classid", "1:1", "htb", "rate", rate, "ceil", rate,
             "burst", str(BURST_BYTES), "cburst", str(BURST_BYTES)],
            ["qdisc", "add", "dev", dev, "parent", "1:1", "handle", "10:", "pfifo", "limit", str(QUEUE_PACKETS)]]


def _sh(argv: list[str], stdin: str | None = None) -> str:
    done = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout


def shape(dev: str, bps: float, netns: str | None = None) -> None:
    for command in shaping_commands(dev, bps):
        _sh(["tc", *(["-n", netns] if netns else []), *command])


def tx_checksum_off(dev: str) -> None:
    """ethtool -K DEV tx off, by the SIOCETHTOOL ioctl (no ethtool on these machines): the kernel then
    finishes every checksum itself before the frame reaches the veth. A frame with a partial checksum
    (offload on) is read by OVS's packet socket as it is and arrives at the other host with a wrong
    checksum: TCP through the userspace datapath then fails."""
    value = ctypes.create_string_buffer(struct.pack("II", 0x17, 0))  # ETHTOOL_STXCSUM, data = 0
    ifreq = struct.pack("16sP", dev.encode(), ctypes.addressof(value))
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            fcntl.ioctl(s.fileno(), 0x8946, ifreq)  # SIOCETHTOOL
        except OSError as e:
            raise RuntimeError(f"cannot turn transmit checksum offload off on {dev}: {e.strerror}") from None


def namespace_name(prefix: str, host: str, index: int) -> str:
    return f"{prefix}-{host}" if _SAFE_NAME.match(host) else f"{prefix}-h{index}"


def host_commands(address: str, others: list[tuple[str, str]]) -> list[str]:
    """`ip -batch` lines inside a host's namespace once its veth end is there, renamed HOST_DEV: its
    address, one MSS per packet, and each other host (address, MAC) on-link with a permanent neighbour."""
    lines = ["link set lo up", f"addr add {address}/32 dev {HOST_DEV}", f"link set {HOST_DEV} gso_max_segs 1",
             f"link set {HOST_DEV} up"]
    for other, mac in others:
        lines += [f"route add {other}/32 dev {HOST_DEV}", f"neigh replace {other} lladdr {mac} dev {HOST_DEV} nud permanent"]
    return lines


def netns_hosts(switches: FabricSwitches, fabric: Fabric, hosts: list[tuple[str, tuple[str, int]]],
                namespaces: list[str], shaping: bool = True) -> list[dict[str, object]]:
    """Each host into its own namespace (appended to `namespaces` as made, for the caller's cleanup),
    its two veth ends shaped to the host cable's capacity."""
    rows = []
    macs = {address: host_mac(n) for n, (address, _) in enumerate(hosts)}
    for n, (address, (sw, port)) in enumerate(hosts):
        name = fabric.host_names.get(address, f"h{n}")
        ns = namespace_name(switches.prefix, name, n)
        end = switches.host_ends[(sw, port)]
        tx_checksum_off(end)
        _sh(["ip", "netns", "add", ns])
        namespaces.append(ns)
        _sh(["ip", "link", "set", end, "netns", ns])
        _sh(["ip", "netns", "exec", ns, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1"])
        _sh(["ip", "-n", ns, "link", "set", end, "name", HOST_DEV])
        _sh(["ip", "-n", ns, "-batch", "-"],
            "\n".join(host_commands(address, [(a, m) for a, m in macs.items() if a != address])) + "\n")
        bps = fabric.capacities[(sw, port)]
        if shaping:
            shape(HOST_DEV, bps, ns)  # host -> edge
            shape(f"{switches.prefix}h{n}a", bps)  # edge -> host
        rows.append({"name": name, "address": address, "netns": ns, "switch": sw, "port": port, "capacity_bps": bps,
                     "mac": macs[address]})
    return rows


def up(fabric: Fabric, run_dir: Path, priority: int = DEFAULT_PRIORITY, detach: bool = True,
       sflow: SflowConfig | None = None, netns: bool = False, shaping: bool = True) -> FabricSwitches:
    """Bring `fabric` up in run_dir (which must not hold a running fabric) with its default forwarding;
    with `sflow`, cables are veth pairs and every bridge sends sFlow to sflow.target, and run_dir holds
    the ifIndex map (SFLOW_MAP); with `netns`, hosts are network namespaces and every veth is shaped to
    its link's capacity (`shaping` False leaves them unshaped: for tests that must see the difference)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    if (run_dir / STATE_FILE).exists():
        raise FabricError(f"{run_dir} already holds a fabric ({STATE_FILE}): take it down first (--down --run-dir {run_dir})")
    if any(run_dir.iterdir()):
        raise FabricError(f"{run_dir} is not empty: give an empty or new directory")
    too_long = [sw for sw in fabric.layers if len(sw) > 10]
    if too_long:
        raise FabricError(f"switch name {too_long[0]!r} is longer than 10 characters (bridge names are 15 with the prefix)")
    if netns:
        v6 = [a for a in fabric.hosts if ":" in a]
        if v6:
            raise FabricError(f"--netns: host address {v6[0]} is IPv6; the hosts' namespaces are IPv4 only")
    cables = sorted({tuple(sorted([a, b])) for a, b in fabric.cables.items()})
    hosts = list(fabric.hosts.items())
    switches = start_fabric(run_dir.resolve(), {name: list(ports) for name, ports in fabric.ports.items()},
                            [(a[0], a[1], b[0], b[1]) for a, b in cables], [edge for _, edge in hosts], detach=detach,
                            veth=sflow is not None or netns, host_veths=netns)
    namespaces: list[str] = []
    state: dict[str, object] = {}

    def save() -> None:
        state.update({"fabric": fabric.name, "prefix": switches.prefix, "bridges": [switches.prefix + sw for sw in fabric.layers],
                      "switch_target": switches.target_template, "veths": switches.veths, "namespaces": namespaces})
        (run_dir / STATE_FILE).write_text(json.dumps(state, indent=1) + "\n")

    try:
        # Written before the flows: if this command dies while installing them, --down still finds the daemons.
        save()
        if netns:
            state["hosts"] = netns_hosts(switches, fabric, hosts, namespaces, shaping)
            if shaping:
                for n, (a, b) in enumerate(cables):
                    shape(f"{switches.prefix}v{n}a", fabric.capacities[a])  # a -> b
                    shape(f"{switches.prefix}v{n}b", fabric.capacities[b])  # b -> a
            state["shaped"] = shaping
            save()
        install(switches, plan(fabric), priority)
        if sflow is not None:
            (run_dir / SFLOW_MAP).write_text(json.dumps(configure_sflow(switches, fabric, sflow), indent=1) + "\n")
    except Exception:
        (run_dir / STATE_FILE).unlink(missing_ok=True)
        delete_namespaces(namespaces, switches.prefix)
        switches.stop()
        raise
    return switches


def delete_namespaces(names: list[str], prefix: str) -> list[str]:
    """Delete the namespaces named (their veth ends and qdiscs go with them); only names of this run's
    prefix, a name already gone is skipped."""
    deleted = []
    for ns in names:
        if not ns.startswith(prefix + "-"):
            print(f"fabric-up --down: {ns!r} is not a namespace of prefix {prefix!r}: left alone", file=sys.stderr)
            continue
        if subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30).returncode == 0:
            deleted.append(ns)
    return deleted


def _runs_here(pid: int, run_dir: Path) -> bool:
    """The PID is a live process whose command line names run_dir (not a reused PID)."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except OSError:
        return False
    return str(run_dir) in cmdline


def down(run_dir: Path) -> dict[str, object]:
    """Delete the bridges listed in run_dir's state file, then stop the daemons by their pidfiles."""
    run_dir = run_dir.resolve()
    state_path = run_dir / STATE_FILE
    if not state_path.exists():
        raise FabricError(f"{run_dir} holds no fabric brought up by fabric-up (no {STATE_FILE})")
    try:
        state = json.loads(state_path.read_text())
        bridges = [str(b) for b in state["bridges"]]
        prefix = str(state["prefix"])
        veths = [str(v) for v in state.get("veths", [])]
        namespaces = [str(n) for n in state.get("namespaces", [])]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise FabricError(f"{state_path} is not the state fabric-up writes ({e}): remove the fabric by hand") from None
    deleted = []
    if (run_dir / "db.sock").exists():
        for bridge in bridges:
            try:
                _run(["ovs-vsctl", f"--db=unix:{run_dir / 'db.sock'}", "--timeout=10", "--if-exists", "del-br", bridge], run_dir)
                deleted.append(bridge)
            except RuntimeError as e:
                print(f"fabric-up --down: {e}", file=sys.stderr)
    stopped = []
    for name in PIDFILES:
        try:
            pid = int((run_dir / name).read_text().strip())
        except (OSError, ValueError):
            continue
        if not _runs_here(pid, run_dir):
            continue
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while _runs_here(pid, run_dir) and time.monotonic() < deadline:
            time.sleep(0.05)
        if _runs_here(pid, run_dir):
            os.kill(pid, signal.SIGKILL)
        stopped.append(pid)
    namespaces_deleted = delete_namespaces(namespaces, prefix)
    foreign = [v for v in veths if not v.startswith(prefix)]
    if foreign:
        print(f"fabric-up --down: veths {foreign} are not of prefix {prefix!r}: left alone", file=sys.stderr)
    delete_veths([v for v in veths if v.startswith(prefix)])
    state_path.unlink()
    (run_dir / SFLOW_MAP).unlink(missing_ok=True)
    return {"bridges_deleted": deleted, "pids_stopped": stopped, "veths_deleted": veths, "namespaces_deleted": namespaces_deleted}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cheetah fabric-up",
        description="Bring a fabric topology file up on a private Open vSwitch (userspace datapath) with ECMP default "
        "forwarding, or take it down (--down).",
        epilog="examples:\n  %(prog)s --fabric leaf-spine.yaml --run-dir /tmp/fabric\n  %(prog)s --down --run-dir /tmp/fabric\n",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--fabric", type=Path, metavar="FILE", help="the topology file (docs/FABRIC.md); required unless --down")
    p.add_argument("--run-dir", type=Path, required=True, metavar="DIR",
                   help="OVS database, sockets, pidfiles and logs (an empty or new dir for up; the same dir for --down)")
    p.add_argument("--priority", type=int, default=DEFAULT_PRIORITY,
                   help=f"priority of the default forwarding flows (default {DEFAULT_PRIORITY}; keep it below the adapter's --priority)")
    p.add_argument("--sflow", metavar="HOST:PORT",
                   help="send sFlow from every switch to this collector address (cables become veth pairs; the map of "
                   f"ifIndex to switch port is printed and written to DIR/{SFLOW_MAP})")
    p.add_argument("--sflow-sampling", type=int, default=DEFAULT_SAMPLING, metavar="N",
                   help=f"sample 1 in N packets (default {DEFAULT_SAMPLING}, the study's)")
    p.add_argument("--sflow-polling", type=int, default=DEFAULT_POLLING, metavar="S",
                   help=f"push interface counters every S seconds (default {DEFAULT_POLLING})")
    p.add_argument("--netns", action="store_true",
                   help="hosts as network namespaces (PREFIX-NAME, device eth0), cables as veth pairs, every veth shaped "
                   "to its link's capacity (tc HTB); the up line lists each host's namespace")
    p.add_argument("--down", action="store_true", help="delete the bridges and stop the daemons that fabric-up started in --run-dir")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    try:
        if args.down:
            print(json.dumps({"event": "down", "run_dir": str(args.run_dir), **down(args.run_dir)}), flush=True)
            return 0
        if args.fabric is None:
            p.error("--fabric FILE is required (or --down)")
        if not 0 < args.priority < 65536:
            p.error("--priority must be in 1..65535")
        sflow = None
        if args.sflow is not None:
            host, sep, port = args.sflow.rpartition(":")
            if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
                p.error(f"--sflow {args.sflow!r}: give HOST:PORT (e.g. 127.0.0.1:6343)")
            if args.sflow_sampling < 1 or args.sflow_polling < 1:
                p.error("--sflow-sampling and --sflow-polling must be at least 1")
            sflow = SflowConfig(args.sflow, args.sflow_sampling, args.sflow_polling)
        fabric = load(args.fabric)
        switches = up(fabric, args.run_dir, args.priority, sflow=sflow, netns=args.netns)
    except FabricError as e:
        print(f"fabric-up: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"fabric-up: {e}", file=sys.stderr)
        return 1
    out: dict[str, object] = {"event": "up", "fabric": fabric.name, "run_dir": str(args.run_dir.resolve()),
                              "bridges": [switches.prefix + sw for sw in fabric.layers], "switch_target": switches.target_template}
    if args.netns:
        out["hosts"] = json.loads((args.run_dir / STATE_FILE).read_text())["hosts"]
    if sflow is not None:
        out["sflow"] = {"target": sflow.target, "sampling": sflow.sampling, "polling": sflow.polling,
                        "map": json.loads((args.run_dir / SFLOW_MAP).read_text())}
    print(json.dumps(out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
