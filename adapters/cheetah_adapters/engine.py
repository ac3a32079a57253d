"""The adapter: commands in, device changes and acks out (docs/REDIRECTS.md, docs/ADAPTERS.md).

Two phases. Replay (after a start): every retained command is read and folded into the desired
rule set without touching the device; then reconcile() makes the device match it, and the acks of
commands seen for the first time go out. Follow: each new command is applied at once and acked.
A command id is applied once; a redelivery is acked DUPLICATE and does nothing.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from cheetah_adapters.admission import Refusal, Removal, Unauthentic, admit, authenticate
from cheetah_adapters.keys import KeysFile
from cheetah_adapters.messages import RedirectMessages
from cheetah_adapters.rules import Rule, rule_of
from cheetah_adapters.state import AdapterState, StateDir
from cheetah_adapters.targets.device import Device, DeviceError

log = logging.getLogger("cheetah_adapters")


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass(frozen=True)
class Ack:
    command_id: str
    status: str  # APPLIED, DUPLICATE, REJECTED, FAILED
    detail: str
    expires_ms: int


class Adapter:
    def __init__(
        self, device: Device, device_id: str, messages: RedirectMessages, keys: KeysFile, state_dir: StateDir,
        send_ack: Callable[[Any], None], clock: Callable[[], int] = wall_ms,
    ) -> None:
        self.device = device
        self.device_id = device_id
        self.messages = messages
        self.keys = keys
        self.state_dir = state_dir
        self.send_ack = send_ack
        self.clock = clock
        self.counters: Counter[str] = Counter()
        self.state: AdapterState = state_dir.load()
        self.rules: dict[str, Rule] = {}
        for rule_id, raw in self.state.rules.items():
            command = messages.command.FromString(raw)
            self.rules[rule_id] = rule_of(command, messages.action_name(command.action))
        self.following = False
        self._deferred: list[Ack] = []

    # --- input ------------------------------------------------------------------------------

    def offer(self, key: bytes | None, value: bytes) -> None:
        """One record of redirects.commands.v1 (any device's)."""
        if key and key != self.device_id.encode():
            self.counters["other_device_skipped"] += 1
            return
        authenticated = authenticate(value, self.messages, self.keys.current())
        if isinstance(authenticated, Unauthentic):
            if not key and authenticated.claimed_device != self.device_id:
                self.counters["other_device_skipped"] += 1  # unkeyed and not claiming to be ours
                return
            self.counters["seen"] += 1
            if not self.following and self._answer_key(authenticated.claimed_id, value) in self.state.answered:
                self.counters["replayed_known"] += 1
                return
            self._refuse(authenticated.claimed_id, authenticated.expires_ms, authenticated.refusal, value)
            return
        command = authenticated
        if not key and command.device_id != self.device_id:
            self.counters["other_device_skipped"] += 1
            return
        self.counters["seen"] += 1
        cid = command.command_id
        if not cid:
            self._refuse("", command.expires_ms, Refusal("invalid_command", "command has no command_id"), value)
            return
        if cid in self.state.applied:
            if self.following:
                self.counters["duplicates"] += 1
                self._ack(Ack(cid, "DUPLICATE", "already applied; nothing done", command.expires_ms))
            else:
                self.counters["replayed_known"] += 1
            return
        if not self.following and cid in self.state.answered:
            self.counters["replayed_known"] += 1  # refused or failed before this restart: answered already
            return
        verdict = admit(command, self.device_id, self.device, self.messages, self.clock())
        if isinstance(verdict, Refusal):
            self._refuse(cid, command.expires_ms, verdict, value)
        elif isinstance(verdict, Removal):
            self._remove(verdict)
        elif verdict.rule_id in self.state.removed:
            self._refuse(cid, command.expires_ms, Refusal("already_removed", "a REMOVE for this rule was applied before it arrived"), value)
        else:
            self._add(verdict, value)

    # --- rules ------------------------------------------------------------------------------

    def _add(self, rule: Rule, raw: bytes) -> None:
        if self.following:
            fingerprint = self.device.fingerprint(rule)
            if not any(self.device.fingerprint(r) == fingerprint for r in self.rules.values()):
                try:
                    self.device.install(rule)
                except DeviceError as e:
                    self.counters["failed"] += 1
                    self._ack(Ack(rule.rule_id, "FAILED", str(e), rule.expires_ms))
                    return
        self.rules[rule.rule_id] = rule
        self.state.rules[rule.rule_id] = raw
        self._applied(Ack(rule.rule_id, "APPLIED", f"{rule.action} {rule.match.describe()}", rule.expires_ms))

    def _remove(self, removal: Removal) -> None:
        rule = self.rules.get(removal.rule_id)
        if rule is None:
            detail = f"rule {removal.rule_id} was not in force (never applied here, expired or already removed)"
        else:
            try:
                self._take_off(rule)
            except DeviceError as e:
                self.counters["failed"] += 1
                self._ack(Ack(removal.command_id, "FAILED", str(e), removal.expires_ms))
                return
            detail = f"removed rule {removal.rule_id}"
        self.state.removed[removal.rule_id] = max(removal.expires_ms, rule.expires_ms if rule else 0)
        self._applied(Ack(removal.command_id, "APPLIED", detail, removal.expires_ms))

    def _take_off(self, rule: Rule) -> None:
        """Drops a rule; its device entry goes when no other rule in force shares it."""
        fingerprint = self.device.fingerprint(rule)
        shared = any(self.device.fingerprint(r) == fingerprint for i, r in self.rules.items() if i != rule.rule_id)
        if self.following and not shared:
            for handle in self.device.installed().get(fingerprint, []):
                self.device.remove(fingerprint, handle)
        del self.rules[rule.rule_id]
        self.state.rules.pop(rule.rule_id, None)

    def expire(self) -> int:
        """Removes the rules whose expires_ms has passed (an adapter does it by itself)."""
        now = self.clock()
        due = [r for r in self.rules.values() if r.expires_ms <= now]
        for rule in due:
            try:
                self._take_off(rule)
                self.counters["expired_removed"] += 1
                log.info("rule %s expired: removed from %s", rule.rule_id, self.device.name)
            except DeviceError as e:
                self.counters["expiry_failed"] += 1
                log.error("rule %s expired but could not be removed: %s", rule.rule_id, e)
        if due:
            self._save()
        return len(due)

    def reconcile(self) -> dict[str, int]:
        """Makes the device hold exactly the rules in force, then sends the acks held back by replay."""
        self.device.prepare()
        self.expire()
        wanted: dict[str, list[Rule]] = {}
        for rule in self.rules.values():
            wanted.setdefault(self.device.fingerprint(rule), []).append(rule)
        report = Counter({"in_force": len(self.rules), "installed": 0, "removed": 0, "failed": 0})
        for fingerprint, handles in self.device.installed().items():
            extra = handles if fingerprint not in wanted else handles[1:]
            for handle in extra:
                self.device.remove(fingerprint, handle)
                report["removed"] += 1
        present = self.device.installed()
        failed_ids: dict[str, str] = {}
        for fingerprint, rules in wanted.items():
            if fingerprint in present:
                continue
            try:
                self.device.install(rules[0])
                report["installed"] += 1
            except DeviceError as e:
                report["failed"] += 1
                for rule in rules:
                    failed_ids[rule.rule_id] = str(e)
                    del self.rules[rule.rule_id]
                    self.state.rules.pop(rule.rule_id, None)
                    self.state.applied.pop(rule.rule_id, None)
                    log.error("reconcile: rule %s could not be installed: %s", rule.rule_id, e)
        self.following = True
        deferred, self._deferred = self._deferred, []
        for ack in deferred:
            if ack.command_id in failed_ids:
                self.counters["failed"] += 1
                self.counters["applied"] -= 1
                self._ack(Ack(ack.command_id, "FAILED", failed_ids[ack.command_id], ack.expires_ms))
            else:
                self._ack(ack)
        self.counters["reconcile_installed"] += report["installed"]
        self.counters["reconcile_removed"] += report["removed"]
        self._save()
        return dict(report)

    # --- acks and state -----------------------------------------------------------------------

    def _applied(self, ack: Ack) -> None:
        self.counters["applied"] += 1
        self.state.applied[ack.command_id] = ack.expires_ms
        self._ack(ack)

    @staticmethod
    def _answer_key(cid: str, raw: bytes) -> str:
        """What `answered` remembers a refusal by: its id, or for a record without one, its bytes."""
        return cid or "sha256:" + hashlib.sha256(raw).hexdigest()[:32]

    def _refuse(self, cid: str, expires_ms: int, refusal: Refusal, raw: bytes) -> None:
        if not cid:
            self.state.answered[self._answer_key(cid, raw)] = self.clock()  # kept the usual week after "expiry"
        self.counters[f"rejected.{refusal.reason}"] += 1
        log.warning("command %r refused (%s): %s", cid, refusal.reason, refusal.detail)
        self.state_dir.keep_rejected(
            {"at_ms": self.clock(), "command_id": cid, "reason": refusal.reason, "detail": refusal.detail, "payload_hex": raw.hex()}
        )
        self._ack(Ack(cid, "REJECTED", f"{refusal.reason}: {refusal.detail}", expires_ms))

    def _ack(self, ack: Ack) -> None:
        if not self.following:
            self._deferred.append(ack)
            return
        if ack.command_id:
            # Kept a week past expiry (state.py), counted from now at the earliest: a command refused
            # for having no expiry (0) or an old one would otherwise be pruned at once and answered
            # again on every restart's replay.
            self.state.answered[ack.command_id] = max(ack.expires_ms, self.clock())
        self._save()
        message = self.messages.ack(
            command_id=ack.command_id, device_id=self.device_id, status=self.messages.status_number(ack.status),
            detail=ack.detail, acked_ms=self.clock(), adapter=self.device.name,
        )
        self.send_ack(message)
        self.counters["acks_sent"] += 1

    def _save(self) -> None:
        self.state.prune(self.clock())
        self.state_dir.save(self.state)

    def summary(self) -> dict[str, Any]:
        rejected = {k.removeprefix("rejected."): v for k, v in sorted(self.counters.items()) if k.startswith("rejected.")}
        plain = {k: v for k, v in sorted(self.counters.items()) if not k.startswith("rejected.")}
        for name in ("seen", "applied", "duplicates", "failed", "acks_sent"):
            plain.setdefault(name, 0)
        return {**plain, "rejected": rejected, "rules_in_force": len(self.rules)}
