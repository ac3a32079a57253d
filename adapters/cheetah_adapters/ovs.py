"""A private Open vSwitch 3.1 (userspace datapath): ovsdb-server and ovs-vswitchd as children, with
their database, sockets, pidfiles and logs in one work dir (never the system's /var/run/openvswitch),
netdev bridges on it. Stopped by PID. Used by `cheetah fabric-up` (fabric_up.py) and the tests."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

SCHEMA = Path("/usr/share/openvswitch/vswitch.ovsschema")


@dataclass
class Switch:
    work: Path
    bridge: str
    port: str  # an internal port on the bridge
    processes: list[subprocess.Popen[bytes]]

    @property
    def target(self) -> str:
        return f"unix:{self.work / self.bridge}.mgmt"

    def vsctl(self, *args: str) -> str:
        return _run(["ovs-vsctl", f"--db=unix:{self.work / 'db.sock'}", "--timeout=10", *args], self.work)

    def flows(self) -> list[str]:
        out = _run(["ovs-ofctl", "-O", "OpenFlow13", "dump-flows", "--no-stats", "--names", self.target], self.work)
        return sorted(line.strip() for line in out.splitlines() if "priority=40000" in line)

    def stop(self) -> None:
        try:
            self.vsctl("--if-exists", "del-br", self.bridge)  # its tap ports go with it
        except RuntimeError:
            pass
        for process in reversed(self.processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


def _env(work: Path) -> dict[str, str]:
    return {**os.environ, "OVS_RUNDIR": str(work), "OVS_LOGDIR": str(work), "OVS_DBDIR": str(work)}


def _run(argv: list[str], work: Path) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=30, env=_env(work))
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout


def _start_daemons(work: Path, switch: Switch, detach: bool = False) -> None:
    """ovsdb-server and ovs-vswitchd for `switch` (whose processes list receives them); detached (their
    own session) they outlive the caller, and are stopped later by their pidfiles in `work`."""
    for tool in ("ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl", "ovsdb-tool"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            raise RuntimeError(f"{tool} is not installed: install openvswitch-switch 3.1 (./cheetah setup does)")
    _run(["ovsdb-tool", "create", str(work / "conf.db"), str(SCHEMA)], work)
    env = _env(work)
    switch.processes.append(subprocess.Popen(
        ["ovsdb-server", str(work / "conf.db"), f"--remote=punix:{work / 'db.sock'}", f"--unixctl={work / 'ovsdb.ctl'}",
         f"--log-file={work / 'ovsdb.log'}", f"--pidfile={work / 'ovsdb.pid'}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=detach,
    ))
    deadline = time.monotonic() + 15
    while not (work / "db.sock").exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"ovsdb-server did not open its socket; see {work / 'ovsdb.log'}")
        time.sleep(0.05)
    switch.vsctl("--no-wait", "init")
    switch.processes.append(subprocess.Popen(
        ["ovs-vswitchd", f"unix:{work / 'db.sock'}", "--disable-system", f"--unixctl={work / 'vswitchd.ctl'}",
         f"--log-file={work / 'vswitchd.log'}", f"--pidfile={work / 'vswitchd.pid'}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=detach,
    ))


def _wait_bridge(work: Path, bridge: str, deadline: float) -> None:
    while not (work / f"{bridge}.mgmt").exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"ovs-vswitchd did not open {bridge}.mgmt; see {work / 'vswitchd.log'}")
        time.sleep(0.05)


def start_switch(work: Path) -> Switch:
    tag = secrets.token_hex(3)
    switch = Switch(work, f"cbr{tag}", f"cof{tag}", [])
    try:
        deadline = time.monotonic() + 30
        _start_daemons(work, switch)
        switch.vsctl("add-br", switch.bridge, "--", "set", "bridge", switch.bridge, "datapath_type=netdev",
                     "protocols=OpenFlow10,OpenFlow13")
        switch.vsctl("add-port", switch.bridge, switch.port, "--", "set", "interface", switch.port, "type=internal")
        _wait_bridge(work, switch.bridge, deadline)
    except Exception:
        switch.stop()
        raise
    return switch


@dataclass
class FabricSwitches:
    """A fabric (docs/FABRIC.md) on one private ovs-vswitchd: a netdev bridge per switch, named
    PREFIX+switch, its cables as patch port pairs and its hosts as internal ports, each at the
    OpenFlow port number the file gives it."""

    daemons: Switch  # its processes and vsctl; its own bridge is not made
    prefix: str
    veths: list[str] = field(default_factory=list)  # one end of each veth cable (deleting it deletes its peer)
    host_ends: dict[tuple[str, int], str] = field(default_factory=dict)  # host port -> its veth's far end (host_veths)

    @property
    def target_template(self) -> str:
        return f"unix:{self.daemons.work}/{self.prefix}{{switch}}.mgmt"

    def target(self, switch: str) -> str:
        return self.target_template.replace("{switch}", switch)

    def ofctl(self, *args: str) -> str:
        return _run(["ovs-ofctl", "-O", "OpenFlow13", *args], self.daemons.work)

    def flows(self, switch: str, priority: int) -> list[str]:
        """The flows at this priority on a switch, without the volatile fields (durations, idle age)."""
        out = self.ofctl("dump-flows", self.target(switch))
        keep = []
        for line in out.splitlines():
            if f"priority={priority}," not in line:
                continue
            parts = [p for p in line.strip().split(", ") if not p.startswith(("duration=", "idle_age=", "table=", "n_bytes="))]
            keep.append(", ".join(parts))
        return sorted(keep)

    def stop(self) -> None:
        try:
            for bridge in self.daemons.vsctl("list-br").split():
                self.daemons.vsctl("--if-exists", "del-br", bridge)  # their tap ports go with them
        except RuntimeError:
            pass
        self.daemons.stop()
        delete_veths(self.veths)


def delete_veths(names: list[str]) -> None:
    """Delete veth pairs by one end's name (the kernel deletes its peer); one already gone is skipped."""
    for name in names:
        subprocess.run(["ip", "link", "del", name], capture_output=True, timeout=30)


def _add_veth(a: str, b: str, work: Path, b_mac: str | None = None) -> None:
    """A veth pair a <-> b, both up, IPv6 off (no router solicitations or MLD reports of the kernel's own
    counted as traffic), so the only packets on it are the fabric's. b_mac: b's MAC address."""
    _run(["ip", "link", "add", a, "type", "veth", "peer", "name", b, *(["address", b_mac] if b_mac else [])], work)
    for end in (a, b):
        _run(["sysctl", "-q", "-w", f"net.ipv6.conf.{end}.disable_ipv6=1"], work)
        _run(["ip", "link", "set", end, "up"], work)


def host_mac(n: int) -> str:
    """The MAC of host n's own veth end: locally administered, fixed, so hosts can know each other's
    without ARP."""
    return f"02:ce:{(n >> 24) & 255:02x}:{(n >> 16) & 255:02x}:{(n >> 8) & 255:02x}:{n & 255:02x}"


def start_fabric(work: Path, switches: dict[str, list[int]], cables: list[tuple[str, int, str, int]],
                 hosts: list[tuple[str, int]], detach: bool = False, veth: bool = False,
                 host_veths: bool = False) -> FabricSwitches:
    """switches: name -> ports; cables: (a, a_port, b, b_port); hosts: (switch, port).

    A host is an internal port, or with `host_veths` a veth pair PREFIX+h+N+a (on the bridge) and
    PREFIX+h+N+b (in host_ends, for the caller to move into the host's namespace; its MAC is
    host_mac(N)).

    A cable is a pair of patch ports, or with `veth` a kernel veth pair (named PREFIX+v+N+a/b) added to
    the two bridges as system ports: OVS's sFlow sees only ports with a kernel ifindex (a patch port has
    none: no counter samples, and a packet crossing patch ports is one datapath flow sampled only where
    it entered the fabric; docs/FABRIC.md, "sFlow")."""
    tag = secrets.token_hex(2)
    prefix = f"f{tag}"
    assert all(len(prefix + name) <= 15 for name in switches), "bridge names are interface names: 15 characters"
    fabric = FabricSwitches(Switch(work, "", "", []), prefix)
    try:
        deadline = time.monotonic() + 30
        _start_daemons(work, fabric.daemons, detach)
        commands: list[str] = []
        for name in switches:
            commands += ["--", "add-br", prefix + name, "--", "set", "bridge", prefix + name, "datapath_type=netdev",
                         "protocols=OpenFlow10,OpenFlow13,OpenFlow15", "fail_mode=secure"]
        for n, (a, a_port, b, b_port) in enumerate(cables):
            if veth:
                pa, pb = f"{prefix}v{n}a", f"{prefix}v{n}b"
                fabric.veths.append(pa)
                _add_veth(pa, pb, work)
                commands += ["--", "add-port", prefix + a, pa, "--", "set", "interface", pa, f"ofport_request={a_port}",
                             "--", "add-port", prefix + b, pb, "--", "set", "interface", pb, f"ofport_request={b_port}"]
                continue
            pa, pb = f"{prefix}{a}p{a_port}", f"{prefix}{b}p{b_port}"
            commands += ["--", "add-port", prefix + a, pa, "--", "set", "interface", pa, "type=patch", f"options:peer={pb}",
                         f"ofport_request={a_port}",
                         "--", "add-port", prefix + b, pb, "--", "set", "interface", pb, "type=patch", f"options:peer={pa}",
                         f"ofport_request={b_port}"]
        for n, (sw, port) in enumerate(hosts):
            if host_veths:
                pa, pb = f"{prefix}h{n}a", f"{prefix}h{n}b"
                fabric.veths.append(pa)
                _add_veth(pa, pb, work, host_mac(n))
                fabric.host_ends[(sw, port)] = pb
                commands += ["--", "add-port", prefix + sw, pa, "--", "set", "interface", pa, f"ofport_request={port}"]
                continue
            ph = f"{prefix}{sw}h{port}"
            commands += ["--", "add-port", prefix + sw, ph, "--", "set", "interface", ph, "type=internal", f"ofport_request={port}"]
        fabric.daemons.vsctl(*commands[1:])
        for name in switches:
            _wait_bridge(work, prefix + name, deadline)
            fabric.ofctl("del-flows", fabric.target(name))  # secure fail mode, no NORMAL: the test's flows only
    except Exception:
        fabric.stop()
        raise
    return fabric
