"""Devices the adapters drive: the one list of targets (`cheetah adapter --target NAME`).

A new target is a module here with a device class (targets/device.py's Device) and a TARGET
(its options and factory), plus one line below; --help, the option check and the dispatch read
this list.
"""

from __future__ import annotations

from cheetah_adapters.targets import flowspec, incast, openflow, tc
from cheetah_adapters.targets.device import Target

TARGETS: dict[str, Target] = {t.name: t for t in (tc.TARGET, flowspec.TARGET, openflow.TARGET, incast.TARGET)}
