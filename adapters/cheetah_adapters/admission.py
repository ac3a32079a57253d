"""Whether a command may be applied: decoding, signature, device, expiry, action, match.

Pure functions of the command, the keys, the device and the clock. Deduplication needs the
adapter's memory and sits between authentication and admission (see engine.py): a replayed
command is recognised only once its signature is known to be good.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError
from google.protobuf.unknown_fields import UnknownFieldSet

from cheetah_adapters.keys import Keys
from cheetah_adapters.messages import RedirectMessages
from cheetah_adapters.rules import InvalidMatch, Rule, rule_of
from cheetah_adapters.signing import signature_problem
from cheetah_adapters.targets.device import Device

# A command issued further ahead of the adapter's clock than this is refused: clocks disagree.
DEFAULT_MAX_CLOCK_SKEW_MS = 60_000


@dataclass(frozen=True)
class Refusal:
    reason: str  # a short code, counted: bad_signature, expired, ...
    detail: str  # for the ack and the log


@dataclass(frozen=True)
class Unauthentic:
    """A refused record, with what it claims to be (empty when it did not decode)."""

    refusal: Refusal
    claimed_id: str = ""
    claimed_device: str = ""
    expires_ms: int = 0


@dataclass(frozen=True)
class Removal:
    command_id: str
    rule_id: str  # the add command whose rule ends
    expires_ms: int


def authenticate(raw: bytes, messages: RedirectMessages, keys: Keys) -> Any | Unauthentic:
    """The decoded command when it is well-formed and correctly signed, else why not."""
    try:
        command = messages.command.FromString(raw)
    except DecodeError as e:
        return Unauthentic(Refusal("undecodable", f"not a RedirectCommand ({e}); {len(raw)} bytes kept in rejected.jsonl"))

    def refused(reason: str, detail: str) -> Unauthentic:
        return Unauthentic(Refusal(reason, detail), command.command_id, command.device_id, command.expires_ms)

    unknown = UnknownFieldSet(command)
    if len(unknown):
        numbers = sorted({f.field_number for f in unknown})
        return refused("unknown_fields", f"fields {numbers} are not in redirects.proto; update the adapter's schemas")
    problem = signature_problem(command, keys)
    if problem is not None:
        return refused(*problem)
    return command


def admit(
    command: Any, device_id: str, device: Device, messages: RedirectMessages, now_ms: int,
    max_clock_skew_ms: int = DEFAULT_MAX_CLOCK_SKEW_MS,
) -> Rule | Removal | Refusal:
    """What an authenticated, not yet applied command asks of this device, or why it is refused."""
    if command.device_id != device_id:
        return Refusal("other_device", f"command is for device {command.device_id!r}, this adapter drives {device_id!r}")
    if command.dry_run:
        return Refusal("dry_run", "dry-run commands are recorded by the redirect job, never applied")
    if command.expires_ms == 0:
        return Refusal("no_expiry", "command has no expires_ms; every rule must expire")
    if command.expires_ms <= now_ms:
        return Refusal("expired", f"expired {now_ms - command.expires_ms} ms before it arrived (expires_ms {command.expires_ms})")
    if command.issued_ms > now_ms + max_clock_skew_ms:
        return Refusal(
            "issued_in_future",
            f"issued_ms {command.issued_ms} is {command.issued_ms - now_ms} ms ahead of this adapter's clock; check NTP",
        )
    action = messages.action_name(command.action)
    if action == "REMOVE":
        if not command.replaces_command_id:
            return Refusal("invalid_command", "REMOVE without replaces_command_id")
        return Removal(command.command_id, command.replaces_command_id, command.expires_ms)
    if action not in device.actions:
        return Refusal("unsupported_action", f"{device.name} does not apply {action} (it applies {', '.join(sorted(device.actions))})")
    try:
        rule = rule_of(command, action)
    except InvalidMatch as e:
        return Refusal("invalid_match", str(e))
    why = device.unsupported(rule)
    if why is not None:
        return Refusal("unsupported_action", why)
    return rule
