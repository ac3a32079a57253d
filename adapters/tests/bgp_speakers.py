"""Two GoBGP v4 speakers on loopback: the adapter's (127.0.0.1, AS 65001) and a stand-in for the
operator's router (127.0.0.2, AS 65002), peering for IPv4 and IPv6 FlowSpec. Stopped by PID."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kafka_broker import REPO

# Where adapters/build.sh put gobgpd and gobgp (CHEETAH_GOBGP_BIN overrides, e.g. .cheetah/bin).
BIN = Path(os.environ.get("CHEETAH_GOBGP_BIN", REPO / "adapters" / ".bin"))
FLOWSPEC = """
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv4-flowspec"
  [[neighbors.afi-safis]]
    [neighbors.afi-safis.config]
      afi-safi-name = "ipv6-flowspec"
"""


def speaker_config(asn: int, address: str, port: int, peer_asn: int, peer: str, peer_port: int, passive: bool) -> str:
    return f"""
[global.config]
  as = {asn}
  router-id = "{address}"
  port = {port}
  local-address-list = ["{address}"]
[[neighbors]]
  [neighbors.config]
    neighbor-address = "{peer}"
    peer-as = {peer_asn}
  [neighbors.transport.config]
    local-address = "{address}"
    remote-port = {peer_port}
    passive-mode = {str(passive).lower()}
  [neighbors.timers.config]
    connect-retry = 1
{FLOWSPEC}"""


@dataclass
class Speakers:
    adapter_api: str  # 127.0.0.1:PORT, gRPC of the adapter's speaker
    router_api_port: int
    processes: list[subprocess.Popen[bytes]]

    def router(self, *args: str) -> str:
        return subprocess.run([str(BIN / "gobgp"), "-p", str(self.router_api_port), *args], capture_output=True, text=True, check=True, timeout=20).stdout

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def start_speakers(work: Path, ports: list[int]) -> Speakers:
    if not (BIN / "gobgpd").exists():
        pytest.fail(f"GoBGP is not installed in {BIN}: run adapters/build.sh (go install of gobgpd/gobgp v4.8.0)")
    bgp_a, bgp_b, api_a, api_b = ports
    (work / "adapter.toml").write_text(speaker_config(65001, "127.0.0.1", bgp_a, 65002, "127.0.0.2", bgp_b, passive=False))
    (work / "router.toml").write_text(speaker_config(65002, "127.0.0.2", bgp_b, 65001, "127.0.0.1", bgp_a, passive=True))
    processes = []
    for name, api in (("adapter", api_a), ("router", api_b)):
        log = open(work / f"{name}.log", "wb")
        processes.append(subprocess.Popen(
            [str(BIN / "gobgpd"), "-f", str(work / f"{name}.toml"), "--api-hosts", f"127.0.0.1:{api}", "-l", "info"],
            stdout=log, stderr=subprocess.STDOUT,
        ))
    speakers = Speakers(f"127.0.0.1:{api_a}", api_b, processes)
    deadline = time.monotonic() + 30
    while True:
        try:
            peers = json.loads(speakers.router("neighbor", "-j"))
            if peers and peers[0].get("state", {}).get("session_state") in (6, "established", "ESTABLISHED"):
                return speakers
        except (subprocess.CalledProcessError, ValueError):
            pass
        if time.monotonic() > deadline:
            speakers.stop()
            raise RuntimeError(f"the BGP session did not come up within 30 s; logs in {work}")
        time.sleep(0.1)
