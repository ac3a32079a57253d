"""The incast guard on a receiver's access port (docs/INCAST.md): RWND_CAP commands guard receivers.

A RWND_CAP command names one receiver (its destination prefix, a host) and the buffer of its port
(`rwnd_bytes`; 0: the byte limit of the port's own root qdisc). Installing it writes the receiver's
settings into the guard's pinned maps: from then on its senders are counted and its ACKs capped to
their share (adapters/incast_bpf/policy.h). The entries read back from the maps name what is in
force, so reconcile needs no memory of its own. While the adapter runs, the port's qdisc backlog
feeds the data path, and one IncastGuardSample per guarded receiver goes to incast.guard.v1 each
--sample-interval.
"""

from __future__ import annotations

import argparse
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from cheetah_adapters.incast.guard import Guard, GuardError, address_key
from cheetah_adapters.rules import Rule
from cheetah_adapters.targets.device import DeviceError, Target

log = logging.getLogger("cheetah_adapters.incast")
SAMPLES_TOPIC = "incast.guard.v1"
INCAST_PROTO = "cheetah/v1/incast.proto"


@dataclass(frozen=True)
class IncastConfig:
    interface: str
    netns: str = ""
    mss: int = 1448  # 1 MSS in bytes (the 1-MSS window past 75 % occupancy)
    queue_poll_ms: float = 1.0  # how often the port's backlog is read into the data path
    sample_interval_s: float = 1.0  # how often samples go to incast.guard.v1 (0: never)
    samples_topic: str = SAMPLES_TOPIC


class IncastDevice:
    name = "incast"
    actions = frozenset({"RWND_CAP"})

    def __init__(self, config: IncastConfig, device_id: str = "", bootstrap: str = "",
                 client_options: dict[str, str] | None = None) -> None:
        self.config = config
        self.device_id = device_id
        self.bootstrap = bootstrap
        self.client_options = dict(client_options or {})  # --kafka-config: the adapter's credentials
        self.guard: Guard | None = None
        self.queue_limit = 0
        self.commands: dict[str, str] = {}  # receiver -> the command in force (for the samples)
        self._samples: threading.Thread | None = None
        self._stop = threading.Event()
        self.samples_sent = 0

    # --- the device -----------------------------------------------------------------------------

    def prepare(self) -> None:
        if self.guard is not None:
            return
        try:
            self.guard = Guard.attach(self.config.interface, self.config.netns)
            queue = self.guard.watch_queue(self.config.queue_poll_ms / 1000)
        except GuardError as e:
            raise DeviceError(str(e)) from None
        self.queue_limit = queue.limit_bytes
        log.info("incast guard on %s: root qdisc %s, limit %d bytes", self.config.interface, queue.kind, queue.limit_bytes)
        if self.bootstrap and self.config.sample_interval_s > 0:
            self._samples = threading.Thread(target=self._publish_samples, name="incast-samples", daemon=True)
            self._samples.start()

    def unsupported(self, rule: Rule) -> str | None:
        m = rule.match
        if m.dst is None or m.dst.prefixlen != m.dst.max_prefixlen:
            return f"RWND_CAP guards one receiver: its destination must be a host address, not {m.dst or 'any'}"
        if m.src is not None or m.src_port or m.dst_port or m.proto not in (0, 6):
            return f"RWND_CAP matches a receiver only (no source, ports or protocol but tcp): {m.describe()}"
        if rule.rwnd_bytes < 0 or rule.rwnd_bytes > 2**32:
            return f"rwnd_bytes {rule.rwnd_bytes} is not a buffer size"
        return None

    def _buffer(self, rule: Rule) -> int:
        if rule.rwnd_bytes:
            return rule.rwnd_bytes
        if not self.queue_limit:
            raise DeviceError(
                f"RWND_CAP with rwnd_bytes 0 takes the port buffer from the root qdisc's byte limit, but the root "
                f"qdisc of {self.config.interface} has none (use tbf or bfifo, or give rwnd_bytes)"
            )
        return self.queue_limit

    def fingerprint(self, rule: Rule) -> str:
        assert rule.match.dst is not None
        buffer = rule.rwnd_bytes or self.queue_limit
        return f"receiver {rule.match.dst.network_address} buffer {buffer} mss {self.config.mss}"

    def installed(self) -> dict[str, list[str]]:
        assert self.guard is not None
        return {f"receiver {address} buffer {s.buffer_bytes} mss {s.mss}": [address] for address, s in self.guard.receivers().items()}

    def install(self, rule: Rule) -> None:
        assert self.guard is not None and rule.match.dst is not None
        address = str(rule.match.dst.network_address)
        try:
            self.guard.set_receiver(address, self._buffer(rule), self.config.mss)
        except (GuardError, OSError) as e:
            raise DeviceError(f"guarding {address}: {e}") from None
        self.commands[address] = rule.rule_id

    def remove(self, fingerprint: str, handle: str) -> None:
        assert self.guard is not None
        try:
            self.guard.clear_receiver(handle)
        except OSError as e:
            raise DeviceError(f"unguarding {handle}: {e}") from None
        self.commands.pop(handle, None)

    def close(self) -> None:
        self._stop.set()
        if self._samples is not None:
            self._samples.join(timeout=10)
        if self.guard is not None:
            self.guard.stop_watch()

    # --- samples --------------------------------------------------------------------------------

    def samples(self, now_ms: int, sample_class: Any) -> list[Any]:
        """One IncastGuardSample per guarded receiver, now."""
        assert self.guard is not None
        peak = self.guard.take_max_backlog()
        out = []
        for address, c in self.guard.stats().items():
            out.append(sample_class(
                time_ms=now_ms, device_id=self.device_id, receiver=address_key(address),
                senders=c["senders"], senders_one_mss=c["senders_one_mss"], syn_acks_total=c["syn_acks"],
                releases_total=c["releases"], acks_seen_total=c["acks_seen"], acks_capped_total=c["acks_capped"],
                backlog_bytes=c.get("backlog_bytes", 0), max_backlog_bytes=peak, buffer_bytes=c["buffer_bytes"],
                share_bytes=c["share_bytes"], queue_drops_total=c.get("queue_drops", 0),
                command_id=self.commands.get(address, ""),
            ))
        return out

    def _publish_samples(self) -> None:
        from confluent_kafka import Producer

        from cheetah_adapters.messages import message_class

        sample_class = message_class(INCAST_PROTO, "IncastGuardSample")
        producer = Producer({"bootstrap.servers": self.bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 5,
                             **self.client_options})
        key = self.device_id.encode()

        def done(error: Any, _message: Any) -> None:
            if error is None:
                self.samples_sent += 1
            else:
                log.error("incast sample not delivered to %s: %s", self.config.samples_topic, error)

        try:
            while not self._stop.wait(self.config.sample_interval_s):
                try:
                    for sample in self.samples(time.time_ns() // 1_000_000, sample_class):
                        producer.produce(self.config.samples_topic, key=key, value=sample.SerializeToString(), on_delivery=done)
                except OSError as e:
                    log.error("incast guard: reading its counts failed: %s", e)
                producer.poll(0)
        finally:
            producer.flush(10)


def _add_arguments(g: argparse._ArgumentGroup) -> None:
    # --interface and --netns are shared with the tc target (same meaning: the port and its namespace).
    g.add_argument("--mss", type=int, default=1448, help="incast: 1 MSS in bytes, the window past 75 %% occupancy (default 1448)")
    g.add_argument("--queue-poll-ms", type=float, default=1.0, help="incast: how often the port's qdisc backlog is read (default 1 ms)")
    g.add_argument("--sample-interval", type=float, default=1.0, help="incast: seconds between samples on incast.guard.v1 (default 1; 0: none)")


def _make(args: argparse.Namespace, error: Callable[[str], None]) -> IncastDevice:
    if not args.interface:
        error("--target incast needs --interface (the receiver's access port, whose root qdisc is the bottleneck queue)")
    if args.mss <= 0 or args.queue_poll_ms <= 0 or args.sample_interval < 0:
        error("--mss and --queue-poll-ms must be positive, --sample-interval at least 0")
    config = IncastConfig(args.interface, args.netns, args.mss, args.queue_poll_ms, args.sample_interval)
    return IncastDevice(config, args.device, args.bootstrap, getattr(args, "client_options", None))


TARGET = Target("incast", "incast (receive-window guard, eBPF on tc)", _add_arguments, _make)
