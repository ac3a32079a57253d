"""`./cheetah dashboards` is the README's way in: it must exist and answer --help (it once went
missing from the script while the tests, which call the package directly, kept passing)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_cheetah_dashboards_help_answers() -> None:
    done = subprocess.run([str(ROOT / "cheetah"), "dashboards", "--help"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "Usage: ./cheetah dashboards" in done.stdout
    assert "--check" in done.stdout


def test_cheetah_dashboards_refuses_an_unknown_option() -> None:
    done = subprocess.run([str(ROOT / "cheetah"), "dashboards", "--bogus"], capture_output=True, text=True, timeout=600)
    assert done.returncode != 0
    assert "unknown option '--bogus'" in done.stderr
