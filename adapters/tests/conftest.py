from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # cheetah_adapters without PYTHONPATH

from cheetah_adapters import messages as messages_module  # noqa: E402
from cheetah_adapters.engine import Adapter  # noqa: E402
from cheetah_adapters.keys import KeysFile  # noqa: E402
from cheetah_adapters.messages import RedirectMessages  # noqa: E402
from cheetah_adapters.state import StateDir  # noqa: E402
from cheetah_adapters.targets.device import Device  # noqa: E402
from tests.namespaces import VethPair, make_pair  # noqa: E402
from tests.signer import Signer, write_keys  # noqa: E402

DEVICE_ID = "host-1/veth"


def require_tool(name: str, package: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: these tests drive the real tool; install {package} (./cheetah setup does)")
    return path


@pytest.fixture(scope="session")
def messages() -> RedirectMessages:
    return messages_module.load()


@pytest.fixture
def keys_path(tmp_path: Path) -> Path:
    return write_keys(tmp_path / "keys.json")


@pytest.fixture
def signer(messages: RedirectMessages) -> Signer:
    return Signer(messages, DEVICE_ID)


@pytest.fixture
def pair() -> Iterator[VethPair]:
    require_tool("tc", "iproute2")
    made = make_pair()
    try:
        yield made
    finally:
        made.delete()


class Harness:
    """An adapter with a real device, its acks collected in order."""

    def __init__(self, messages: RedirectMessages, keys_path: Path, state_path: Path, device: Device, owner: str) -> None:
        self.messages = messages
        self.acks: list[Any] = []
        self.state_dir = StateDir(state_path, owner)
        self.adapter = Adapter(device, DEVICE_ID, messages, KeysFile(keys_path), self.state_dir, self.acks.append)

    def give(self, raw: bytes, key: bytes | None = DEVICE_ID.encode()) -> Any:
        before = len(self.acks)
        self.adapter.offer(key, raw)
        return self.acks[before] if len(self.acks) > before else None

    def status(self, ack: Any) -> str:
        return self.messages.status_name(ack.status)

    def close(self) -> None:
        self.state_dir.close()


@pytest.fixture
def harness(messages: RedirectMessages, keys_path: Path, tmp_path: Path) -> Iterator[Callable[[Device], Harness]]:
    made: list[Harness] = []

    def start(device: Device) -> Harness:
        h = Harness(messages, keys_path, tmp_path / "state", device, f"{device.name}/{DEVICE_ID}")
        made.append(h)
        return h

    yield start
    for h in made:
        h.close()
