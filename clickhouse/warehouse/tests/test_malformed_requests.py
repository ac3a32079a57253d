"""Malformed HTTP requests to the warehouse front, sent byte for byte over raw sockets.

http.client and urllib repair or refuse most of these before they leave the client, so each
request here is written out literally. Every one must get a clear 4xx answer (ClickHouse's
``Code: N. DB::Exception: ...`` text and ``X-ClickHouse-Exception-Code``), within seconds,
with the connection closed after it, and the server must answer a good query afterwards.
"""

from __future__ import annotations

import gzip
import socket
import time
import urllib.parse
from dataclasses import dataclass
from typing import Iterator

import pytest

from cheetah_warehouse.embedded import EmbeddedEngine
from cheetah_warehouse.http_front import HttpFront
from tests.warehouse_process import Warehouse, http, sql

ANSWER_WITHIN_S = 10  # every refusal here is immediate; this only bounds a hang


@dataclass
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes
    closed: bool  # the server closed the connection after answering

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


def exchange(url: str, request: bytes, half_close: bool = True) -> RawResponse:
    """Sends ``request`` as is and reads one response (and whether the server then closes)."""
    address = urllib.parse.urlsplit(url)
    with socket.create_connection((address.hostname or "127.0.0.1", address.port or 80), timeout=ANSWER_WITHIN_S) as conn:
        conn.sendall(request)
        if half_close:
            conn.shutdown(socket.SHUT_WR)  # what the client sent is all there is
        received = b""
        deadline = time.monotonic() + ANSWER_WITHIN_S
        while b"\r\n\r\n" not in received:
            assert time.monotonic() < deadline, f"no response head within {ANSWER_WITHIN_S} s: {received!r}"
            chunk = conn.recv(65536)
            assert chunk, f"the server closed the connection without an answer (got {received!r})"
            received += chunk
        head, _, rest = received.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
        length = int(headers["content-length"])
        while len(rest) < length:
            chunk = conn.recv(65536)
            assert chunk, f"the body ended after {len(rest)} of {length} bytes"
            rest += chunk
        try:
            closed = conn.recv(1) == b""  # the server closes after a refusal: nothing more comes
        except TimeoutError:
            closed = False
        return RawResponse(int(status_line.split()[1]), headers, rest[:length], closed)


def post(headers: str, body: bytes, target: str = "/") -> bytes:
    return f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n".encode("latin-1") + body


GOOD_GZIP = gzip.compress(b"SELECT 1")

# name -> (raw request, expected status, expected text in the answer)
MALFORMED = {
    "negative_content_length": (post("Content-Length: -5\r\n", b"SELECT 1"), 400, "Content-Length '-5' is not one non-negative decimal number"),
    "non_numeric_content_length": (post("Content-Length: abc\r\n", b"SELECT 1"), 400, "Content-Length 'abc' is not one non-negative decimal number"),
    # Found by the fuzz soak: str.strip() dropped the \x1e, int() did not (a 500 STD_EXCEPTION).
    "content_length_with_a_control_character": (
        post("Content-Length: \x1e8\r\n", b"SELECT 1"), 400, "Content-Length '\\x1e8' is not one non-negative decimal number",
    ),
    "conflicting_content_lengths": (
        post("Content-Length: 8\r\nContent-Length: 9\r\n", b"SELECT 1"), 400, "Content-Length '8', '9' is not one non-negative decimal number",
    ),
    "content_length_beyond_the_body": (
        post("Content-Length: 100\r\n", b"SELECT 1"), 400, "the request body ended after 8 of the 100 bytes its Content-Length announced",
    ),
    "absurd_content_length": (
        post("Content-Length: 99999999999999999999\r\n", b"SELECT 1"), 413,
        "request body of 99999999999999999999 bytes exceeds the front's limit of 1073741824 bytes",
    ),
    "bad_chunk_size": (
        post("Transfer-Encoding: chunked\r\n", b"zz\r\nSELECT 1\r\n0\r\n\r\n"), 400, "chunk size b'zz' is not a hexadecimal number",
    ),
    "negative_chunk_size": (
        post("Transfer-Encoding: chunked\r\n", b"-8\r\nSELECT 1\r\n0\r\n\r\n"), 400, "chunk size b'-8' is not a hexadecimal number",
    ),
    "chunk_longer_than_its_size": (
        post("Transfer-Encoding: chunked\r\n", b"3\r\nSELECT 1\r\n0\r\n\r\n"), 400, "chunk of 3 bytes is longer than its size line says",
    ),
    "chunked_body_without_last_chunk": (
        post("Transfer-Encoding: chunked\r\n", b"8\r\nSELECT 1\r\n"), 400, "the chunked request body ended before its last chunk",
    ),
    "chunked_and_content_length": (
        post("Transfer-Encoding: chunked\r\nContent-Length: 13\r\n", b"8\r\nSELECT 1\r\n0\r\n\r\n"), 400,
        "both Content-Length and Transfer-Encoding: chunked",
    ),
    "unknown_transfer_encoding": (post("Transfer-Encoding: gzip\r\n", GOOD_GZIP), 400, "Transfer-Encoding 'gzip' is not supported (chunked is)"),
    "garbage_gzip": (
        post("Content-Encoding: gzip\r\nContent-Length: 8\r\n", b"SELECT 1"), 400, "Cannot decompress request body: Error -3",
    ),
    "truncated_gzip": (
        post(f"Content-Encoding: gzip\r\nContent-Length: {len(GOOD_GZIP) - 4}\r\n", GOOD_GZIP[:-4]), 400,
        "Cannot decompress request body: the compressed stream is truncated",
    ),
    "gzip_with_trailing_garbage": (
        post(f"Content-Encoding: gzip\r\nContent-Length: {len(GOOD_GZIP) + 3}\r\n", GOOD_GZIP + b"xyz"), 400,
        "Cannot decompress request body: 3 bytes follow the compressed stream",
    ),
    "unsupported_content_encoding": (
        post("Content-Encoding: lz4\r\nContent-Length: 2\r\n", b"\x00\x01"), 415, "Content-Encoding 'lz4' is not supported",
    ),
    "non_utf8_query_in_body": (
        post("Content-Length: 10\r\n", b"SELECT '\xff'"), 400, "The query is not valid UTF-8 ('utf-8' codec can't decode byte 0xff in position 8",
    ),
    "non_utf8_query_percent_encoded_in_url": (
        b"GET /?query=SELECT%20%27%FF%27 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "the URL is not valid UTF-8",
    ),
    "non_utf8_raw_bytes_in_url": (
        b"GET /?query=SELECT%20%27\xff%27 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400, "the URL is not valid UTF-8",
    ),
    # Found by the fuzz soak: the stdlib served "GET /path" without a version as HTTP/0.9 (a bare body).
    "request_line_without_version": (b"GET /ping\r\n\r\n", 400, "is not HTTP/1.0 or HTTP/1.1 (HTTP/0.9 is not supported)"),
    "http09_version": (post("Content-Length: 8\r\n", b"SELECT 1").replace(b"HTTP/1.1", b"HTTP/0.9"), 400, "is not HTTP/1.0 or HTTP/1.1"),
    "request_line_of_four_words_ending_in_http09": (b"POST /x HTTP/1.1\rHTTP/0.9\r\n\r\n", 400, "Bad request syntax"),
    "request_line_of_one_word": (b"garbage\r\n\r\n", 400, "Bad request syntax ('garbage')"),
    "unknown_method": (b"PUT / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 501, "Unsupported method ('PUT')"),
    "unknown_path_get": (b"GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 404, "No handler for path /nope; use / or /ping"),
    "unknown_path_post": (post("Content-Length: 8\r\n", b"SELECT 1", target="/v1/query"), 404, "No handler for path /v1/query"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_request_gets_a_clear_4xx_and_the_server_keeps_answering(served: Warehouse, name: str) -> None:
    request, status, text = MALFORMED[name]
    response = exchange(served.url, request)
    assert (response.status, text in response.text) == (status, True), response
    assert response.text.startswith("Code: "), response.text
    assert response.headers["x-clickhouse-exception-code"] == response.text.split(".")[0].removeprefix("Code: ")
    if status != 404:  # a framing error leaves the stream unusable: the server says so and closes
        assert response.headers.get("connection") == "close" and response.closed, response
    assert served.process.poll() is None, served.stderr()
    assert sql(served.url, "SELECT 40 + 2") == "42\n"
    assert "Traceback" not in served.stderr(), served.stderr()


def test_a_truncated_body_is_never_run_as_a_shorter_query(served: Warehouse) -> None:
    sql(served.url, "CREATE TABLE IF NOT EXISTS truncation_probe (n UInt8) ENGINE = MergeTree ORDER BY n")
    body = b"INSERT INTO truncation_probe FORMAT TSV\n1\n2\n3\n"
    response = exchange(served.url, post(f"Content-Length: {len(body) + 10}\r\n", body))
    assert response.status == 400, response
    assert sql(served.url, "SELECT count() FROM truncation_probe") == "0\n"


def test_good_requests_in_the_same_raw_form_are_answered(served: Warehouse) -> None:
    """The refusals above are about the flaw, not the form: the same requests done right pass."""
    assert exchange(served.url, post("Content-Length: 8\r\n", b"SELECT 1")).body == b"1\n"
    assert exchange(served.url, post("Transfer-Encoding: chunked\r\n", b"4\r\nSELE\r\n4;x=y\r\nCT 1\r\n0\r\nTrailer: t\r\n\r\n")).body == b"1\n"
    assert exchange(served.url, post(f"Content-Encoding: gzip\r\nContent-Length: {len(GOOD_GZIP)}\r\n", GOOD_GZIP)).body == b"1\n"
    utf8 = urllib.parse.quote("SELECT 'é'")
    assert exchange(served.url, f"GET /?query={utf8} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()).body == "é\n".encode()
    assert exchange(served.url, "GET /?query=SELECT%20'é' HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()).body == "é\n".encode()


@pytest.fixture
def impatient_front(engine: EmbeddedEngine) -> Iterator[HttpFront]:
    """A front with a 1 s read timeout and a 1 KiB body limit, on this process's engine."""
    front = HttpFront(engine, 0, read_timeout_s=1.0, max_body_bytes=1024).start()
    try:
        yield front
    finally:
        front.stop()


def test_a_body_that_stops_arriving_gets_408_instead_of_a_hang(impatient_front: HttpFront) -> None:
    started = time.monotonic()
    response = exchange(impatient_front.url, post("Content-Length: 100\r\n", b"SELECT 1"), half_close=False)
    assert response.status == 408 and response.closed, response
    assert "the request body stopped after 8 of the 100 bytes its Content-Length announced (nothing for 1 s)" in response.text
    assert time.monotonic() - started < ANSWER_WITHIN_S
    chunked = exchange(impatient_front.url, post("Transfer-Encoding: chunked\r\n", b"8\r\nSELECT 1\r\n"), half_close=False)
    assert chunked.status == 408 and "the chunked request body stopped (nothing for 1 s)" in chunked.text, chunked
    assert http(impatient_front.url, query="SELECT 1").text == "1\n"


def test_bodies_over_the_limit_get_413_whole_chunked_or_inflated(impatient_front: HttpFront) -> None:
    big = b"SELECT '" + b"x" * 1100 + b"'"
    plain = exchange(impatient_front.url, post(f"Content-Length: {len(big)}\r\n", big))
    assert plain.status == 413 and "request body of 1109 bytes exceeds the front's limit of 1024 bytes" in plain.text, plain
    two_chunks = b"258\r\n" + b"x" * 600 + b"\r\n"  # 0x258 = 600 bytes; two make 1200
    chunked = exchange(impatient_front.url, post("Transfer-Encoding: chunked\r\n", two_chunks * 2 + b"0\r\n\r\n"))
    assert chunked.status == 413 and "chunked request body exceeds the front's limit of 1024 bytes" in chunked.text, chunked
    bomb = gzip.compress(big)  # ~40 bytes on the wire, 1109 once inflated
    inflated = exchange(impatient_front.url, post(f"Content-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n", bomb))
    assert inflated.status == 413 and "request body inflates to more than the front's limit of 1024 bytes" in inflated.text, inflated
    assert http(impatient_front.url, body=b"SELECT 'fits'").text == "fits\n"
