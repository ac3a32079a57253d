"""The warehouse front's fuzz target (scripts/fuzz_targets.txt, "warehouse-http").

`one_request(raw)` sends any bytes, as what a client wrote on a connection, to the front's real
request handler (http_front._Handler on one end of a socket pair; the client end is closed for
writing after the bytes, so a short request ends instead of waiting): the stdlib request line and
header parsing, then the front's framing (Content-Length, chunked), gzip/deflate, URL and
parameter decoding and credentials. The engine behind it is a recorder that answers every query
with nothing: the SQL is chdb's to parse, not the front's, and a real engine per input would
spend the fuzzer's time in chdb. Invariants: the handler returns (no exception escapes, no hang:
the caller's time limit), whatever it answers starts with an HTTP/1.x status line, and no answer is the front's catch-all
"Code: 1001 ... STD_EXCEPTION" (an unexpected exception while reading the request).
"""

from __future__ import annotations

import hashlib
import socket

from cheetah_warehouse import http_front
from cheetah_warehouse.embedded import QueryResult
from cheetah_warehouse.users import DEFAULT_USER, User

USERS = {
    DEFAULT_USER: User(DEFAULT_USER),
    "dashboards": User("dashboards", hashlib.sha256(b"secret").hexdigest(), {"readonly": "1"}),
}


class RecordingEngine:
    """Stands in for chdb (see the module docstring): records, answers empty."""

    def __init__(self) -> None:
        self.calls = 0

    def query(self, sql: str, fmt: str, **_: object) -> QueryResult:
        assert isinstance(sql, str) and isinstance(fmt, str)
        self.calls += 1
        return QueryResult(b"")

    def insert(self, statement: str, data_format: str, data: bytes, **_: object) -> QueryResult:
        assert isinstance(statement, str) and isinstance(data, bytes)
        self.calls += 1
        return QueryResult(b"")


class FakeServer:
    """What the handler reads from its server: settings, no listening socket."""

    def __init__(self) -> None:
        self.engine = RecordingEngine()
        self.timezone = "UTC"
        self.users = USERS
        self.read_timeout_s = 2.0
        self.max_body_bytes = 1 << 16


def one_request(raw: bytes) -> None:
    client, served = socket.socketpair()
    try:
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        client.sendall(raw)
        client.shutdown(socket.SHUT_WR)
        http_front._Handler(served, ("127.0.0.1", 40000), FakeServer())  # handles every request
        served.close()
        answer = b""
        while piece := client.recv(1 << 16):
            answer += piece
    finally:
        client.close()
        served.close()
    assert not answer or answer.startswith(b"HTTP/1."), answer[:200]
    assert b"(STD_EXCEPTION)" not in answer, answer[:2000]
