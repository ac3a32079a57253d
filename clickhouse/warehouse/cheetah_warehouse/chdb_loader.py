"""Load chdb's extension module without running chdb's package ``__init__``.

``import chdb`` opens and closes a throwaway connection at import time; that
shuts down chdb's process-wide streaming registry, after which Kafka engine
tables stop consuming and a data directory holding one fails to load after a
restart (docs/ENVIRONMENT.md, "ClickHouse (chdb)"). So the warehouse loads ``_chdb``
itself, repeating only the RTLD_DEEPBIND preload that the package does so that
the pybind11 stubs resolve ``operator new/delete`` from chdb's own jemalloc.
"""

from __future__ import annotations

import ctypes
import importlib.machinery
import importlib.util
import os
import sys
import threading
from pathlib import Path
from types import ModuleType

_RTLD_DEEPBIND = 0x00008
_MODULE_NAME = "chdb._chdb"
_lock = threading.Lock()
_loaded: ModuleType | None = None


class ChdbNotInstalled(RuntimeError):
    """chdb-core is not importable from this interpreter."""


def _package_dir() -> Path:
    # find_spec("chdb") locates the package without executing its __init__.
    spec = importlib.util.find_spec("chdb")
    if spec is None or not spec.submodule_search_locations:
        raise ChdbNotInstalled(
            "the chdb package is not installed in this Python "
            f"({sys.executable}); install chdb-core==26.9.0 "
            "(see clickhouse/warehouse/requirements.txt)"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def load_chdb() -> ModuleType:
    """Return the ``_chdb`` extension module, loading it once per process."""
    global _loaded
    with _lock:
        if _loaded is not None:
            return _loaded
        if _MODULE_NAME in sys.modules:
            _loaded = sys.modules[_MODULE_NAME]
            return _loaded
        package_dir = _package_dir()
        so_path = package_dir / "_chdb.abi3.so"
        if not so_path.is_file():
            raise ChdbNotInstalled(f"chdb extension not found at {so_path}; reinstall chdb-core==26.9.0")
        # chdb's __init__ imports the extension with the package directory as
        # cwd (it resolves its bundled libraries relative to it); do the same.
        previous_cwd = os.getcwd()
        os.chdir(package_dir)
        try:
            if sys.platform == "linux":
                try:
                    ctypes.CDLL(str(so_path), mode=sys.getdlopenflags() | _RTLD_DEEPBIND)
                except OSError:
                    pass
            loader = importlib.machinery.ExtensionFileLoader(_MODULE_NAME, str(so_path))
            spec = importlib.util.spec_from_file_location(_MODULE_NAME, so_path, loader=loader)
            if spec is None:
                raise ChdbNotInstalled(f"cannot build an import spec for {so_path}")
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
        finally:
            os.chdir(previous_cwd)
        sys.modules[_MODULE_NAME] = module
        _loaded = module
        return module
