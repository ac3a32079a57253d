"""A minimal ClickHouse-HTTP-compatible front for the embedded engine.

chdb cannot open listeners of its own, so the process that owns the data
directory answers the ClickHouse HTTP protocol here, on 127.0.0.1 only, for
the CLI, curl, clickhouse-connect and Superset. In distributed mode a
ClickHouse server replaces this module entirely.

Supported, as ClickHouse does it: the query from the ``query`` URL parameter
and/or the POST body (parameter first, then a newline, then the body),
``default_format`` (TabSeparated), ``database``, ``param_NAME`` query
parameters, any other URL parameter as a setting for that query only,
``GET /`` and ``GET /ping`` → ``Ok.``, gzip/deflate request bodies, chunked
uploads, errors as HTTP 500 with ClickHouse's ``Code: N. DB::Exception: ...``
text and ``X-ClickHouse-Exception-Code`` (a 4xx in the same form, then the connection
closes, for a request that cannot be read: framing, encoding, size, a stalled client), and
the ``X-ClickHouse-Format``, ``X-ClickHouse-Summary``, ``X-ClickHouse-Query-Id`` and
``X-ClickHouse-Timezone`` headers. Not supported: sessions (``SET`` would leak into other requests; pass
settings as URL parameters), GET-implies-readonly, response compression,
progress headers, external data, quotas. Users: ``default`` (no password, full
access; the front binds loopback only) and the users of clickhouse/users.d/ files
(HTTP basic auth, ``X-ClickHouse-User``/``X-ClickHouse-Key`` or ``user``/``password``
parameters), each in its own session with its profile's settings (users.py).
"""

from __future__ import annotations

import base64
import json
import re
import socket
import threading
import urllib.parse
import uuid
import zlib
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .embedded import EmbeddedEngine, QueryResult
from .errors import QueryError, WarehouseError
from .users import DEFAULT_USER, User, authenticate

DEFAULT_FORMAT = "TabSeparated"
# ClickHouse's http_receive_timeout and keep_alive_timeout defaults: a client silent this long
# mid-request gets 408, an idle kept-alive connection is closed.
READ_TIMEOUT_S = 30.0
# The body is held in memory (chdb takes it whole): larger requests get 413 before any is read.
MAX_BODY_BYTES = 1 << 30

# Client and protocol parameters that are not settings: used here or ignored.
NOT_SETTINGS = frozenset(
    {
        "query",
        "database",
        "default_format",
        "user",
        "password",
        "quota_key",
        "role",
        "session_id",
        "session_timeout",
        "session_check",
        "query_id",
        "compress",
        "decompress",
        "wait_end_of_query",
        "buffer_size",
        "stacktrace",
        "client_protocol_version",
        "readonly",  # cannot be lifted again within a query scope; the front is loopback-only
    }
)

_TRAILING_FORMAT = re.compile(r"\bFORMAT\s+([A-Za-z][A-Za-z0-9_]*)\s*;?\s*$", re.IGNORECASE)

_CONTENT_TYPES = {
    "tabseparated": "text/tab-separated-values; charset=UTF-8",
    "tsv": "text/tab-separated-values; charset=UTF-8",
    "csv": "text/csv; charset=UTF-8; header=absent",
    "csvwithnames": "text/csv; charset=UTF-8; header=present",
    "json": "application/json; charset=UTF-8",
    "jsoncompact": "application/json; charset=UTF-8",
    "jsoneachrow": "application/x-ndjson; charset=UTF-8",
}


def content_type_for(fmt: str) -> str:
    key = fmt.lower()
    if key in _CONTENT_TYPES:
        return _CONTENT_TYPES[key]
    if key.startswith(("tabseparated", "tsv")):
        return "text/tab-separated-values; charset=UTF-8"
    if key.startswith(("native", "rowbinary", "arrow", "parquet", "orc", "protobuf", "avro", "msgpack")):
        return "application/octet-stream"
    return "text/plain; charset=UTF-8"


def compose_query(param: bytes, body: bytes) -> bytes:
    """ClickHouse's rule: the ``query`` parameter, a newline, then the POST body."""
    if param and body:
        return param + b"\n" + body
    return param or body


# INSERT ... FORMAT name, then (after one whitespace) data that may be binary.
_INSERT_WITH_DATA = re.compile(
    rb"^\s*(INSERT\s+INTO\s+.*?)\s+FORMAT\s+([A-Za-z][A-Za-z0-9_]*)(?:[ \t]*\r?\n|[ \t]|$)",
    re.IGNORECASE | re.DOTALL,
)


def split_insert(query: bytes) -> tuple[str, str, bytes] | None:
    """``INSERT INTO t FORMAT F<ws>data`` -> (``INSERT INTO t``, F, data); None for other statements."""
    match = _INSERT_WITH_DATA.match(query)
    if match is None or b"\0" in match.group(1):
        return None
    try:
        statement = match.group(1).decode("utf-8")
    except UnicodeDecodeError:
        return None
    return statement, match.group(2).decode("ascii"), query[match.end() :]


def split_params(params: list[tuple[str, str]]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """URL parameters → (protocol parameters, query parameters, settings)."""
    protocol: dict[str, str] = {}
    query_params: dict[str, str] = {}
    settings: dict[str, str] = {}
    for name, value in params:
        if name.startswith("param_"):
            query_params[name[len("param_") :]] = value
        elif name in NOT_SETTINGS:
            protocol[name] = value
        else:
            settings[name] = value
    return protocol, query_params, settings


class RequestRefused(QueryError):
    """A request the front cannot read (framing, encoding, size): a 4xx, then the connection closes."""

    def __init__(self, status: HTTPStatus, message: str, code: int) -> None:
        super().__init__(f"Code: {code}. DB::Exception: {message}", code)
        self.status = status


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "cheetah-warehouse"
    server: "_Server"

    def setup(self) -> None:
        # A client that stops sending mid-request (or idles on a kept-alive connection) is
        # dropped after this many seconds instead of holding a thread forever.
        self.timeout = self.server.read_timeout_s
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # the CLI's stdout carries READY only; requests are not logged

    # A request line without an HTTP/1.x version: the stdlib would take "GET /path" (or
    # "POST / HTTP/0.9") as HTTP/0.9 and answer with a bare body (no status line, no headers), and
    # refuse other unreadable lines with a bare HTML page, so a client could not tell an answer
    # from a refusal (found by the fuzz soak, scripts/fuzz_targets.txt "warehouse-http").
    # Refusals carry a status line.
    default_request_version = "HTTP/1.0"

    def parse_request(self) -> bool:
        if not super().parse_request():
            return False
        if len(self.requestline.split()) != 3 or self.request_version not in ("HTTP/1.0", "HTTP/1.1"):
            self.send_error(
                HTTPStatus.BAD_REQUEST, f"request line {self.requestline[:64]!r} is not HTTP/1.0 or HTTP/1.1 (HTTP/0.9 is not supported)"
            )
            return False
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's own refusals (request line, headers, method) in ClickHouse's form."""
        status = HTTPStatus(code)
        self.close_connection = True
        if self.request_version not in ("HTTP/1.0", "HTTP/1.1"):
            # The stdlib may have read "HTTP/0.9" from a line it then refuses (the soak's third
            # finding: "POST /x HTTP/1.1\rHTTP/0.9"): the refusal still gets a status line.
            self.request_version = "HTTP/1.0"
        self._send_error(RequestRefused(status, f"{message or status.phrase}. (BAD_ARGUMENTS)", 36), status=status)

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        try:
            body = self._read_body()
            self._answer(body)
        except RequestRefused as exc:
            self.close_connection = True  # the rest of the stream cannot be trusted to be a request
            self._send_error(exc, status=exc.status)
            self._linger()
        except Exception as exc:  # noqa: BLE001 - a request must get an answer, never a dropped connection
            self._send_error(QueryError(f"Code: 1001. DB::Exception: {type(exc).__name__}: {exc}. (STD_EXCEPTION)", 1001))

    def _linger(self, max_bytes: int = 1 << 20) -> None:
        """Half-close, then discard what the client is still sending (briefly): closing a socket
        with unread input sends a reset, which can destroy the refusal before the client reads it."""
        try:
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(min(1.0, self.server.read_timeout_s))
            drained = 0
            while drained < max_bytes:
                piece = self.connection.recv(65536)
                if not piece:
                    break
                drained += len(piece)
        except OSError:
            pass

    def _read_body(self) -> bytes:
        """The request body, de-chunked and decompressed, or RequestRefused naming what is wrong."""
        limit = self.server.max_body_bytes
        transfer = self.headers.get("Transfer-Encoding")
        length_header = self.headers.get_all("Content-Length") or []
        if transfer is not None:
            if transfer.strip().lower() != "chunked":
                raise RequestRefused(HTTPStatus.BAD_REQUEST, f"Transfer-Encoding {transfer!r} is not supported (chunked is). (BAD_ARGUMENTS)", 36)
            if length_header:
                raise RequestRefused(HTTPStatus.BAD_REQUEST, "both Content-Length and Transfer-Encoding: chunked; send one. (BAD_ARGUMENTS)", 36)
            raw = self._read_chunked(limit)
        elif length_header:
            raw = self._read_exactly(self._content_length(length_header, limit), "Content-Length")
        else:
            raw = b""
        encoding = self.headers.get("Content-Encoding", "").lower().strip()
        if encoding in ("", "identity"):
            return raw
        if encoding in ("gzip", "deflate"):
            return _decompress(raw, limit)
        raise RequestRefused(
            HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
            f"Content-Encoding '{encoding}' is not supported by the embedded warehouse "
            "(gzip and deflate are); disable client compression, e.g. clickhouse-connect compress=False. "
            "(UNKNOWN_CODEC)",
            432,
        )

    @staticmethod
    def _content_length(values: list[str], limit: int) -> int:
        # Only HTTP's own blanks around the number: str.strip() also drops \x1c-\x1f, which int()
        # then refused as a 500 (the soak's fourth finding, Content-Length "\x1e0").
        texts = {v.strip(" \t") for v in values}
        text = values[0].strip(" \t")
        if len(texts) != 1 or not text.isascii() or not text.isdigit():
            shown = ", ".join(repr(v) for v in values)
            raise RequestRefused(HTTPStatus.BAD_REQUEST, f"Content-Length {shown} is not one non-negative decimal number. (BAD_ARGUMENTS)", 36)
        length = int(text)
        if length > limit:
            raise RequestRefused(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                f"request body of {length} bytes exceeds the front's limit of {limit} bytes; "
                "insert in smaller batches. (TOO_MANY_BYTES)",
                307,
            )
        return length

    def _read_exactly(self, length: int, what: str) -> bytes:
        """``length`` bytes, read in pieces (a lying Content-Length allocates nothing up front)."""
        pieces: list[bytes] = []
        got = 0
        try:
            while got < length:
                piece = self.rfile.read1(min(length - got, 1 << 20))  # what has arrived, at most one wait
                if not piece:
                    break
                pieces.append(piece)
                got += len(piece)
        except TimeoutError:
            raise RequestRefused(
                HTTPStatus.REQUEST_TIMEOUT,
                f"the request body stopped after {got} of the {length} bytes its {what} announced "
                f"(nothing for {self.server.read_timeout_s:g} s). (SOCKET_TIMEOUT)",
                209,
            ) from None
        if got < length:
            raise RequestRefused(
                HTTPStatus.BAD_REQUEST,
                f"the request body ended after {got} of the {length} bytes its {what} announced. (CANNOT_READ_ALL_DATA)",
                33,
            )
        return b"".join(pieces)

    def _read_line(self) -> bytes:
        try:
            line = self.rfile.readline(1024)
        except TimeoutError:
            raise RequestRefused(
                HTTPStatus.REQUEST_TIMEOUT,
                f"the chunked request body stopped (nothing for {self.server.read_timeout_s:g} s). (SOCKET_TIMEOUT)",
                209,
            ) from None
        if not line.endswith(b"\n"):
            problem = "ended" if len(line) < 1024 else "has a line longer than 1024 bytes"
            raise RequestRefused(HTTPStatus.BAD_REQUEST, f"the chunked request body {problem} before its last chunk. (CANNOT_READ_ALL_DATA)", 33)
        return line

    def _read_chunked(self, limit: int) -> bytes:
        chunks: list[bytes] = []
        total = 0
        while True:
            line = self._read_line()
            size_text = line.split(b";", 1)[0].strip()
            if not size_text or len(size_text) > 16 or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
                raise RequestRefused(
                    HTTPStatus.BAD_REQUEST,
                    f"chunk size {size_text[:32]!r} is not a hexadecimal number. (BAD_ARGUMENTS)",
                    36,
                )
            size = int(size_text, 16)
            if size == 0:
                while self._read_line().strip():
                    pass  # trailers
                return b"".join(chunks)
            total += size
            if total > limit:
                raise RequestRefused(
                    HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                    f"chunked request body exceeds the front's limit of {limit} bytes; insert in smaller batches. (TOO_MANY_BYTES)",
                    307,
                )
            chunks.append(self._read_exactly(size, "chunk size"))
            if self._read_line().strip():
                raise RequestRefused(HTTPStatus.BAD_REQUEST, f"chunk of {size} bytes is longer than its size line says. (BAD_ARGUMENTS)", 36)

    def _answer(self, body: bytes) -> None:
        try:
            # The request line arrives as latin-1 text: back to its bytes, which must be UTF-8, and
            # percent-escapes must decode to UTF-8 too (no silent U+FFFD in a query).
            target = self.path.encode("latin-1").decode("utf-8")
            url = urllib.parse.urlsplit(target)
            params = urllib.parse.parse_qsl(url.query, keep_blank_values=True, errors="strict")
        except UnicodeError as exc:
            raise RequestRefused(HTTPStatus.BAD_REQUEST, f"the URL is not valid UTF-8 ({exc}); percent-encode UTF-8 text. (BAD_ARGUMENTS)", 36) from None
        protocol, query_params, settings = split_params(params)
        query = compose_query(protocol.get("query", "").encode("utf-8"), body)
        if url.path in ("/ping",) or (url.path == "/" and not query.strip()):
            self._send(HTTPStatus.OK, b"Ok.\n", {"Content-Type": "text/html; charset=UTF-8"})
            return
        if url.path != "/":
            self._send_error(
                QueryError(f"Code: 1000. DB::Exception: No handler for path {url.path}; use / or /ping.", 1000),
                status=HTTPStatus.NOT_FOUND,
            )
            return
        fmt = protocol.get("default_format") or DEFAULT_FORMAT
        query_id = protocol.get("query_id") or str(uuid.uuid4())
        database = protocol.get("database")
        engine = self.server.engine
        insert = split_insert(query)
        try:
            user = authenticate(self.server.users, *self._credentials(protocol))
        except QueryError as exc:
            self._send_error(exc, query_id=query_id, status=HTTPStatus.FORBIDDEN)
            return
        session = user.name if user.restricted else None
        try:
            if insert is not None and session is not None:
                raise QueryError(f"Code: 164. DB::Exception: {user.name}: Cannot execute query in readonly mode. (READONLY)", 164)
            if insert is not None:
                statement, data_format, data = insert
                result = engine.insert(statement, data_format, data, settings=settings, database=database)
                actual_format = fmt
            else:
                try:
                    sql = query.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise RequestRefused(HTTPStatus.BAD_REQUEST, f"The query is not valid UTF-8 ({exc}). (BAD_ARGUMENTS)", 36) from None
                result = engine.query(sql, fmt, params=query_params, settings=settings, database=database, session=session)
                match = _TRAILING_FORMAT.search(sql)
                actual_format = match.group(1) if match else fmt
        except RequestRefused:
            raise
        except QueryError as exc:
            self._send_error(exc, query_id=query_id)
            return
        except WarehouseError as exc:
            self._send_error(QueryError.from_engine_text(str(exc)), query_id=query_id)
            return
        self._send(
            HTTPStatus.OK,
            result.data,
            {
                "Content-Type": content_type_for(actual_format),
                "X-ClickHouse-Format": actual_format,
                "X-ClickHouse-Query-Id": query_id,
                "X-ClickHouse-Timezone": self.server.timezone,
                "X-ClickHouse-Summary": _summary(result),
            },
        )

    def _credentials(self, protocol: dict[str, str]) -> tuple[str, str]:
        """(user, password) as ClickHouse takes them: basic auth, X-ClickHouse-* headers, or parameters."""
        header = self.headers.get("Authorization", "")
        if header.lower().startswith("basic "):
            try:
                user, _, password = base64.b64decode(header[6:].strip()).decode("utf-8").partition(":")
                return user, password
            except (ValueError, UnicodeDecodeError):
                return "?", ""
        user = self.headers.get("X-ClickHouse-User") or protocol.get("user") or DEFAULT_USER
        password = self.headers.get("X-ClickHouse-Key") or protocol.get("password") or ""
        return user, password

    def _send_error(self, exc: QueryError, query_id: str = "", status: HTTPStatus = HTTPStatus.INTERNAL_SERVER_ERROR) -> None:
        headers = {
            "Content-Type": "text/plain; charset=UTF-8",
            "X-ClickHouse-Exception-Code": str(exc.code),
        }
        if query_id:
            headers["X-ClickHouse-Query-Id"] = query_id
        if self.close_connection:
            headers["Connection"] = "close"
        self._send(status, (exc.text.rstrip("\n") + "\n").encode("utf-8"), headers)

    def _send(self, status: HTTPStatus, payload: bytes, headers: dict[str, str]) -> None:
        try:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True  # the client left (or stopped reading): nobody to answer


def _decompress(raw: bytes, limit: int) -> bytes:
    """A gzip or zlib body (auto-detected), whole and within ``limit`` bytes once inflated."""
    inflater = zlib.decompressobj(wbits=47)  # 47: auto-detect gzip or zlib header
    try:
        data = inflater.decompress(raw, limit + 1)
    except zlib.error as exc:
        raise RequestRefused(HTTPStatus.BAD_REQUEST, f"Cannot decompress request body: {exc}. (ZLIB_INFLATE_FAILED)", 354) from None
    if len(data) > limit:
        raise RequestRefused(
            HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
            f"request body inflates to more than the front's limit of {limit} bytes. (TOO_MANY_BYTES)",
            307,
        )
    if not inflater.eof:
        raise RequestRefused(HTTPStatus.BAD_REQUEST, "Cannot decompress request body: the compressed stream is truncated. (ZLIB_INFLATE_FAILED)", 354)
    if inflater.unused_data:
        raise RequestRefused(
            HTTPStatus.BAD_REQUEST,
            f"Cannot decompress request body: {len(inflater.unused_data)} bytes follow the compressed stream. (ZLIB_INFLATE_FAILED)",
            354,
        )
    return data


def _summary(result: QueryResult) -> str:
    return json.dumps(
        {
            "read_rows": str(result.rows_read),
            "read_bytes": str(result.bytes_read),
            "written_rows": str(result.rows_written),
            "written_bytes": str(result.bytes_written),
            "total_rows_to_read": str(result.rows_read),
            "result_bytes": str(len(result.data)),
            "elapsed_ns": str(int(result.elapsed_s * 1e9)),
        },
        separators=(",", ":"),
    )


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self, port: int, engine: EmbeddedEngine, timezone: str, users: dict[str, User], read_timeout_s: float, max_body_bytes: int
    ) -> None:
        self.engine = engine
        self.timezone = timezone
        self.users = users
        self.read_timeout_s = read_timeout_s
        self.max_body_bytes = max_body_bytes
        super().__init__(("127.0.0.1", port), _Handler)


class HttpFront:
    """Serves an open EmbeddedEngine on 127.0.0.1:port (0 picks a free port)."""

    def __init__(
        self,
        engine: EmbeddedEngine,
        port: int,
        users: dict[str, User] | None = None,
        read_timeout_s: float = READ_TIMEOUT_S,
        max_body_bytes: int = MAX_BODY_BYTES,
    ) -> None:
        self._engine = engine
        self._requested_port = port
        self._users = users or {DEFAULT_USER: User(DEFAULT_USER)}
        self._read_timeout_s = read_timeout_s
        self._max_body_bytes = max_body_bytes
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise WarehouseError("the HTTP front is not started")
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> "HttpFront":
        timezone = self._engine.query("SELECT timezone()").data.decode().strip() or "UTC"
        for user in self._users.values():
            if user.restricted:
                self._engine.add_session(user.name, user.settings)
        try:
            self._server = _Server(
                self._requested_port, self._engine, timezone, self._users, self._read_timeout_s, self._max_body_bytes
            )
        except OSError as exc:
            raise WarehouseError(
                f"cannot listen on 127.0.0.1:{self._requested_port}: {exc.strerror}; "
                "pick another --http-port (0 chooses a free one)"
            ) from None
        self._thread = threading.Thread(target=self._server.serve_forever, name="http-front", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join()
            self._thread = None
