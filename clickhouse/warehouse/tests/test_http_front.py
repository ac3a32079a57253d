"""The ClickHouse HTTP protocol as the embedded front answers it, over real HTTP."""

from __future__ import annotations

import gzip
import http.client as http_client
import json
import urllib.parse

import struct

from cheetah_warehouse.http_front import compose_query, split_insert, split_params
from tests.warehouse_process import Warehouse, http, run_cli, sql


def test_ping_and_root_answer_ok(served: Warehouse) -> None:
    for path in ("/ping", "/"):
        response = http(served.url, path=path)
        assert (response.status, response.text) == (200, "Ok.\n")


def test_query_from_url_parameter_with_get(served: Warehouse) -> None:
    response = http(served.url, query="SELECT 40 + 2")
    assert (response.status, response.text) == (200, "42\n")


def test_query_parameter_then_body_are_concatenated(served: Warehouse) -> None:
    response = http(served.url, query="SELECT number FROM numbers(4)", body="WHERE number % 2 = 1 ORDER BY number")
    assert (response.status, response.text) == (200, "1\n3\n")


def test_default_format_is_tab_separated(served: Warehouse) -> None:
    response = http(served.url, body="SELECT 'a' AS x, 2 AS y")
    assert response.text == "a\t2\n"
    assert response.headers["X-ClickHouse-Format"] == "TabSeparated"


def test_default_format_parameter(served: Warehouse) -> None:
    response = http(served.url, body="SELECT 'a' AS x, 2 AS y", params={"default_format": "JSONEachRow"})
    assert json.loads(response.text) == {"x": "a", "y": 2}
    assert response.headers["X-ClickHouse-Format"] == "JSONEachRow"


def test_format_clause_wins_over_default_format(served: Warehouse) -> None:
    response = http(served.url, body="SELECT 1 AS x FORMAT CSVWithNames", params={"default_format": "JSONEachRow"})
    assert response.text == '"x"\n1\n'
    assert response.headers["X-ClickHouse-Format"] == "CSVWithNames"


def test_database_parameter_applies_to_that_query_only(served: Warehouse) -> None:
    sql(served.url, "CREATE DATABASE IF NOT EXISTS planners")
    sql(served.url, "CREATE TABLE IF NOT EXISTS planners.sites (name String) ENGINE = MergeTree ORDER BY name")
    sql(served.url, "INSERT INTO planners.sites VALUES ('lab-a')")
    scoped = http(served.url, body="SELECT currentDatabase(), name FROM sites", params={"database": "planners"})
    assert (scoped.status, scoped.text) == (200, "planners\tlab-a\n")
    assert sql(served.url, "SELECT currentDatabase()") == "default\n"


def test_other_url_parameters_are_settings_for_that_query_only(served: Warehouse) -> None:
    scoped = http(served.url, body="SELECT getSetting('max_threads')", params={"max_threads": "1"})
    assert scoped.text == "1\n"
    assert sql(served.url, "SELECT getSetting('max_threads')") != "1\n"


def test_client_parameters_are_not_settings(served: Warehouse) -> None:
    params = {
        "user": "default", "password": "", "session_id": "s1", "compress": "1", "wait_end_of_query": "1",
        "query_id": "q-123", "client_protocol_version": "54460", "database": "default",
    }
    response = http(served.url, body="SELECT 7", params=params)
    assert (response.status, response.text) == (200, "7\n")
    assert response.headers["X-ClickHouse-Query-Id"] == "q-123"


def test_unknown_setting_is_refused_like_clickhouse(served: Warehouse) -> None:
    response = http(served.url, body="SELECT 1", params={"no_such_setting_here": "1"})
    assert response.status == 500
    assert response.text.startswith("Code: 115. DB::Exception:"), response.text
    assert response.headers["X-ClickHouse-Exception-Code"] == "115"


def test_query_parameters(served: Warehouse) -> None:
    response = http(served.url, body="SELECT {n:UInt8} + 1, {names:Array(String)}", params={"param_n": "5", "param_names": "['a','b']"})
    assert response.text == "6\t['a','b']\n"


def test_errors_are_500_with_clickhouse_exception_text(served: Warehouse) -> None:
    syntax = http(served.url, body="SELEC 1")
    assert syntax.status == 500
    assert syntax.text.startswith("Code: 62. DB::Exception: Syntax error"), syntax.text
    assert syntax.headers["X-ClickHouse-Exception-Code"] == "62"
    missing = http(served.url, query="SELECT * FROM no_such_table")
    assert missing.status == 500
    assert missing.text.startswith("Code: 60. DB::Exception:"), missing.text


def test_insert_data_in_body_and_summary_header(served: Warehouse) -> None:
    sql(served.url, "CREATE TABLE IF NOT EXISTS inserts (a UInt32, b String) ENGINE = MergeTree ORDER BY a")
    response = http(served.url, query="INSERT INTO inserts FORMAT TabSeparated", body="1\tx\n2\ty\n")
    assert response.status == 200, response.text
    assert json.loads(response.headers["X-ClickHouse-Summary"])["written_rows"] == "2"
    assert sql(served.url, "SELECT sum(a), groupArray(b) FROM (SELECT * FROM inserts ORDER BY a)") == "3\t['x','y']\n"


def test_binary_insert_data_passes_untouched(served: Warehouse) -> None:
    sql(served.url, "CREATE TABLE IF NOT EXISTS binary_rows (a UInt32, b String) ENGINE = MergeTree ORDER BY a")
    payload = b"\xff\x00\xfe"
    row_binary = struct.pack("<I", 7) + bytes([len(payload)]) + payload
    response = http(served.url, query="INSERT INTO binary_rows (a, b) FORMAT RowBinary", body=row_binary)
    assert response.status == 200, response.text
    assert json.loads(response.headers["X-ClickHouse-Summary"])["written_rows"] == "1"
    assert sql(served.url, "SELECT a, hex(b) FROM binary_rows") == "7\tFF00FE\n"


def test_gzip_request_body(served: Warehouse) -> None:
    response = http(served.url, body=gzip.compress(b"SELECT 'zipped'"), headers={"Content-Encoding": "gzip"})
    assert (response.status, response.text) == (200, "zipped\n")


def test_unsupported_request_encoding_names_the_fix(served: Warehouse) -> None:
    response = http(served.url, body=b"\x00\x01", headers={"Content-Encoding": "lz4"})
    assert response.status == 415  # Unsupported Media Type: the request, not the query, is at fault
    assert "Content-Encoding 'lz4' is not supported" in response.text


def test_chunked_request_body_on_a_kept_alive_connection(served: Warehouse) -> None:
    address = urllib.parse.urlsplit(served.url)
    connection = http_client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=30)
    try:
        connection.request("POST", "/?default_format=CSV", body=iter([b"SELECT 1, ", b"'chunked'"]), encode_chunked=True)
        first = connection.getresponse()
        assert (first.status, first.read()) == (200, b'1,"chunked"\n')
        connection.request("GET", "/ping")  # same connection: HTTP/1.1 keep-alive
        second = connection.getresponse()
        assert (second.status, second.read()) == (200, b"Ok.\n")
    finally:
        connection.close()


def test_listens_on_loopback_only(served: Warehouse) -> None:
    port = urllib.parse.urlsplit(served.url).port
    assert port is not None
    listening = [
        line.split()[1] for line in open("/proc/net/tcp", encoding="ascii").read().splitlines()[1:]
        if line.split()[3] == "0A"  # LISTEN
    ]
    ours = [address for address in listening if int(address.split(":")[1], 16) == port]
    assert ours == ["0100007F:%04X" % port]  # 127.0.0.1, not 0.0.0.0
    # ... and nothing can make it listen elsewhere: `default` (the admin, no password) is safe
    # only because of it (docs/DEPLOY.md, "Security").
    usage = run_cli("serve", "--help").stdout
    assert "--http-port" in usage and not any(flag in usage for flag in ("--host", "--bind", "--listen", "--address"))


def test_compose_and_split_follow_clickhouse_rules() -> None:
    assert compose_query(b"INSERT INTO t FORMAT TSV", b"1\n") == b"INSERT INTO t FORMAT TSV\n1\n"
    assert compose_query(b"", b"SELECT 1") == b"SELECT 1"
    assert compose_query(b"SELECT 1", b"") == b"SELECT 1"
    assert split_insert(b"INSERT INTO t (a, b) FORMAT RowBinary\n\xff\x00") == ("INSERT INTO t (a, b)", "RowBinary", b"\xff\x00")
    assert split_insert(b"insert into db.t format CSV 1,2\n") == ("insert into db.t", "CSV", b"1,2\n")
    assert split_insert(b"INSERT INTO t VALUES (1)") is None
    assert split_insert(b"SELECT 1 FORMAT CSV") is None
    protocol, query_params, settings = split_params(
        [("query", "q"), ("param_x", "1"), ("max_threads", "2"), ("user", "u"), ("readonly", "1")]
    )
    assert protocol == {"query": "q", "user": "u", "readonly": "1"}
    assert query_params == {"x": "1"}
    assert settings == {"max_threads": "2"}
