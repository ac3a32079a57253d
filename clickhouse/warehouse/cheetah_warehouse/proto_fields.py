"""The fields of a protobuf message, read from its .proto file, and the queue types that decode them.

ClickHouse's Protobuf input matches columns to fields by name and does not check them when a
Kafka table is created: a column naming no field is silently filled with its default. The
declarations are therefore checked here, before any DDL is written. The reader covers what
schemas/cheetah/v1 uses (top-level messages and enums, scalar, enum and repeated fields);
tests/test_schema_declarations.py checks it against protoc's own descriptors.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .errors import WarehouseError

_BLOCK = re.compile(r"\b(message|enum)\s+([A-Za-z_]\w*)\s*\{")
_FIELD = re.compile(r"^\s*(repeated\s+|optional\s+)?([A-Za-z_][\w.]*)\s+([A-Za-z_]\w*)\s*=\s*\d+", re.M)
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)

# How ClickHouse reads each protobuf scalar in a Kafka table of this warehouse (README "How
# protobuf fields become columns"): widths as in the .proto, 16-byte addresses as IPv6.
QUEUE_TYPES: dict[str, tuple[str, ...]] = {
    "string": ("String",),
    "bytes": ("String", "IPv6"),
    "bool": ("Bool",),
    "double": ("Float64",),
    "float": ("Float32",),
    "uint64": ("UInt64",),
    "fixed64": ("UInt64",),
    "uint32": ("UInt32",),
    "fixed32": ("UInt32",),
    "int64": ("Int64",),
    "sint64": ("Int64",),
    "sfixed64": ("Int64",),
    "int32": ("Int32",),
    "sint32": ("Int32",),
    "sfixed32": ("Int32",),
}
ENUM_QUEUE_TYPES = ("String",)  # enums are read as their value names


@dataclass(frozen=True)
class ProtoField:
    name: str
    proto_type: str  # scalar name, or the enum's name
    repeated: bool
    is_enum: bool

    def describe(self) -> str:
        return ("repeated " if self.repeated else "") + self.proto_type

    def queue_types(self) -> tuple[str, ...]:
        """The ClickHouse types a Kafka table column may have to read this field."""
        base = ENUM_QUEUE_TYPES if self.is_enum else QUEUE_TYPES.get(self.proto_type, ())
        return tuple(f"Array({t})" for t in base) if self.repeated else base


def _blocks(text: str) -> dict[tuple[str, str], str]:
    """(kind, name) -> body of every top-level message and enum."""
    found: dict[tuple[str, str], str] = {}
    position = 0
    while match := _BLOCK.search(text, position):
        depth, i = 1, match.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        found[(match.group(1), match.group(2))] = text[match.end() : i - 1]
        position = i
    return found


def message_fields(schemas_dir: Path, message: str) -> dict[str, ProtoField]:
    """Fields of ``message`` (``FILE:MESSAGE`` under ``schemas_dir``), by name, in file order."""
    file_name, _, message_name = message.partition(":")
    path = schemas_dir / file_name
    try:
        text = _COMMENT.sub("", path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise WarehouseError(f"cannot read {path} (message {message}): {exc.strerror}") from None
    blocks = _blocks(text)
    body = blocks.get(("message", message_name))
    if body is None:
        raise WarehouseError(f"{path} has no message {message_name}")
    enums = {name for kind, name in blocks if kind == "enum"}
    messages = {name for kind, name in blocks if kind == "message"}
    fields: dict[str, ProtoField] = {}
    for label, proto_type, name in _FIELD.findall(body):
        # A field of a message type declared in the same file reads as protoc names it: "message".
        kind = "message" if proto_type in messages else proto_type
        fields[name] = ProtoField(name, kind, label.strip() == "repeated", proto_type in enums)
    return fields
