"""cheetah adapter: apply signed redirect commands to one device (docs/ADAPTERS.md).

stdout carries JSON lines only: {"event":"ready",...} once the device is reconciled and the adapter
follows new commands, and {"event":"stopped","counters":{...}} on exit. Logs go to stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from cheetah_adapters import kafka_loop, messages
from cheetah_adapters.engine import Adapter
from cheetah_adapters.keys import KeysFile, KeysFileError
from cheetah_adapters.state import StateDir, StateError
from cheetah_adapters.targets import TARGETS
from cheetah_adapters.targets.device import Device, DeviceError

EPILOG = """\
examples:
  %(prog)s --target tc --device host1/eth1 --bootstrap 127.0.0.1:19092 --keys keys.json \\
      --interface eth1 --rate 10gbit --scavenger-rate 100mbit
  %(prog)s --target flowspec --device edge-rtr-1 --bootstrap 127.0.0.1:19092 --keys keys.json \\
      --gobgp-api 127.0.0.1:50051
  %(prog)s --target openflow --device sw-3 --bootstrap 127.0.0.1:19092 --keys keys.json \\
      --switch unix:/var/run/openvswitch/br0.mgmt --scavenger-queue 1
  %(prog)s --target openflow --device fabric-k4 --bootstrap 127.0.0.1:19092 --keys keys.json \\
      --fabric k4.yaml --fabric-switch-target 'unix:/var/run/openvswitch/{switch}.mgmt'
  %(prog)s --target incast --device tor-1/port-7 --bootstrap 127.0.0.1:19092 --keys keys.json \\
      --interface swp7 --mss 1448

The keys file (mode 0600) is the one the redirect job signs with: {"active": ID, "keys": {ID: HEX}}.
Exit status: 0 after SIGTERM/SIGINT, 2 for bad options or files, 1 when Kafka or the device fails.
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cheetah adapter", description="Consume redirects.commands.v1 for one device, verify, apply, ack on redirects.acks.v1.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--target", required=True, choices=list(TARGETS), help="what kind of device to drive")
    p.add_argument("--device", required=True, help="device id: only commands with this device_id are applied")
    p.add_argument("--bootstrap", required=True, help="Kafka bootstrap servers, HOST:PORT[,HOST:PORT]")
    p.add_argument("--keys", required=True, type=Path, help="the shared keys file (JSON, mode 0600)")
    p.add_argument(
        "--kafka-config", type=Path, metavar="FILE",
        help="librdkafka key=value settings for the consumer and the ack producer: the adapters' principal's "
        "credentials (security.protocol=SASL_SSL, sasl.mechanisms=SCRAM-SHA-512, sasl.username, sasl.password, "
        "ssl.ca.location; docs/DEPLOY.md, \"Security\"); keep it owner-only",
    )
    p.add_argument("--state-dir", type=Path, help="local state (default: .cheetah/adapters/TARGET-DEVICE under $CHEETAH_HOME or the working dir)")
    p.add_argument("--commands-topic", default=kafka_loop.COMMANDS_TOPIC)
    p.add_argument("--acks-topic", default=kafka_loop.ACKS_TOPIC)
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    for target in TARGETS.values():
        target.add_arguments(p.add_argument_group(target.title))
    return p


def make_device(args: argparse.Namespace, p: argparse.ArgumentParser) -> Device:
    return TARGETS[args.target].make(args, p.error)


def emit(line: dict[str, Any]) -> None:
    print(json.dumps(line), flush=True)


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    home = Path(os.environ.get("CHEETAH_HOME", "."))
    state_path = args.state_dir or home / ".cheetah" / "adapters" / f"{args.target}-{args.device.replace('/', '_')}"
    try:
        client_options = kafka_loop.read_client_options(args.kafka_config) if args.kafka_config else {}
    except kafka_loop.KafkaSetupError as e:
        print(f"cheetah adapter: {e}", file=sys.stderr)
        return 2
    args.client_options = client_options  # a target that publishes itself (incast's samples) uses them too
    try:
        device = make_device(args, p)
        keys = KeysFile(args.keys)
        state_dir = StateDir(state_path, f"{args.target}/{args.device}")
    except (KeysFileError, StateError, DeviceError) as e:
        print(f"cheetah adapter: {e}", file=sys.stderr)
        return 2
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    adapter = Adapter(device, args.device, messages.load(), keys, state_dir, send_ack=lambda ack: None)
    status = 0
    acks = None
    try:
        acks = kafka_loop.run(
            adapter, args.bootstrap, args.device, stop,
            on_ready=lambda report: emit({"event": "ready", "target": args.target, "device": args.device, "reconcile": report}),
            topic=args.commands_topic, acks_topic=args.acks_topic, client_options=client_options,
        )
    except (kafka_loop.KafkaSetupError, DeviceError, StateError) as e:
        print(f"cheetah adapter: {e}", file=sys.stderr)
        status = 1
    finally:
        counters = adapter.summary()
        if acks is not None:
            counters["acks_delivered"], counters["acks_undelivered"] = acks.delivered, acks.failed
        close = getattr(device, "close", None)
        if close is not None:
            close()  # a device with threads of its own (incast: queue watch, samples) stops them
        emit({"event": "stopped", "counters": counters})
        state_dir.close()
    return status


if __name__ == "__main__":
    sys.exit(main())
