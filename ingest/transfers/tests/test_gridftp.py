from __future__ import annotations

import pytest

from cheetah_transfers.gridftp import parse_gridftp, parse_gridftp_line
from cheetah_transfers.records import BadRecord
from tests.samples import GRIDFTP_LINE


def test_a_retr_line_by_hand() -> None:
    r = parse_gridftp_line(GRIDFTP_LINE)
    # 2024-01-01T00:00Z is 19723 days = 1704067200 s after the epoch; + 1 day + 03:04:00 = 1704164640 s.
    assert r["start_ms"] == 1704164640250
    assert r["end_ms"] == 1704164650500
    assert r["seconds"] == 10.25
    # RETR: the server sends to DEST.
    assert (r["src_host"], r["dst_host"], r["tool"]) == ("gridftp.example.org", "192.0.2.7", "gridftp")
    assert (r["bytes"], r["streams"], r["tcp_buffer_bytes"]) == (1048576000, 4, 4194304)


def test_stor_receives_and_the_server_address_replaces_its_name() -> None:
    r = parse_gridftp_line(GRIDFTP_LINE.replace("TYPE=RETR", "TYPE=STOR"), server_address="198.51.100.2")
    assert (r["src_host"], r["dst_host"]) == ("192.0.2.7", "198.51.100.2")


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (GRIDFTP_LINE.replace("CODE=226", "CODE=426"), "failed_transfer"),
        (GRIDFTP_LINE.replace("TYPE=RETR", "TYPE=LIST"), "not_a_transfer"),
        (GRIDFTP_LINE.replace(" NBYTES=1048576000", ""), "missing_field"),
        (GRIDFTP_LINE.replace("START=20240102030400.250000", "START=20241302030400"), "bad_time"),
        (GRIDFTP_LINE.replace("START=20240102030400.250000", "START=yesterday"), "bad_time"),
        (GRIDFTP_LINE.replace("START=20240102030400.250000", "START=20240102030420"), "inverted_times"),
        (GRIDFTP_LINE.replace("NBYTES=1048576000", "NBYTES=-5"), "bad_number"),
        (GRIDFTP_LINE + " garbage", "malformed_line"),
        (GRIDFTP_LINE.replace("DEST=[192.0.2.7]", "DEST=[]"), "missing_field"),
    ],
)
def test_bad_lines(line: str, reason: str) -> None:
    with pytest.raises(BadRecord) as e:
        parse_gridftp_line(line)
    assert e.value.reason == reason


def test_a_log_with_a_bad_line_ships_the_rest() -> None:
    log = "\n".join([GRIDFTP_LINE, "", GRIDFTP_LINE.replace("CODE=226", "CODE=500"), GRIDFTP_LINE]) + "\n"
    p = parse_gridftp(log, "gridftp.log")
    assert len(p.records) == 2
    (bad,) = p.rejects
    assert bad["reason"] == "failed_transfer"
    assert bad["source_offset"] == 3
    assert bad["detail"].startswith("gridftp.log:3: CODE=500")
