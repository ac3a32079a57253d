"""A fabric REROUTE command (docs/FABRIC.md, "Reroute commands"): the adapters read the new action
from schemas/, authenticate it like every command, and an adapter without a fabric (the openflow
adapter without --fabric) refuses it for its device with unsupported_action (no switch is touched:
admission refuses before the device). Applying it: test_fabric_reroute.py."""

from __future__ import annotations

from pathlib import Path

from cheetah_adapters.admission import Refusal, admit, authenticate
from cheetah_adapters.keys import KeysFile
from cheetah_adapters.messages import RedirectMessages
from cheetah_adapters.targets.openflow import OpenflowConfig, OpenflowDevice
from tests.signer import Signer, now_ms, write_keys

PATH = "e1:3>a1:1,a1:4>c2:1,c2:2>a3:4,a3:1>e3:3"


def test_a_signed_reroute_authenticates_and_an_openflow_switch_refuses_it(messages: RedirectMessages, tmp_path: Path) -> None:
    assert messages.action_number("REROUTE") == 8
    signer = Signer(messages, "fabric-k4")
    raw = signer.sign(signer.flow("rr-1", "10.0.0.2", "10.1.0.2", 40001, 5201, action="REROUTE", path=PATH))
    keys = KeysFile(write_keys(tmp_path / "k.json")).current()
    command = authenticate(raw, messages, keys)
    assert messages.action_name(command.action) == "REROUTE"
    assert command.path == PATH
    device = OpenflowDevice(OpenflowConfig(switch="unused: admission refuses before the switch"))
    refusal = admit(command, "fabric-k4", device, messages, now_ms())
    assert isinstance(refusal, Refusal)
    assert refusal.reason == "unsupported_action"
    assert "does not apply REROUTE" in refusal.detail

    tampered = messages.command.FromString(raw)
    tampered.path = "e1:4>a2:1,a2:4>c4:1,c4:2>a4:4,a4:1>e3:4"
    assert authenticate(tampered.SerializeToString(), messages, keys).refusal.reason == "bad_signature"
