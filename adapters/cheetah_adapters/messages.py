"""cheetah.v1 redirect message classes, built from schemas/ at run time (protoc from grpcio-tools).

The only source of message types is the repository's schemas/ directory; nothing is generated
into the source tree.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

DEFAULT_SCHEMAS_DIR = Path(os.environ.get("CHEETAH_SCHEMAS", Path(__file__).resolve().parents[2] / "schemas"))
REDIRECTS_PROTO = "cheetah/v1/redirects.proto"


@dataclass(frozen=True)
class RedirectMessages:
    command: Any  # the RedirectCommand class
    ack: Any  # the RedirectAck class
    action: Any  # the RedirectAction enum descriptor
    status: Any  # the AckStatus enum descriptor

    def action_name(self, number: int) -> str:
        value = self.action.values_by_number.get(number)
        return value.name.removeprefix("REDIRECT_ACTION_") if value else f"UNKNOWN({number})"

    def action_number(self, name: str) -> int:
        return int(self.action.values_by_name[f"REDIRECT_ACTION_{name}"].number)

    def status_number(self, name: str) -> int:
        return int(self.status.values_by_name[f"ACK_STATUS_{name}"].number)

    def status_name(self, number: int) -> str:
        value = self.status.values_by_number.get(number)
        return value.name.removeprefix("ACK_STATUS_") if value else f"UNKNOWN({number})"


@lru_cache(maxsize=8)
def _pool(proto: str, schemas_dir: Path) -> descriptor_pool.DescriptorPool:
    """The descriptor pool of one proto file of schemas/ and its imports (compiled by protoc)."""
    from grpc_tools import protoc

    if not (schemas_dir / proto).is_file():
        raise RuntimeError(
            f"{schemas_dir / proto} not found: the adapters read message types from the "
            "repository's schemas/ directory; set CHEETAH_SCHEMAS to it"
        )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "messages.pb"
        status = protoc.main(["protoc", f"-I{schemas_dir}", f"--descriptor_set_out={out}", "--include_imports", proto])
        if status != 0:
            raise RuntimeError(f"protoc failed ({status}) on {schemas_dir / proto}")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    return pool


def message_class(proto: str, name: str, schemas_dir: Path = DEFAULT_SCHEMAS_DIR) -> Any:
    """The class of message cheetah.v1.NAME declared in schemas/PROTO."""
    return message_factory.GetMessageClass(_pool(proto, schemas_dir).FindMessageTypeByName(f"cheetah.v1.{name}"))


@lru_cache(maxsize=4)
def load(schemas_dir: Path = DEFAULT_SCHEMAS_DIR) -> RedirectMessages:
    pool = _pool(REDIRECTS_PROTO, schemas_dir)
    return RedirectMessages(
        command=message_class(REDIRECTS_PROTO, "RedirectCommand", schemas_dir),
        ack=message_class(REDIRECTS_PROTO, "RedirectAck", schemas_dir),
        action=pool.FindEnumTypeByName("cheetah.v1.RedirectAction"),
        status=pool.FindEnumTypeByName("cheetah.v1.AckStatus"),
    )
