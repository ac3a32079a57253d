"""GridFTP server transfer logs (``-log-transfer``): one line of KEY=VALUE pairs per transfer, e.g.

DATE=20240102030410.500000 HOST=gridftp.example.org PROG=globus-gridftp-server NL.EVNT=FTP_INFO
START=20240102030400.250000 USER=u FILE=/data/f BUFFER=4194304 BLOCK=262144 NBYTES=1048576000
VOLUME=/ STREAMS=4 STRIPES=1 DEST=[192.0.2.7] TYPE=RETR CODE=226

(one line in the log). START and DATE (the end) are UTC, to the microsecond.
"""

from __future__ import annotations

import calendar
import re
from typing import Any

from .records import BadRecord, Parsed, reject, transfer

TOOL = "gridftp"
# RETR/ERET: the server sends to DEST; STOR/ESTO: DEST sends to the server.
SENDS = {"RETR": True, "ERET": True, "STOR": False, "ESTO": False}
STAMP = re.compile(r"^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,6}))?$")


def parse_gridftp(text: str, source: str = "-", server_address: str = "") -> Parsed:
    """Every transfer line of ``text`` (a transfer log); blank lines are skipped. The server is
    named by HOST, or by ``server_address`` when given (flows know addresses, not names)."""
    out = Parsed()
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.records.append(parse_gridftp_line(line, server_address))
        except BadRecord as e:
            out.rejects.append(reject(e.reason, str(e), line, source, n))
    return out


def stamp_ms(value: str, name: str) -> int:
    m = STAMP.match(value)
    if not m:
        raise BadRecord("bad_time", f"{name} {value!r} is not YYYYmmddHHMMSS[.ffffff]")
    y, mo, d, h, mi, s = (int(x) for x in m.groups()[:6])
    frac = (m.group(7) or "0").ljust(6, "0")
    if not (1 <= mo <= 12 and 1 <= d <= 31 and h < 24 and mi < 60 and s < 61 and y >= 1970):
        raise BadRecord("bad_time", f"{name} {value!r} is not a valid time")
    try:
        secs = calendar.timegm((y, mo, d, h, mi, s, 0, 0, 0))
    except (ValueError, OverflowError):
        raise BadRecord("bad_time", f"{name} {value!r} is not a valid time") from None
    return secs * 1000 + int(frac) // 1000


def parse_gridftp_line(line: str, server_address: str = "") -> dict[str, Any]:
    """One transfer log line as a transfers.v1 record; raises BadRecord."""
    kv: dict[str, str] = {}
    for token in line.split():
        key, eq, value = token.partition("=")
        if not eq:
            raise BadRecord("malformed_line", f"token {token!r} is not KEY=VALUE")
        kv[key] = value
    for key in ("START", "DATE", "NBYTES", "HOST", "DEST", "TYPE", "CODE"):
        if not kv.get(key):
            raise BadRecord("missing_field", f"{key} is missing")
    kind = kv["TYPE"].upper()
    if kind not in SENDS:
        raise BadRecord("not_a_transfer", f"TYPE={kv['TYPE']} moves no file data (RETR, ERET, STOR or ESTO do)")
    if kv["CODE"] != "226":
        raise BadRecord("failed_transfer", f"CODE={kv['CODE']}: the transfer did not complete (226 is success)")
    dest = kv["DEST"].strip("[]").split(",")[0].strip()
    if not dest:
        raise BadRecord("missing_field", "DEST names no host")
    server = server_address or kv["HOST"]
    src, dst = (server, dest) if SENDS[kind] else (dest, server)
    start = stamp_ms(kv["START"], "START")
    end = stamp_ms(kv["DATE"], "DATE")
    if end < start:
        raise BadRecord("inverted_times", f"DATE {kv['DATE']} (the end) is before START {kv['START']}")
    return transfer(
        {
            "src_host": src,
            "dst_host": dst,
            "tool": TOOL,
            "streams": kv.get("STREAMS", "0"),
            "bytes": kv["NBYTES"],
            "start_ms": start,
            "end_ms": end,
            "tcp_buffer_bytes": kv.get("BUFFER", "0"),
        }
    )
