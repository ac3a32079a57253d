"""The host-sample shipper's fuzz target (scripts/fuzz_targets.txt, "host-samples").

`one_input(raw)` feeds any bytes to the sysstat parser (`sadf -j` output), as `ship-transfers
sysstat` reads a file (UTF-8 with surrogateescape). Every reject it returns is built into the
flows.rejected.v1 message `publish` sends, and every sample must hold what hosts.csv and the PRCA's
HostSample take (a host name, a time, percentages in 0..100 or None). A reject is fine; any
exception is a finding. Atheris drives it (`./cheetah bench fuzz --target host-samples`);
test_fuzz_corpus.py replays the corpus.
"""

from __future__ import annotations

import math

from google.protobuf import json_format

from cheetah_transfers.kafka import message_class, topic
from cheetah_transfers.sysstat import parse_sysstat

REJECT = message_class(topic("rejected")[1])


def one_input(raw: bytes) -> None:
    parsed = parse_sysstat(raw.decode("utf-8", "surrogateescape"), "fuzz")
    for rejected in parsed.rejects:
        assert rejected["reason"], rejected
        json_format.ParseDict(rejected, REJECT()).SerializeToString()
    for s in parsed.host_samples:
        assert isinstance(s["host"], str) and s["host"] and isinstance(s["time_ms"], int), s
        for k in ("cpu_percent", "disk_percent", "nic_percent"):
            assert s[k] is None or (math.isfinite(s[k]) and 0 <= s[k] <= 100), s
