"""Inputs written by hand, shared by the tests."""

from __future__ import annotations

import json
from typing import Any


def iperf3_doc(reverse: int = 0, error: str = "") -> dict[str, Any]:
    """An iperf3 -J result in iperf3 3.12's layout (abridged): 2 streams, 10 s, client 10.0.1.1."""
    doc: dict[str, Any] = {
        "start": {
            "connected": [
                {"socket": 5, "local_host": "10.0.1.1", "local_port": 40000, "remote_host": "10.0.2.1", "remote_port": 5201},
                {"socket": 7, "local_host": "10.0.1.1", "local_port": 40002, "remote_host": "10.0.2.1", "remote_port": 5201},
            ],
            "version": "iperf 3.12",
            "timestamp": {"time": "Tue, 02 Jan 2024 03:04:00 GMT", "timesecs": 1704164640},
            "sock_bufsize": 262144,
            "test_start": {"protocol": "TCP", "num_streams": 2, "duration": 10, "reverse": reverse},
        },
        "intervals": [],
        "end": {
            "streams": [
                {"sender": {"socket": 5, "seconds": 10.0, "bytes": 600000000, "bits_per_second": 480000000.0},
                 "receiver": {"socket": 5, "seconds": 10.04, "bytes": 599000000, "bits_per_second": 477290836.6}},
                {"sender": {"socket": 7, "seconds": 10.0, "bytes": 500000000, "bits_per_second": 400000000.0},
                 "receiver": {"socket": 7, "seconds": 10.04, "bytes": 499000000, "bits_per_second": 397609561.8}},
            ],
            "sum_sent": {"seconds": 10.0, "bytes": 1100000000, "bits_per_second": 880000000.0},
            "sum_received": {"seconds": 10.04, "bytes": 1098000000, "bits_per_second": 874900398.4},
            "cpu_utilization_percent": {"host_total": 35.5, "remote_total": 97.25},
            "sender_tcp_congestion": "cubic",
            "receiver_tcp_congestion": "bbr",
        },
    }
    if error:
        doc = {"start": {}, "intervals": [], "end": {}, "error": error}
    return doc


def iperf3_text(*docs: dict[str, Any]) -> str:
    return "".join(json.dumps(d, indent=1) + "\n" for d in docs)


GRIDFTP_LINE = (
    "DATE=20240102030410.500000 HOST=gridftp.example.org PROG=globus-gridftp-server NL.EVNT=FTP_INFO"
    " START=20240102030400.250000 USER=alice FILE=/data/run1.root BUFFER=4194304 BLOCK=262144"
    " NBYTES=1048576000 VOLUME=/ STREAMS=4 STRIPES=1 DEST=[192.0.2.7] TYPE=RETR CODE=226"
)
