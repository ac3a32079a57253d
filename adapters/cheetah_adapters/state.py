"""The adapter's small local state: which command ids it applied or answered, which rules it removed,
and the rules in force (as the signed commands that added them). One JSON file, replaced atomically
after every change; a lock keeps a second adapter off the same directory.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

STATE_VERSION = 1
# Ids are kept this long past their command's expiry: a redelivery later than that is refused as
# expired anyway, so forgetting it cannot re-apply anything.
KEEP_AFTER_EXPIRY_MS = 7 * 24 * 3600 * 1000


class StateError(RuntimeError):
    pass


@dataclass
class AdapterState:
    applied: dict[str, int] = field(default_factory=dict)  # command id -> expires_ms
    answered: dict[str, int] = field(default_factory=dict)  # command id -> expires_ms (any ack sent)
    removed: dict[str, int] = field(default_factory=dict)  # rule id -> expires_ms of the removed rule
    rules: dict[str, bytes] = field(default_factory=dict)  # rule id -> the signed add command

    def prune(self, now_ms: int) -> None:
        for ids in (self.applied, self.answered, self.removed):
            for cid in [c for c, exp in ids.items() if exp + KEEP_AFTER_EXPIRY_MS < now_ms]:
                del ids[cid]


class StateDir:
    def __init__(self, path: Path, owner: str) -> None:
        self.path = path
        self.owner = owner  # "tc/host-eth0": a state dir belongs to one adapter and device
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StateError(f"state dir {path}: cannot create it ({e.strerror}); pass --state-dir DIR") from e
        self._lock: IO[bytes] | None = open(path / "lock", "wb")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as e:
            self._lock.close()
            self._lock = None
            raise StateError(f"state dir {path} is in use by another adapter process; give each adapter its own --state-dir") from e

    @property
    def file(self) -> Path:
        return self.path / "state.json"

    def load(self) -> AdapterState:
        if not self.file.exists():
            return AdapterState()
        try:
            doc = json.loads(self.file.read_text())
            if doc.get("version") != STATE_VERSION or doc.get("owner") != self.owner:
                raise StateError(
                    f"state file {self.file} belongs to {doc.get('owner')!r} (version {doc.get('version')}), not {self.owner!r}; "
                    "use another --state-dir"
                )
            return AdapterState(
                applied={k: int(v) for k, v in doc["applied"].items()},
                answered={k: int(v) for k, v in doc["answered"].items()},
                removed={k: int(v) for k, v in doc["removed"].items()},
                rules={k: base64.b64decode(v) for k, v in doc["rules"].items()},
            )
        except (ValueError, KeyError, TypeError) as e:
            raise StateError(
                f"state file {self.file} is damaged ({e}); move it away: the adapter then rebuilds its rules from the topic"
            ) from e

    def save(self, state: AdapterState) -> None:
        doc = {
            "version": STATE_VERSION,
            "owner": self.owner,
            "applied": state.applied,
            "answered": state.answered,
            "removed": state.removed,
            "rules": {k: base64.b64encode(v).decode() for k, v in state.rules.items()},
        }
        tmp = self.file.with_suffix(".tmp")
        with open(tmp, "w") as out:
            json.dump(doc, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.file)

    def keep_rejected(self, line: dict[str, object]) -> None:
        """Bad input is kept, with its reason: one JSON line per refused command."""
        with open(self.path / "rejected.jsonl", "a") as out:
            out.write(json.dumps(line) + "\n")

    def close(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None
