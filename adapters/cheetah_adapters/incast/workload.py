"""Partition/aggregate over TCP: one aggregator asks N senders at once, each answers a fixed block.

The wire protocol, both directions a 16-byte header (network order, struct "!QII"):
  request   (request id, block bytes, delay µs): the sender waits `delay` then answers
  response  (request id, sender index, block bytes) followed by block - 16 filler bytes
The aggregator counts every byte per connection and checks each response's header, so a block
that arrives short, long or for the wrong request is an error, never a silent success.

A sender is its own process in its own namespace (`python -m cheetah_adapters.incast.workload
--index I --listen IP --port P`), serving one connection after another; the aggregator runs in
the experiment's process with its sockets made inside the receiver's namespace.
"""

from __future__ import annotations

import argparse
import selectors
import socket
import struct
import sys
import time
from dataclasses import dataclass

HEADER = struct.Struct("!QII")
MIN_BLOCK = HEADER.size


class WorkloadError(RuntimeError):
    pass


def _recv_exact(conn: socket.socket, n: int) -> bytes | None:
    got = b""
    while len(got) < n:
        chunk = conn.recv(n - len(got))
        if not chunk:
            return None
        got += chunk
    return got


def serve(index: int, listen: str, port: int, congestion: str) -> None:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((listen, port))
    srv.listen(4)
    print("ready", flush=True)
    blocks: dict[int, bytearray] = {}
    while True:
        conn, _ = srv.accept()
        # The congestion control of the study's era (loss-based), whatever the host's default is.
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, congestion.encode())
        with conn:
            while True:
                req = _recv_exact(conn, HEADER.size)
                if req is None:
                    break
                request_id, block, delay_us = HEADER.unpack(req)
                if block < MIN_BLOCK:
                    raise WorkloadError(f"sender {index}: block {block} < header {MIN_BLOCK}")
                buf = blocks.get(block)
                if buf is None:
                    buf = blocks[block] = bytearray(b"x" * block)
                HEADER.pack_into(buf, 0, request_id, index, block)
                if delay_us:
                    time.sleep(delay_us / 1e6)
                conn.sendall(buf)


@dataclass
class RequestResult:
    request_id: int
    rct_s: float  # request sent to the first sender .. last byte of the last block received
    flow_s: list[float]  # per sender (by index): request sent .. its block complete
    bytes_received: list[int]  # per sender; each equals the block when the request completed


class Aggregator:
    """Persistent connections to senders, each made inside the receiver's namespace."""

    def __init__(self, sockets: list[socket.socket], block: int, deadline_s: float = 60.0, quickack: bool = False) -> None:
        if block < MIN_BLOCK:
            raise WorkloadError(f"block must be at least {MIN_BLOCK} bytes, not {block}")
        self.sockets = sockets
        self.block = block
        self.deadline_s = deadline_s
        self.quickack = quickack
        self.selector = selectors.DefaultSelector()
        self.scratch = memoryview(bytearray(1 << 20))
        for i, s in enumerate(sockets):
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            s.setblocking(False)
            self.selector.register(s, selectors.EVENT_READ, i)

    def request(self, request_id: int, order: list[int], delays_us: list[int], block: int | None = None) -> RequestResult:
        """Sends the request to every sender (in `order`) and reads until every block is complete."""
        block = self.block if block is None else block
        if block < MIN_BLOCK:
            raise WorkloadError(f"block must be at least {MIN_BLOCK} bytes, not {block}")
        n = len(self.sockets)
        got = [0] * n
        head = [b""] * n
        flow = [0.0] * n
        done = 0
        t0 = time.perf_counter()
        for i in order:
            self.sockets[i].send(HEADER.pack(request_id, block, delays_us[i]))
        deadline = t0 + self.deadline_s
        while done < n:
            now = time.perf_counter()
            if now > deadline:
                short = {i: got[i] for i in range(n) if got[i] < block}
                raise WorkloadError(f"request {request_id}: blocks incomplete after {self.deadline_s} s (bytes by sender: {short})")
            for key, _ in self.selector.select(timeout=deadline - now):
                i = key.data
                want = block - got[i]
                if want == 0:
                    raise WorkloadError(f"request {request_id}: sender {i} sent more than its block of {block} bytes")
                k = self.sockets[i].recv_into(self.scratch, min(want, len(self.scratch)))
                if self.quickack:  # Linux leaves quick-ACK mode on its own: re-arm it after every read
                    self.sockets[i].setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
                if k == 0:
                    raise WorkloadError(f"request {request_id}: sender {i} closed the connection after {got[i]} of {block} bytes")
                if len(head[i]) < HEADER.size:
                    head[i] += bytes(self.scratch[: min(k, HEADER.size - len(head[i]))])
                    if len(head[i]) == HEADER.size:
                        rid, idx, blk = HEADER.unpack(head[i])
                        if (rid, idx, blk) != (request_id, i, block):
                            raise WorkloadError(f"request {request_id}: sender {i} answered (request {rid}, sender {idx}, block {blk})")
                got[i] += k
                if got[i] == block:
                    flow[i] = time.perf_counter() - t0
                    done += 1
        return RequestResult(request_id, max(flow), flow, got)

    def close(self) -> None:
        for s in self.sockets:
            self.selector.unregister(s)
            s.close()
        self.selector.close()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="An incast sender: answers each request with a block (run inside its namespace).")
    p.add_argument("--index", type=int, required=True)
    p.add_argument("--listen", required=True)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--congestion", default="cubic")
    args = p.parse_args(argv)
    try:
        serve(args.index, args.listen, args.port, args.congestion)
    except KeyboardInterrupt:
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
