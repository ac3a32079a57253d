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


@lru_cache(maxsize=4)
def load(schemas_dir: Path = DEFAULT_SCHEMAS_DIR) -> RedirectMessages:
    from grpc_tools import protoc

    if not (schemas_dir / REDIRECTS_PROTO).is_file():
        raise RuntimeError(
            f"{schemas_dir / REDIRECTS_PROTO} not found: the adapters read message types from the "
            "repository's schemas/ directory; set CHEETAH_SCHEMAS to it"
        )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "redirects.pb"
        status = protoc.main(["protoc", f"-I{schemas_dir}", f"--descriptor_set_out={out}", "--include_imports", REDIRECTS_PROTO])
        if status != 0:
            raise RuntimeError(f"protoc failed ({status}) on {schemas_dir / REDIRECTS_PROTO}")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)

    def message(name: str) -> Any:
        return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"cheetah.v1.{name}"))

    return RedirectMessages(
        command=message("RedirectCommand"),
        ack=message("RedirectAck"),
        action=pool.FindEnumTypeByName("cheetah.v1.RedirectAction"),
        status=pool.FindEnumTypeByName("cheetah.v1.AckStatus"),
    )
