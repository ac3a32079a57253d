"""The dashboards' read-only user (clickhouse/users.d/cheetah-dashboards.xml) over real HTTP."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from cheetah_warehouse import DEFAULT_USERS_DIR
from cheetah_warehouse.errors import WarehouseError
from cheetah_warehouse.users import load_users
from tests.warehouse_process import Warehouse, http, sql

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
