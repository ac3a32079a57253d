"""The parse entry points take any text without raising (a bounded, seeded mutation run; the
fuzz-target registry drives the same functions longer)."""

from __future__ import annotations

import random
from pathlib import Path
from collections.abc import Callable

import pytest

from cheetah_transfers.generic import parse_csv, parse_jsonl
from cheetah_transfers.gridftp import parse_gridftp
from cheetah_transfers.iperf3 import parse_iperf3
from cheetah_transfers.records import Parsed
from cheetah_transfers.sysstat import parse_sysstat
from tests.samples import GRIDFTP_LINE, iperf3_doc, iperf3_text
from tests.test_generic import CSV

SEEDS = {
    "iperf3": (parse_iperf3, iperf3_text(iperf3_doc())),
    "gridftp": (parse_gridftp, GRIDFTP_LINE + "\n"),
    "csv": (parse_csv, CSV),
    "sysstat": (parse_sysstat, (Path(__file__).resolve().parent / "sadf_j_sysstat_12.6.1.json").read_text()),
    "jsonl": (parse_jsonl, '{"src_host": "a", "dst_host": "b", "tool": "t", "bytes": 1, "start_ms": 0, "seconds": 1}\n'),
}
ALPHABET = "{}[]\":,=.;\n\r\t -0123456789eE+naN\x00\udcff\u00e9TrueflsNUL"


def mutate(rng: random.Random, text: str) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(4)
        i = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op == 1:
            chars.insert(i, rng.choice(ALPHABET))
        elif op == 2 and chars:
            j = rng.randrange(len(chars))
            chars[min(i, len(chars) - 1)], chars[j] = chars[j], chars[min(i, len(chars) - 1)]
        else:
            k = rng.randrange(len(chars) + 1)
            chars[i:i] = chars[k : k + rng.randint(1, 40)]
    return "".join(chars)


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_mutations_never_raise(name: str) -> None:
    parse: Callable[..., Parsed] = SEEDS[name][0]
    seed_text: str = SEEDS[name][1]
    rng = random.Random(14)
    for _ in range(400):
        text = mutate(rng, seed_text)
        p = parse(text, "fuzz")
        assert all(r["reason"] for r in p.rejects)
