"""A delay line for the network-namespace scenarios: this kernel has no netem, so a path with a
round-trip time is built in user space. Two TUN devices (made beforehand, e.g. `ip tuntap add
dev NAME mode tun`) in a router namespace that sends each direction of the path into one of them
by policy routing; every IP packet read from one is written to the other DELAY ms later, where
the kernel routes it on. The delay is per direction (a round trip crosses the line twice).

Usage: python delayline.py TUN_A TUN_B DELAY_MS
Prints "ready" once both devices are attached; runs until killed. Packets are never reordered
and never dropped by the line itself (a write the device refuses is counted on stderr).
"""

from __future__ import annotations

import collections
import fcntl
import os
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN, IFF_NO_PI = 0x0001, 0x1000


def attach(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    a, b = attach(argv[0]), attach(argv[1])
    delay = float(argv[2]) / 1000
    out = {a: b, b: a}
    queues: dict[int, collections.deque[tuple[float, bytes]]] = {a: collections.deque(), b: collections.deque()}
    refused = 0
    print("ready", flush=True)
    while True:
        now = time.monotonic()
        due = [q[0][0] for q in queues.values() if q]
        timeout = max(0.0, min(due) - now) if due else 1.0
        readable, _, _ = select.select([a, b], [], [], timeout)
        now = time.monotonic()
        for fd in readable:
            while True:
                try:
                    packet = os.read(fd, 65535)
                except BlockingIOError:
                    break
                queues[fd].append((now + delay, packet))
        now = time.monotonic()
        for fd, q in queues.items():
            while q and q[0][0] <= now:
                try:
                    os.write(out[fd], q.popleft()[1])
                except OSError as e:
                    refused += 1
                    print(f"delayline: write refused ({e}); {refused} so far", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
