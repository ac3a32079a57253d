"""Free loopback ports for the processes the adapters' tools and tests start on 127.0.0.1."""

from __future__ import annotations

import socket


def free_ports(*kinds: int) -> list[int]:
    """One free loopback port per socket kind (socket.SOCK_STREAM or SOCK_DGRAM), all distinct: every
    socket stays bound until all are chosen, since the OS may offer a port it has just offered again."""
    held = [socket.socket(socket.AF_INET, kind) for kind in kinds]
    try:
        for s in held:
            s.bind(("127.0.0.1", 0))
        return [int(s.getsockname()[1]) for s in held]
    finally:
        for s in held:
            s.close()
