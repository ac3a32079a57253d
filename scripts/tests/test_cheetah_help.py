"""`./cheetah` prints help without setting anything up: on a fresh machine `setup --help` must not
install packages or build (it once ran the whole setup). The script is run from a copy in an
empty directory, so anything it set up would appear there as .cheetah/."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    shutil.copy2(REPO / "cheetah", tmp_path / "cheetah")
    return tmp_path


@pytest.mark.parametrize("args", [["setup", "--help"], ["setup", "-h"], ["help"], ["--help"], ["test", "--help"]])
def test_help_sets_nothing_up(bare: Path, args: list[str]) -> None:
    run = subprocess.run([str(bare / "cheetah"), *args], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    assert "Usage: ./cheetah" in run.stdout
    assert not (bare / ".cheetah").exists(), "help set something up"


def test_setup_help_names_every_step(bare: Path) -> None:
    out = subprocess.run([str(bare / "cheetah"), "setup", "--help"], capture_output=True, text=True, timeout=30).stdout
    steps = "tools apt python goflow2 snmp probe gobgp superset maven helm".split()  # SETUP_STEPS, by hand
    assert steps == out.split("Steps, in order:")[1].split()[: len(steps)]


def test_setup_refuses_arguments(bare: Path) -> None:
    run = subprocess.run([str(bare / "cheetah"), "setup", "--fast"], capture_output=True, text=True, timeout=30)
    assert run.returncode != 0
    assert "setup takes no arguments ('--fast')" in run.stderr
    assert not (bare / ".cheetah").exists()
