"""Runs a device tool (tc, gobgp, ovs-ofctl) and turns a failure into a DeviceError that says what."""

from __future__ import annotations

import shlex
import subprocess

from cheetah_adapters.targets.device import DeviceError


def run(argv: list[str], timeout: float = 20) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except FileNotFoundError as e:
        raise DeviceError(f"{argv[0]} is not installed or not on PATH ({e.strerror})") from e
    except subprocess.TimeoutExpired as e:
        raise DeviceError(f"`{shlex.join(argv)}` did not answer within {timeout} s") from e
    if done.returncode != 0:
        error = (done.stderr or done.stdout).strip().replace("\n", " | ")
        raise DeviceError(f"`{shlex.join(argv)}` failed ({done.returncode}): {error}")
    return done.stdout
