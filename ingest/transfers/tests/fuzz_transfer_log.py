"""The transfer-log shippers' fuzz target (scripts/fuzz_targets.txt, "transfer-log").

`one_input(raw)` feeds any bytes to one shipper's parser, as `ship-transfers` reads a file (UTF-8
with surrogateescape): the first byte picks the format (iperf3 JSON, GridFTP log, CSV, JSON
lines), the rest is the file. Every record and reject it returns is then built into the protobuf
message `publish` sends (transfers.v1 / flows.rejected.v1), so a value the parser lets through but
the message cannot hold is a finding too. A reject is fine; any exception is a finding. Atheris
drives it (`./cheetah bench fuzz --target transfer-log`); test_fuzz_corpus.py replays the corpus.
"""

from __future__ import annotations

from google.protobuf import json_format

from cheetah_transfers.cli import parse
from cheetah_transfers.kafka import message_class, topic

FORMATS = ("iperf3", "gridftp", "csv", "jsonl")
TRANSFER = message_class(topic("transfers")[1])
REJECT = message_class(topic("rejected")[1])


def one_input(raw: bytes) -> None:
    if not raw:
        return
    fmt = FORMATS[raw[0] % len(FORMATS)]
    text = raw[1:].decode("utf-8", "surrogateescape")
    parsed = parse(fmt, text, "fuzz", "192.0.2.1")
    for record in parsed.records:
        json_format.ParseDict(record, TRANSFER()).SerializeToString()
    for rejected in parsed.rejects:
        assert rejected["reason"], rejected
        json_format.ParseDict(rejected, REJECT()).SerializeToString()
