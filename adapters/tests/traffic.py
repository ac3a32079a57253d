"""Real TCP traffic between the namespaces of a VethPair: an iperf3 server in b, a client in a."""

from __future__ import annotations

import subprocess
import time

from tests.namespaces import VethPair, sh


def wait_drained(pair: VethPair, timeout: float = 10) -> None:
    """Waits until a's qdisc holds no packets, so class counters include everything sent."""
    deadline = time.monotonic() + timeout
    while True:
        shown = sh("tc", "-n", pair.a, "-s", "qdisc", "show", "dev", pair.dev_a, "root")
        if "backlog 0b 0p" in shown:
            return
        if time.monotonic() > deadline:
            raise RuntimeError(f"qdisc on {pair.dev_a} still holds packets after {timeout} s: {shown}")
        time.sleep(0.02)


def iperf3(pair: VethPair, server_port: int, client_port: int, megabytes: int = 1, ipv6: bool = False) -> str:
    """One iperf3 transfer of `megabytes` from a (fixed client port) to b; returns the client's output."""
    dst = pair.ip6_b if ipv6 else pair.ip_b
    server = subprocess.Popen(
        ["ip", "netns", "exec", pair.b, "iperf3", "-s", "-1", "--forceflush", "-B", dst, "-p", str(server_port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    try:
        assert server.stdout is not None
        deadline = time.monotonic() + 10
        line = ""
        while "Server listening" not in line:
            line = server.stdout.readline()
            if (not line and server.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError(f"iperf3 server in {pair.b} did not start: {line!r}")
        client = subprocess.run(
            ["ip", "netns", "exec", pair.a, "iperf3", "-c", dst, "-p", str(server_port), "--cport", str(client_port), "-n", f"{megabytes}M"],
            capture_output=True, text=True, timeout=60,
        )
        if client.returncode != 0:
            raise RuntimeError(f"iperf3 client failed: {client.stdout}{client.stderr}")
        server.wait(timeout=10)
        wait_drained(pair)
        return client.stdout
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
