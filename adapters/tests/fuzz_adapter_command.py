"""The adapters' fuzz target (scripts/fuzz_targets.txt, "adapter-command").

`one_command(raw)` takes any bytes as a record of redirects.commands.v1 through what the adapter
does before touching a device: decoding and the signature check (`authenticate`), then, so the
fuzzer reaches admission and rule building too (a random HMAC never verifies), the decoded
command re-signed with the harness key, authenticated again, `admit`ted and fingerprinted as the
tc device would install it (pure; no tc is run). A refusal is fine; any exception is a finding.
Atheris drives it (`./cheetah bench fuzz --target adapter-command`); test_fuzz_corpus.py replays
the kept corpus in the suite.
"""

from __future__ import annotations

import json

from google.protobuf.message import DecodeError
from google.protobuf.unknown_fields import UnknownFieldSet

from cheetah_adapters import messages as messages_module
from cheetah_adapters.admission import Refusal, Removal, Unauthentic, admit, authenticate
from cheetah_adapters.keys import parse_keys
from cheetah_adapters.rules import Rule
from cheetah_adapters.signing import sign
from cheetah_adapters.targets.tc import TcConfig, TcDevice

MESSAGES = messages_module.load()
KEYS = parse_keys(json.dumps({"active": "fuzz", "keys": {"fuzz": bytes(range(32)).hex()}}), "the fuzz harness")
DEVICE = TcDevice(TcConfig(interface="fuzz0"))
NOW_MS = 1_800_000_000_000


def one_command(raw: bytes) -> None:
    first = authenticate(raw, MESSAGES, KEYS)
    if isinstance(first, Unauthentic):
        assert first.refusal.reason and first.refusal.detail, first
        try:
            command = MESSAGES.command.FromString(raw)
        except DecodeError:
            return
        if len(UnknownFieldSet(command)):
            return
        signed = sign(command, KEYS).SerializeToString()
        again = authenticate(signed, MESSAGES, KEYS)
        assert not isinstance(again, Unauthentic), f"a command signed with the active key is refused: {again}"
        first = again
    verdict = admit(first, first.device_id, DEVICE, MESSAGES, NOW_MS)
    assert isinstance(verdict, (Refusal, Removal, Rule)), verdict
    if isinstance(verdict, Rule):
        assert DEVICE.unsupported(verdict) is None
        assert DEVICE.fingerprint(verdict)
