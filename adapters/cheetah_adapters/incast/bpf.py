"""The bpf(2) map calls the incast guard needs (pinned maps: get, lookup, update, delete, keys).

Through ctypes on the kernel's syscall; no library beyond libc. Map layouts are those of
adapters/incast_bpf/guard.bpf.c.
"""

from __future__ import annotations

import ctypes
import os
import struct
from typing import Iterator

_SYS_BPF = 321  # x86_64
_LOOKUP, _UPDATE, _DELETE, _NEXT_KEY, _OBJ_GET = 1, 2, 3, 4, 7
ANY, NOEXIST, EXIST = 0, 1, 2
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class BpfError(OSError):
    pass


def _call(cmd: int, attr: ctypes.Array) -> int:
    rc = _libc.syscall(_SYS_BPF, cmd, attr, ctypes.sizeof(attr))
    if rc < 0:
        err = ctypes.get_errno()
        raise BpfError(err, os.strerror(err))
    return rc


class PinnedMap:
    """A pinned BPF map with fixed key and value sizes."""

    def __init__(self, path: str, key_size: int, value_size: int) -> None:
        self.path = path
        self.key_size = key_size
        self.value_size = value_size
        name = ctypes.create_string_buffer(path.encode())
        attr = ctypes.create_string_buffer(struct.pack("=QII", ctypes.addressof(name), 0, 0), 128)
        try:
            self.fd = _call(_OBJ_GET, attr)
        except BpfError as e:
            raise BpfError(e.errno, f"cannot open the pinned map {path}: {e.strerror}") from None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _elem(self, cmd: int, key: bytes, value: ctypes.Array | None, flags: int = 0) -> None:
        k = ctypes.create_string_buffer(key, self.key_size)
        attr = ctypes.create_string_buffer(
            struct.pack("=IIQQQ", self.fd, 0, ctypes.addressof(k), ctypes.addressof(value) if value is not None else 0, flags), 128
        )
        _call(cmd, attr)

    def lookup(self, key: bytes) -> bytes | None:
        value = ctypes.create_string_buffer(self.value_size)
        try:
            self._elem(_LOOKUP, key, value)
        except BpfError as e:
            if e.errno == 2:  # ENOENT
                return None
            raise
        return value.raw

    def update(self, key: bytes, value: bytes, flags: int = ANY) -> None:
        self._elem(_UPDATE, key, ctypes.create_string_buffer(value, self.value_size), flags)

    def delete(self, key: bytes) -> bool:
        try:
            self._elem(_DELETE, key, None)
        except BpfError as e:
            if e.errno == 2:
                return False
            raise
        return True

    def keys(self) -> Iterator[bytes]:
        current: bytes | None = None
        while True:
            following = ctypes.create_string_buffer(self.key_size)
            k = ctypes.create_string_buffer(current or b"", self.key_size)
            attr = ctypes.create_string_buffer(
                struct.pack("=IIQQ", self.fd, 0, ctypes.addressof(k) if current is not None else 0, ctypes.addressof(following)), 128
            )
            try:
                _call(_NEXT_KEY, attr)
            except BpfError as e:
                if e.errno == 2:
                    return
                raise
            current = following.raw
            yield current
