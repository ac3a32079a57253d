"""The dashboards' read-only user (clickhouse/users.d/cheetah-dashboards.xml) over real HTTP."""

from __future__ import annotations

import base64
import gzip
import time
from pathlib import Path
from typing import Iterator

import pytest

from cheetah_warehouse import DEFAULT_USERS_DIR
from cheetah_warehouse.errors import WarehouseError
from cheetah_warehouse.users import load_users
from tests.warehouse_process import Warehouse, http, sql, start_warehouse

PASSWORD = "cheetah-dashboards"  # the documented default of the users.d file


def as_dashboards(password: str = PASSWORD) -> dict[str, str]:
    token = base64.b64encode(f"dashboards:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


def test_dashboards_user_reads_with_its_profile_settings(served: Warehouse) -> None:
    sql(served.url, "CREATE TABLE IF NOT EXISTS ro_probe (n UInt8) ENGINE = MergeTree ORDER BY n")
    sql(served.url, "INSERT INTO ro_probe VALUES (1), (2)")
    response = http(served.url, body="SELECT sum(n), getSetting('readonly'), getSetting('prefer_column_name_to_alias') FROM ro_probe", headers=as_dashboards())
    assert (response.status, response.text) == (200, "3\t1\ttrue\n")
    # The same user through ClickHouse's header and parameter forms.
    by_header = http(served.url, query="SELECT 1", headers={"X-ClickHouse-User": "dashboards", "X-ClickHouse-Key": PASSWORD})
    by_params = http(served.url, query="SELECT 1", params={"user": "dashboards", "password": PASSWORD})
    assert (by_header.text, by_params.text) == ("1\n", "1\n")
    # The admin session is untouched by the restricted one.
    assert sql(served.url, "SELECT getSetting('readonly')") == "0\n"


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO ro_probe VALUES (3)",
        "DROP TABLE ro_probe",
        "CREATE TABLE ro_other (n UInt8) ENGINE = Memory",
        "ALTER TABLE ro_probe DELETE WHERE 1",
        "SELECT * FROM file('/etc/passwd', 'LineAsString')",
        "SET readonly = 0",
        "SELECT * FROM ro_probe SETTINGS readonly = 0",
        "INSERT INTO FUNCTION file('/tmp/cheetah-readonly-probe.tsv', 'TSV', 'n UInt8') VALUES (1)",  # absolute: a regression must not write into schemas/
    ],
)
def test_dashboards_user_cannot_write_or_read_files(served: Warehouse, statement: str) -> None:
    sql(served.url, "CREATE TABLE IF NOT EXISTS ro_probe (n UInt8) ENGINE = MergeTree ORDER BY n")
    response = http(served.url, body=statement, headers=as_dashboards())
    assert response.status != 200
    assert "READONLY" in response.text or "readonly" in response.text, response.text
    assert sql(served.url, "EXISTS TABLE ro_probe") == "1\n"


def test_changing_a_setting_is_refused_but_repeating_the_profile_value_is_not(served: Warehouse) -> None:
    same = http(served.url, query="SELECT 1", params={"prefer_column_name_to_alias": "1"}, headers=as_dashboards())
    assert (same.status, same.text) == (200, "1\n")
    other = http(served.url, query="SELECT 1", params={"max_threads": "1"}, headers=as_dashboards())
    assert other.status == 500 and "Cannot modify 'max_threads' setting in readonly mode" in other.text


def test_wrong_password_or_unknown_user_is_refused(served: Warehouse) -> None:
    for headers in (as_dashboards("wrong"), {"X-ClickHouse-User": "nobody"}):
        response = http(served.url, query="SELECT 1", headers=headers)
        assert response.status == 403
        assert response.headers["X-ClickHouse-Exception-Code"] == "516"


def test_users_files_are_checked(tmp_path: Path) -> None:
    users = load_users(sorted(DEFAULT_USERS_DIR.glob("*.xml")))
    assert list(users["dashboards"].settings)[-1] == "readonly"  # readonly is applied last
    assert users["dashboards"].accepts(PASSWORD) and not users["dashboards"].accepts("")
    broken = tmp_path / "broken.xml"
    broken.write_text("<clickhouse><users><x><profile>missing</profile><password_sha256_hex>" + "0" * 64 + "</password_sha256_hex></x></users></clickhouse>")
    with pytest.raises(WarehouseError, match="names profile 'missing'"):
        load_users([broken])
    broken.write_text("<clickhouse><users")
    with pytest.raises(WarehouseError, match="cannot read users file"):
        load_users([broken])


# INSERT ... FORMAT with the data in the body takes the front's own insert path (split_insert,
# engine.insert on the admin connection), not the restricted session: each form must be refused
# there, and no row may arrive.
INSERTS_WITH_DATA = {
    "query_parameter_then_body": ({"query": "INSERT INTO ro_inserts FORMAT TabSeparated"}, b"5\n", {}),
    "all_in_the_body": ({}, b"INSERT INTO ro_inserts FORMAT TabSeparated\n5\n", {}),
    "lower_case_csv": ({}, b"insert into ro_inserts format CSV 5\n", {}),
    "binary_rowbinary": ({"query": "INSERT INTO ro_inserts (n) FORMAT RowBinary"}, b"\x05", {}),
    "gzip_body": ({}, gzip.compress(b"INSERT INTO ro_inserts FORMAT JSONEachRow\n{\"n\": 5}\n"), {"Content-Encoding": "gzip"}),
    "table_function_file": ({}, b"INSERT INTO FUNCTION file('{out}', 'TSV', 'n UInt8') FORMAT TSV\n5\n", {}),
    "other_database": ({"query": "INSERT INTO default.ro_inserts FORMAT TSV", "database": "system"}, b"5\n", {}),
}


@pytest.mark.parametrize("form", INSERTS_WITH_DATA)
def test_dashboards_user_cannot_insert_data_sent_in_the_body(served: Warehouse, form: str, tmp_path: Path) -> None:
    sql(served.url, "CREATE TABLE IF NOT EXISTS ro_inserts (n UInt8) ENGINE = MergeTree ORDER BY n")
    params, body, headers = INSERTS_WITH_DATA[form]
    out = tmp_path / "ro_out.tsv"
    body = body.replace(b"{out}", str(out).encode())
    before = sql(served.url, "SELECT count() FROM ro_inserts")
    response = http(served.url, body=body, params=params, headers={**as_dashboards(), **headers})
    assert (response.status, response.headers.get("X-ClickHouse-Exception-Code")) == (500, "164"), response.text
    assert "Cannot execute query in readonly mode. (READONLY)" in response.text, response.text
    assert sql(served.url, "SELECT count() FROM ro_inserts") == before
    assert not out.exists()
    if form != "table_function_file":
        # The same request as the admin goes in: the refusal is about the user, not the form.
        admin = http(served.url, body=body, params=params, headers=headers)
        assert admin.status == 200, admin.text
        assert int(sql(served.url, "SELECT count() FROM ro_inserts")) == int(before) + 1


@pytest.mark.parametrize(
    "function",
    [
        "url('http://127.0.0.1:9/rows.tsv', 'TSV', 'a String')",
        "remote('127.0.0.1:9000', system.one)",
        "remoteSecure('127.0.0.1:9440', system.one)",
        "s3('http://127.0.0.1:9/cheetah-bucket/rows.csv', 'CSV', 'a String')",
        "file('/etc/hostname', 'LineAsString')",
        "executable('date', 'TSV', 'a String')",
    ],
)
def test_dashboards_user_cannot_reach_out_through_table_functions(served: Warehouse, function: str) -> None:
    """Port 9 is closed: were the function allowed, the error would be a connection error, not READONLY."""
    response = http(served.url, body=f"SELECT * FROM {function}", headers=as_dashboards())
    assert (response.status, response.headers.get("X-ClickHouse-Exception-Code")) == (500, "164"), response.text
    assert "Cannot execute query in readonly mode. (READONLY)" in response.text, response.text


DASHBOARDS_FILE = DEFAULT_USERS_DIR / "cheetah-dashboards.xml"
MAX_RESULT_ROWS = 1_000_000  # as the file sets them, written out here on purpose
MAX_RESULT_BYTES = 1_000_000_000
MAX_MEMORY_USAGE = 4_000_000_000


def test_dashboards_profile_limits_are_in_force(served: Warehouse) -> None:
    settings = "max_execution_time, max_result_rows, max_result_bytes, result_overflow_mode, timeout_overflow_mode, max_memory_usage"
    query = "SELECT " + ", ".join(f"getSetting('{name}')" for name in settings.split(", "))
    response = http(served.url, body=query, headers=as_dashboards())
    want = f"60\t{MAX_RESULT_ROWS}\t{MAX_RESULT_BYTES}\tthrow\tthrow\t{MAX_MEMORY_USAGE}\n"
    assert (response.status, response.text) == (200, want), response.text
    # The admin (and so the consumers' inserts, on its connection) has none of them.
    admin = sql(served.url, "SELECT " + ", ".join(f"getSetting('{name}')" for name in ("max_execution_time", "max_result_rows", "max_memory_usage")))
    assert admin == "0\t0\t0\n", admin


def test_more_rows_than_the_profile_allows_is_an_error_not_a_cut(served: Warehouse) -> None:
    at_limit = http(served.url, body=f"SELECT number FROM numbers({MAX_RESULT_ROWS})", headers=as_dashboards())
    assert at_limit.status == 200 and at_limit.body.count(b"\n") == MAX_RESULT_ROWS, at_limit.text[-200:]
    over = http(served.url, body=f"SELECT number FROM numbers({MAX_RESULT_ROWS + 1})", headers=as_dashboards())
    assert (over.status, over.headers.get("X-ClickHouse-Exception-Code")) == (500, "396"), (over.body.count(b"\n"), "rows:", over.text[:300])
    assert "Limit for result exceeded, max rows: 1.00 million" in over.text, over.text[:300]


TIGHT_MEMORY = 20_000_000


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warehouse]:
    """A warehouse whose users.d is the dashboards file with a 1 s, 10-row, 1,000-byte and 20 MB
    limit: the same profile, small enough numbers to exceed in a test (60 s of query is too long
    to wait for, 4 GB too much to allocate)."""
    users = tmp_path_factory.mktemp("users.d")
    text = DASHBOARDS_FILE.read_text(encoding="utf-8")
    for old, new in (
        ("<max_execution_time>60<", "<max_execution_time>1<"),
        (f"<max_result_rows>{MAX_RESULT_ROWS}<", "<max_result_rows>10<"),
        (f"<max_result_bytes>{MAX_RESULT_BYTES}<", "<max_result_bytes>1000<"),
        (f"<max_memory_usage>{MAX_MEMORY_USAGE}<", f"<max_memory_usage>{TIGHT_MEMORY}<"),
    ):
        assert old in text, f"{DASHBOARDS_FILE} no longer has {old}: update this test"
        text = text.replace(old, new)
    (users / "cheetah-dashboards.xml").write_text(text, encoding="utf-8")
    warehouse = start_warehouse(tmp_path_factory.mktemp("tight") / "data", extra_args=("--users", str(users)))
    try:
        yield warehouse
    finally:
        warehouse.stop()


def test_a_query_over_the_time_limit_is_stopped_with_an_error(tight: Warehouse) -> None:
    started = time.monotonic()
    response = http(tight.url, body="SELECT sleepEachRow(0.5) FROM numbers(6)", headers=as_dashboards())  # 3 s of work
    elapsed = time.monotonic() - started
    assert (response.status, response.headers.get("X-ClickHouse-Exception-Code")) == (500, "159"), response.text
    assert "Timeout exceeded" in response.text and "maximum: 1000.000 ms. (TIMEOUT_EXCEEDED)" in response.text, response.text
    # Stopped at the limit, not run to its end: 3 s of sleeping would take >= 3 s on any machine.
    assert elapsed < 2.9, elapsed
    assert http(tight.url, body="SELECT 1", headers=as_dashboards()).text == "1\n"


def test_the_row_limit_follows_the_file(tight: Warehouse) -> None:
    assert http(tight.url, body="SELECT number FROM numbers(10)", headers=as_dashboards()).text == "".join(f"{i}\n" for i in range(10))
    over = http(tight.url, body="SELECT number FROM numbers(11)", headers=as_dashboards())
    assert over.status == 500 and "Limit for result exceeded, max rows: 10.00, current rows: 11.00. (TOO_MANY_ROWS_OR_BYTES)" in over.text
    assert http(tight.url, body="SELECT number FROM numbers(11)").status == 200  # the admin has no such limit


def test_the_byte_limit_follows_the_file(tight: Warehouse) -> None:
    # 3 rows of 20 characters are ~100 bytes in memory, under the 1,000 of the tight file; 10 rows
    # (its row limit) of 500 characters are over 5,000 (ClickHouse counts the blocks' bytes).
    fits = http(tight.url, body="SELECT leftPad(toString(number), 20, 'x') FROM numbers(3)", headers=as_dashboards())
    assert (fits.status, fits.text) == (200, "".join("x" * 19 + f"{i}\n" for i in range(3))), fits.text[:300]
    over = http(tight.url, body="SELECT leftPad(toString(number), 500, 'x') FROM numbers(10)", headers=as_dashboards())
    assert (over.status, over.headers.get("X-ClickHouse-Exception-Code")) == (500, "396"), over.text[:300]
    assert "Limit for result exceeded, max bytes: 1000.00 B" in over.text, over.text[:300]
    assert http(tight.url, body="SELECT leftPad(toString(number), 500, 'x') FROM numbers(10)").status == 200  # the admin: no limit


def test_a_query_over_the_memory_limit_fails_with_memory_limit_exceeded(tight: Warehouse) -> None:
    # groupArray of 10 M UInt64 holds 80 MB at once, 4x the 20 MB of the tight file; 100 k hold 0.8 MB.
    under = http(tight.url, body="SELECT length(groupArray(number)) FROM numbers(100000)", headers=as_dashboards())
    assert (under.status, under.text) == (200, "100000\n"), under.text
    over = http(tight.url, body="SELECT length(groupArray(number)) FROM numbers(10000000)", headers=as_dashboards())
    assert (over.status, over.headers.get("X-ClickHouse-Exception-Code")) == (500, "241"), over.text[:300]
    assert "memory limit exceeded" in over.text and "maximum: 19.07 MiB" in over.text and "(MEMORY_LIMIT_EXCEEDED)" in over.text, over.text[:300]
    # The admin has no such limit, and the session is still usable.
    assert sql(tight.url, "SELECT length(groupArray(number)) FROM numbers(10000000)") == "10000000\n"
    assert http(tight.url, body="SELECT 1", headers=as_dashboards()).text == "1\n"
