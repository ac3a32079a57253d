"""Flow control by the collector's counters (`--follow`): a stand-in collector on loopback
(a UDP socket read on demand, its count served over HTTP in cheetah-goflow2's metric names)."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from cheetah_generator.dgram_file import StoredDatagram
from cheetah_generator.pacing import CollectorWindow, Pace, datagram_cost, metric_sum, send_paced


class StandIn:
    """Reads its UDP socket only when told to; /metrics says how many it read (taken)."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.taken = 0
        self.lock = threading.Lock()
        self.gate = threading.Semaphore(0)
        self.buffer = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)

    def page(self) -> str:
        with self.lock:
            taken = self.taken
        p = self.port
        return (
            f'goflow2_flow_traffic_packets_total{{local_ip="127.0.0.1",local_port="{p}",remote_ip="127.0.0.1",type="NetFlow"}} {taken}\n'
            f'goflow2_flow_traffic_packets_total{{local_ip="127.0.0.1",local_port="1",remote_ip="127.0.0.1",type="NetFlow"}} 999\n'
            f'cheetah_goflow2_socket_drops_total{{local_port="{p}"}} 0\n'
            f'cheetah_goflow2_socket_receive_buffer_bytes{{local_port="{p}"}} {self.buffer}\n'
        )

    def read(self, n: int) -> None:
        for _ in range(n):
            self.sock.recv(65536)
            with self.lock:
                self.taken += 1


@contextmanager
def stand_in() -> Iterator[tuple[StandIn, str]]:
    c = StandIn()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            body = c.page().encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield c, f"http://127.0.0.1:{srv.server_address[1]}/metrics"
    finally:
        srv.shutdown()
        srv.server_close()
        c.sock.close()


def test_metric_sum_filters_by_port() -> None:
    page = 'a{local_port="5",x="1"} 2\na{local_port="6"} 3\na{local_port="5",x="2"} 4.0\nab{local_port="5"} 9\n'
    assert metric_sum(page, "a", 5) == 6
    assert metric_sum(page, "a") == 9


def test_window_defaults_to_half_the_granted_buffer() -> None:
    with stand_in() as (c, url):
        w = CollectorWindow(url, c.port, 1400)
        assert w.window == c.buffer // 2 // datagram_cost(1400)
        assert w.buffer == c.buffer


def test_sender_never_gets_more_than_the_window_ahead() -> None:
    window, total = 5, 40
    with stand_in() as (c, url):
        follow = CollectorWindow(url, c.port, 100, window=window)
        sent: list[int] = []
        done = threading.Event()

        def send() -> None:
            stats = send_paced(
                (StoredDatagram(b"x" * 100, records=1) for _ in range(total)), ("127.0.0.1", c.port), Pace(), follow=follow
            )
            sent.append(stats.datagrams)
            done.set()

        t = threading.Thread(target=send, daemon=True)
        t.start()
        # The stand-in reads nothing: the sender stops with exactly `window` datagrams in flight.
        assert not done.wait(0.5)
        assert c.sock.recv(65536, socket.MSG_PEEK)  # something arrived
        queued = _queued(c.sock)
        assert queued == window, f"{queued} datagrams in flight, window {window}"
        # Each datagram taken lets one more go.
        c.read(3)
        assert not done.wait(0.5)
        assert _queued(c.sock) == window
        c.read(total - 3)
        assert done.wait(10), "the sender did not finish once everything was taken"
        t.join(5)
    assert sent == [total]


def test_a_collector_that_takes_nothing_is_an_error() -> None:
    with stand_in() as (c, url):
        follow = CollectorWindow(url, c.port, 100, window=1)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
            tx.sendto(b"x", ("127.0.0.1", c.port))
        with pytest.raises(RuntimeError, match="took no datagram"):
            follow.wait_room(1, stall_s=0.2)


def test_no_collector_metrics_is_an_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(RuntimeError, match="cannot read the collector's metrics"):
        CollectorWindow(f"http://127.0.0.1:{port}/metrics", 9, 100)


def _queued(sock: socket.socket) -> int:
    """Datagrams waiting in the socket (by the kernel's /proc/net/udp row of its port)."""
    port = sock.getsockname()[1]
    with open("/proc/net/udp") as f:
        for line in f.readlines()[1:]:
            cols = line.split()
            if int(cols[1].split(":")[1], 16) == port:
                return int(cols[4].split(":")[1], 16) // datagram_cost_exact(100)
    raise AssertionError(f"no row for port {port}")


def datagram_cost_exact(n: int) -> int:
    """Kernel bytes charged for one n-byte datagram on loopback, measured on the spot."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as rx, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as tx:
        rx.bind(("127.0.0.1", 0))
        tx.sendto(b"x" * n, rx.getsockname())
        port = rx.getsockname()[1]
        rx.recv(65536, socket.MSG_PEEK)
        with open("/proc/net/udp") as f:
            for line in f.readlines()[1:]:
                cols = line.split()
                if int(cols[1].split(":")[1], 16) == port:
                    return int(cols[4].split(":")[1], 16)
    raise AssertionError("no row")
