"""A private Open vSwitch 3.1 (userspace datapath): ovsdb-server and ovs-vswitchd as children, with
their database, sockets and logs in a temp dir, one netdev bridge. Stopped by PID."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

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


def start_switch(work: Path) -> Switch:
    for tool in ("ovsdb-server", "ovs-vswitchd", "ovs-vsctl", "ovs-ofctl", "ovsdb-tool"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            pytest.fail(f"{tool} is not installed: install openvswitch-switch 3.1 (./cheetah setup does)")
    _run(["ovsdb-tool", "create", str(work / "conf.db"), str(SCHEMA)], work)
    env = _env(work)
    processes = [subprocess.Popen(
        ["ovsdb-server", str(work / "conf.db"), f"--remote=punix:{work / 'db.sock'}", f"--unixctl={work / 'ovsdb.ctl'}",
         f"--log-file={work / 'ovsdb.log'}", f"--pidfile={work / 'ovsdb.pid'}"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )]
    tag = secrets.token_hex(3)
    switch = Switch(work, f"cbr{tag}", f"cof{tag}", processes)
    try:
        deadline = time.monotonic() + 15
        while not (work / "db.sock").exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"ovsdb-server did not open its socket; see {work / 'ovsdb.log'}")
            time.sleep(0.05)
        switch.vsctl("--no-wait", "init")
        processes.append(subprocess.Popen(
            ["ovs-vswitchd", f"unix:{work / 'db.sock'}", "--disable-system", f"--unixctl={work / 'vswitchd.ctl'}",
             f"--log-file={work / 'vswitchd.log'}", f"--pidfile={work / 'vswitchd.pid'}"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        ))
        switch.vsctl("add-br", switch.bridge, "--", "set", "bridge", switch.bridge, "datapath_type=netdev",
                     "protocols=OpenFlow10,OpenFlow13")
        switch.vsctl("add-port", switch.bridge, switch.port, "--", "set", "interface", switch.port, "type=internal")
        while not (work / f"{switch.bridge}.mgmt").exists():
            if time.monotonic() > deadline:
                raise RuntimeError(f"ovs-vswitchd did not open {switch.bridge}.mgmt; see {work / 'vswitchd.log'}")
            time.sleep(0.05)
    except Exception:
        switch.stop()
        raise
    return switch
