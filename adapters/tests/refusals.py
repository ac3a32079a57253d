"""Commands every target must refuse before touching its device (docs/ADAPTERS.md, step 5):
no expiry, issued in the future, a REMOVE that names no rule. Shared by the target tests, each
of which reads its real device back (tc, GoBGP, OVS) with its own tools.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable

from cheetah_adapters.targets.device import Device
from tests.conftest import DEVICE_ID, Harness
from tests.signer import Signer, now_ms

HOUR_MS = 3_600_000


@dataclass(frozen=True)
class Refused:
    reason: str
    explanation: str  # a part of the ack's detail after "reason: "
    command_id: str
    raw: bytes


def refused_commands(signer: Signer, kept: Any, src: str, dst: str) -> list[Refused]:
    """Signed (so only admission can refuse them) commands for ``src -> dst``; ``kept`` is a rule in force."""
    no_expiry = signer.flow("nx-1", src, dst, 1001, 2001)
    no_expiry.expires_ms = 0
    future = signer.flow("fu-1", src, dst, 1002, 2002, issued_ms=now_ms() + HOUR_MS)
    untargeted = signer.remove("rm-1", kept)
    untargeted.replaces_command_id = ""
    return [
        Refused("no_expiry", "command has no expires_ms; every rule must expire", "nx-1", signer.sign(no_expiry)),
        Refused("issued_in_future", "ms ahead of this adapter's clock; check NTP", "fu-1", signer.sign(future)),
        Refused("invalid_command", "REMOVE without replaces_command_id", "rm-1", signer.sign(untargeted)),
    ]


def assert_refused_and_nothing_applied(
    h: Harness, refused: list[Refused], device_state: Callable[[], object],
    harness: Callable[[Device], Harness], device: Callable[[], Device], retained: list[bytes],
) -> None:
    """Each command is acked REJECTED with its reason, kept in rejected.jsonl and counted; the device
    reads back as it was (the rule in force, added by ``retained``, is still there); after a restart
    that replays the same records, nothing is answered or recorded a second time."""
    before = device_state()
    applied_before = h.adapter.summary()["applied"]
    for case in refused:
        ack = h.give(case.raw)
        assert ack is not None, f"{case.reason}: no ack"
        assert (h.status(ack), ack.command_id, ack.device_id) == ("REJECTED", case.command_id, DEVICE_ID), ack
        assert ack.detail.startswith(f"{case.reason}: ") and case.explanation in ack.detail, (case.reason, ack.detail)
    assert device_state() == before, "a refused command changed the device"

    kept = [json.loads(line) for line in (h.state_dir.path / "rejected.jsonl").read_text().splitlines()]
    assert [(k["command_id"], k["reason"], k["payload_hex"]) for k in kept] == [(c.command_id, c.reason, c.raw.hex()) for c in refused]
    summary = h.adapter.summary()
    assert summary["rejected"] == {c.reason: 1 for c in refused}
    assert summary["applied"] == applied_before and summary["rules_in_force"] == 1
    assert not h.adapter.state.removed, "the REMOVE without a target ended a rule"

    # A restart replays the retained topic: these were answered already and stay answered once.
    h.close()
    again = harness(device())
    for raw in retained + [c.raw for c in refused]:
        again.give(raw)
    again.adapter.reconcile()
    assert [(a.command_id, again.status(a)) for a in again.acks] == [], "refusals were answered again after a restart"
    assert len((again.state_dir.path / "rejected.jsonl").read_text().splitlines()) == len(refused)
    assert again.adapter.summary()["replayed_known"] == len(retained) + len(refused)
    assert device_state() == before
