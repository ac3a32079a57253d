"""A root qdisc's own statistics over rtnetlink: backlog (bytes), drops and limit (bytes).

The incast guard reads the bottleneck queue's occupancy from the queue itself. The socket is opened
inside the interface's network namespace (a netlink socket stays in the namespace it was made in),
so one QueueReader per interface; reading it is one dump request of that interface's qdiscs.
"""

from __future__ import annotations

import ctypes
import os
import socket
import struct
import threading
from dataclasses import dataclass

_RTM_NEWQDISC, _RTM_GETQDISC = 36, 38
_NLM_F_REQUEST, _NLM_F_DUMP = 0x1, 0x300
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_TCA_KIND, _TCA_OPTIONS, _TCA_STATS2 = 1, 2, 7
_TCA_STATS_QUEUE = 3
_TCA_TBF_PARMS = 1
_TC_H_ROOT = 0xFFFFFFFF
_CLONE_NEWNET = 0x40000000


class QdiscError(RuntimeError):
    pass


@dataclass(frozen=True)
class QueueStats:
    kind: str  # tbf, bfifo, pfifo, ...
    backlog_bytes: int
    qlen: int
    drops: int
    limit_bytes: int  # the queue's byte limit; 0 when its kind has none (pfifo counts packets)


def _attrs(data: bytes) -> dict[int, bytes]:
    found: dict[int, bytes] = {}
    i = 0
    while i + 4 <= len(data):
        length, kind = struct.unpack_from("=HH", data, i)
        if length < 4:
            break
        found[kind & 0x3FFF] = data[i + 4 : i + length]
        i += (length + 3) & ~3
    return found


def _limit(kind: str, options: bytes | None) -> int:
    if not options:
        return 0
    if kind == "tbf":
        parms = _attrs(options).get(_TCA_TBF_PARMS)
        return struct.unpack_from("=I", parms, 24)[0] if parms and len(parms) >= 28 else 0
    if kind == "bfifo" and len(options) >= 4:
        return struct.unpack_from("=I", options, 0)[0]
    return 0


def in_netns(netns: str, make):
    """Runs make() in a thread that entered the named network namespace (only that thread moves)."""
    if not netns:
        return make()
    box: dict[str, object] = {}

    def enter() -> None:
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            fd = os.open(f"/var/run/netns/{netns}", os.O_RDONLY)
            try:
                if libc.setns(fd, _CLONE_NEWNET) != 0:
                    raise QdiscError(f"cannot enter network namespace {netns}: {os.strerror(ctypes.get_errno())}")
            finally:
                os.close(fd)
            box["value"] = make()
        except Exception as e:  # handed to the caller
            box["error"] = e

    t = threading.Thread(target=enter, name=f"netns-{netns}")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]


class QueueReader:
    def __init__(self, interface: str, netns: str = "") -> None:
        self.interface = interface

        def open_socket() -> tuple[socket.socket, int]:
            try:
                index = socket.if_nametoindex(interface)
            except OSError as e:
                raise QdiscError(f"no interface {interface!r} in {netns or 'this'} network namespace") from e
            s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
            s.bind((0, 0))
            return s, index

        self.sock, self.ifindex = in_netns(netns, open_socket)
        self.seq = 0

    def close(self) -> None:
        self.sock.close()

    def root(self) -> QueueStats:
        """The interface's root qdisc's statistics now."""
        self.seq += 1
        tcmsg = struct.pack("=BxHiIII", socket.AF_UNSPEC, 0, self.ifindex, 0, 0, 0)
        header = struct.pack("=IHHII", 16 + len(tcmsg), _RTM_GETQDISC, _NLM_F_REQUEST | _NLM_F_DUMP, self.seq, 0)
        self.sock.send(header + tcmsg)
        found: QueueStats | None = None
        while True:
            data = self.sock.recv(65536)
            i = 0
            while i + 16 <= len(data):
                length, kind, _flags, seq, _pid = struct.unpack_from("=IHHII", data, i)
                body = data[i + 16 : i + length]
                i += (length + 3) & ~3
                if seq != self.seq:
                    continue
                if kind == _NLMSG_DONE:
                    if found is None:
                        raise QdiscError(f"{self.interface} has no root qdisc")
                    return found
                if kind == _NLMSG_ERROR:
                    code = -struct.unpack_from("=i", body, 0)[0]
                    raise QdiscError(f"reading the qdiscs of {self.interface}: {os.strerror(code)}")
                if kind != _RTM_NEWQDISC or len(body) < 20:
                    continue
                _family, _pad, ifindex, _handle, parent, _info = struct.unpack_from("=BxHiIII", body, 0)
                if ifindex != self.ifindex or parent != _TC_H_ROOT:
                    continue
                attrs = _attrs(body[20:])
                name = attrs.get(_TCA_KIND, b"").rstrip(b"\0").decode()
                queue = _attrs(attrs.get(_TCA_STATS2, b"")).get(_TCA_STATS_QUEUE, b"")
                qlen, backlog, drops = struct.unpack_from("=III", queue, 0) if len(queue) >= 12 else (0, 0, 0)
                found = QueueStats(name, backlog, qlen, drops, _limit(name, attrs.get(_TCA_OPTIONS)))
