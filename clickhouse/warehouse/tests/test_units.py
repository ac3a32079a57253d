"""Pure pieces: sites, text tables, the wait loop, error text."""

from __future__ import annotations

import io
from typing import Mapping

import pytest

from cheetah_warehouse.errors import QueryError, WarehouseError
from cheetah_warehouse.sites import as_ipv6_cidr, parse_sites
from cheetah_warehouse.textable import human, render_table
from cheetah_warehouse.wait import wait_for_count


def test_ipv4_prefixes_become_ipv4_mapped_ipv6() -> None:
    assert as_ipv6_cidr("198.18.0.0/15") == "::ffff:c612:0/111"
    assert as_ipv6_cidr("198.18.1.7/24") == "::ffff:c612:100/120"  # host bits dropped
    assert as_ipv6_cidr("2001:db8::/32") == "2001:db8::/32"


def test_sites_become_parallel_arrays_in_file_order() -> None:
    sites = parse_sites('{"lab-a": ["198.18.1.0/24", "2001:db8:a::/48"], "it\'s-b": ["198.18.2.0/24"]}')
    assert sites.query_params() == {
        "site_names": "['lab-a','lab-a','it\\'s-b']",
        "site_prefixes": "['::ffff:c612:100/120','2001:db8:a::/48','::ffff:c612:200/120']",
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("not json", "is not valid JSON"),
        ("[]", "must be a non-empty JSON object"),
        ('{"a": "198.18.0.0/24"}', "site 'a' must map to a non-empty list"),
        ('{"a": ["300.1.1.0/24"]}', "site 'a' has an invalid prefix '300.1.1.0/24'"),
    ],
)
def test_bad_sites_are_explained(text: str, message: str) -> None:
    with pytest.raises(WarehouseError, match=message):
        parse_sites(text)


def test_human_units() -> None:
    assert human(999, "B") == "999 B"
    assert human(1_500_000_000, "B") == "1.50 GB"
    assert human(8e8, "b/s") == "800.00 Mb/s"
    assert human(None, "B") == "-"


def test_render_table_aligns_columns() -> None:
    text = render_table(["name", "n"], [["a", "1"], ["long-name", "100"]], [False, True], indent="")
    assert text.splitlines() == ["name         n", "---------  ---", "a            1", "long-name  100"]


class FakeClient:
    def __init__(self, answers: list[bytes | Exception]) -> None:
        self.answers = answers

    def query(self, sql: str, fmt: str = "TabSeparated", params: Mapping[str, str] | None = None) -> bytes:
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, Exception):
            raise answer
        return answer

    def describe(self) -> str:
        return "fake"


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.now += seconds


def test_wait_polls_through_an_unreachable_server_until_the_count_is_reached() -> None:
    clock, progress = FakeClock(), io.StringIO()
    client = FakeClient([WarehouseError("cannot reach"), b"1\n", b"5\n"])
    value = wait_for_count(client, "SELECT count()", 5, timeout_s=10, progress=progress, clock=clock, pause=clock.pause)
    assert value == 5
    assert clock.now == 1.0
    assert progress.getvalue().splitlines() == [
        "wait: not answering (cannot reach) after 0.0 s",
        "wait: 1/5 after 0.5 s",
        "wait: 5/5 after 1.0 s: done",
    ]


def test_wait_gives_up_at_the_deadline() -> None:
    clock = FakeClock()
    with pytest.raises(WarehouseError, match=r"timed out after 2 s: `SELECT 1` at fake is 1/3, expected at least 3"):
        wait_for_count(FakeClient([b"1\n"]), "SELECT 1", 3, timeout_s=2, progress=io.StringIO(), clock=clock, pause=clock.pause)
    assert clock.now == 2.0


def test_wait_refuses_a_query_that_is_not_a_count() -> None:
    clock = FakeClock()
    with pytest.raises(WarehouseError, match="not a number"):
        wait_for_count(FakeClient([b"abc\n"]), "SELECT 'abc'", 1, timeout_s=2, progress=io.StringIO(), clock=clock, pause=clock.pause)


def test_engine_error_text_keeps_one_prefix() -> None:
    error = QueryError.from_engine_text(
        "Code: 115. DB::Exception: Code: 115. DB::Exception: Unknown setting 'x'. (UNKNOWN_SETTING)"
    )
    assert (error.code, error.text) == (115, "Code: 115. DB::Exception: Unknown setting 'x'. (UNKNOWN_SETTING)")
    assert QueryError.from_engine_text("boom").text == "Code: 1000. DB::Exception: boom"
