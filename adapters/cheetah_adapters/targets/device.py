"""What the adapter engine needs from a device.

A device holds entries, each named by a fingerprint: a string that says exactly what the entry
matches and does, readable back from the device. Rules with the same fingerprint share one entry,
so the engine can install, remove and reconcile without trusting its own memory of the device.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Protocol

from cheetah_adapters.rules import Rule


class DeviceError(RuntimeError):
    """The device refused an operation; the message carries its own error."""


class Device(Protocol):
    name: str  # the adapter name in acks: tc, flowspec, openflow
    actions: frozenset[str]  # RedirectAction names (without prefix) this device applies

    def prepare(self) -> None:
        """Makes the device ready (qdisc and classes, session, bridge checks); idempotent."""

    def unsupported(self, rule: Rule) -> str | None:
        """Why this device cannot apply the rule (None if it can)."""

    def fingerprint(self, rule: Rule) -> str: ...

    def installed(self) -> dict[str, list[str]]:
        """The entries this adapter manages on the device: fingerprint -> handles."""

    def install(self, rule: Rule) -> None: ...

    def remove(self, fingerprint: str, handle: str) -> None: ...


@dataclass(frozen=True)
class Target:
    """A kind of device `cheetah adapter --target NAME` drives: its options and how to build it.

    `make` gets the parsed options and an `error(message)` that exits with status 2 (bad options).
    """

    name: str
    title: str  # the heading of its options in --help
    add_arguments: Callable[[argparse._ArgumentGroup], None]
    make: Callable[[argparse.Namespace, Callable[[str], None]], Device]
