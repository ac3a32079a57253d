"""cheetah.v1 message classes built from schemas/ at test time (protoc from grpcio-tools)."""

from __future__ import annotations

import ipaddress
import tempfile
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from cheetah_warehouse import DEFAULT_SCHEMAS_DIR


def load_messages(schemas_dir: Path = DEFAULT_SCHEMAS_DIR) -> dict[str, Any]:
    from grpc_tools import protoc

    protos = sorted(str(p.relative_to(schemas_dir)) for p in (schemas_dir / "cheetah" / "v1").glob("*.proto"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cheetah.pb"
        status = protoc.main(["protoc", f"-I{schemas_dir}", f"--descriptor_set_out={out}", "--include_imports", *protos])
        if status != 0:
            raise RuntimeError(f"protoc failed ({status}) on {protos}")
        files = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    names = [m.name for f in files.file if f.package == "cheetah.v1" for m in f.message_type]
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"cheetah.v1.{n}")) for n in names}


def address(text: str) -> bytes:
    """16 bytes, IPv4 as IPv4-mapped IPv6 (the cheetah.v1 convention)."""
    parsed = ipaddress.ip_address(text)
    if parsed.version == 4:
        parsed = ipaddress.IPv6Address("::ffff:" + text)
    return parsed.packed
