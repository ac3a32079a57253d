"""The command line: help, and clear errors for bad options and files before anything starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.adapter_process import ADAPTERS
from tests.signer import write_keys


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cheetah_adapters", *args], cwd=ADAPTERS, capture_output=True, text=True, timeout=60)


def test_help_names_every_target_and_example() -> None:
    done = cli("--help")
    assert done.returncode == 0
    for word in ("--target {tc,flowspec,openflow,incast}", "--interface", "--gobgp-api", "--switch", "--fabric", "--mss", "examples:", "mode 0600"):
        assert word in done.stdout


def test_bad_inputs_are_explained(tmp_path: Path) -> None:
    keys = write_keys(tmp_path / "keys.json")
    base = ["--device", "d1", "--bootstrap", "127.0.0.1:1", "--keys", str(keys), "--state-dir", str(tmp_path / "s")]
    missing = cli("--target", "tc", *base)
    assert missing.returncode == 2 and "--target tc needs --interface" in missing.stderr
    rates = cli("--target", "tc", *base, "--interface", "x", "--rate", "10mbit", "--scavenger-rate", "20mbit")
    assert rates.returncode == 2 and "must be below --rate" in rates.stderr
    os.chmod(keys, 0o640)
    no_port = cli("--target", "incast", *base)
    assert no_port.returncode == 2 and "--target incast needs --interface" in no_port.stderr
    exposed = cli("--target", "tc", *base, "--interface", "x")
    assert exposed.returncode == 2 and "chmod 600" in exposed.stderr


def test_targets_come_from_the_one_registry() -> None:
    """--target's choices and the option groups in --help are the registry's: a target added to
    cheetah_adapters.targets.TARGETS needs no other edit to be offered and built."""
    from cheetah_adapters.__main__ import parser
    from cheetah_adapters.targets import TARGETS

    p = parser()
    target_action = next(a for a in p._actions if a.dest == "target")
    assert sorted(target_action.choices) == sorted(TARGETS) == ["flowspec", "incast", "openflow", "tc"]
    titles = {g.title for g in p._action_groups}
    assert {t.title for t in TARGETS.values()} <= titles


def test_a_bad_fabric_option_is_explained(tmp_path: Path) -> None:
    keys = write_keys(tmp_path / "keys.json")
    base = ["--target", "openflow", "--device", "d1", "--bootstrap", "127.0.0.1:1", "--keys", str(keys), "--state-dir", str(tmp_path / "s")]
    neither = cli(*base)
    assert neither.returncode == 2 and "--target openflow needs --switch" in neither.stderr
    absent = cli(*base, "--fabric", str(tmp_path / "nope.yaml"))
    assert absent.returncode == 2 and "cannot read it" in absent.stderr
    wrong = tmp_path / "f.yaml"
    wrong.write_text("name: f\nswitches:\n  - {name: s1, layer: core, ports: [1]}\nlinks:\n  - {a: s1:1, b: s2:1, capacity_bps: 1e9}\n")
    bad = cli(*base, "--fabric", str(wrong))
    assert bad.returncode == 2 and f"{wrong}: links[0]: unknown switch 's2'" in bad.stderr
    template = cli(*base, "--fabric", str(wrong), "--fabric-switch-target", "unix:/run/ovs.mgmt")
    assert template.returncode == 2 and "has no {switch}" in template.stderr
