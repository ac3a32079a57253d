"""Command -> ack latency of the tc adapter on a real broker (docs/BENCHMARKS.md, docs/ADAPTERS.md).

    sudo .cheetah/venv/bin/python adapters/bench/ack_latency.py [--commands 200]
    flink-jobs/bench/run.sh adapters [--commands 200]

The same parts as adapters/tests/test_kafka_end_to_end.py: the broker of `./cheetah broker`
(CHEETAH_BROKER_CMD overrides it), a veth pair in network namespaces with the adapter's HTB, the
adapter CLI. Signed commands are published one at a time; each is timed from the producer's
flush to its ack read back from redirects.acks.v1 (so the figure includes both Kafka hops and
the `tc filter add`). Prints `FIGURE` lines (p50, p95, max) with the load average; the test only
asserts that the median is far below a second, this is where the figure lives.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ADAPTERS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ADAPTERS))

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402

from cheetah_adapters import messages as messages_module  # noqa: E402
from cheetah_adapters.kafka_loop import ACKS_TOPIC, COMMANDS_TOPIC  # noqa: E402
from tests.adapter_process import AdapterProcess  # noqa: E402
from tests.kafka_broker import start_broker  # noqa: E402
from tests.namespaces import make_pair  # noqa: E402
from tests.signer import Signer, write_keys  # noqa: E402

DEVICE = "bench-1/veth"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def figure(name: str, value: str, command: str) -> None:
    print(f"FIGURE {name:<28} {value}\n       load {load()} | {command}", flush=True)


def percentile(sorted_ms: list[float], p: float) -> float:
    """Linear interpolation between closest ranks, h = (n - 1) p (numpy's default)."""
    h = (len(sorted_ms) - 1) * p
    low = int(h)
    high = min(low + 1, len(sorted_ms) - 1)
    return sorted_ms[low] + (h - low) * (sorted_ms[high] - sorted_ms[low])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=200, help="commands to time, one at a time (default 200)")
    args = parser.parse_args()
    if os.geteuid() != 0:
        print("ack_latency: needs root (network namespaces, tc)", file=sys.stderr)
        return 2
    messages = messages_module.load()
    signer = Signer(messages, DEVICE)
    with tempfile.TemporaryDirectory(prefix="cheetah-ack-bench-") as tmp:
        work = Path(tmp)
        keys = write_keys(work / "keys.json")
        print(f"machine: {os.cpu_count()} cores; load average {load()}", flush=True)
        broker = start_broker(work / "broker.log")
        pair = make_pair()
        adapter = None
        try:
            adapter = AdapterProcess(
                ["--target", "tc", "--device", DEVICE, "--bootstrap", broker.bootstrap, "--keys", str(keys),
                 "--state-dir", str(work / "state"), "--interface", pair.dev_a, "--netns", pair.a,
                 "--rate", "100mbit", "--scavenger-rate", "5mbit"],
                work / "adapter.log",
            )
            ready = adapter.next_event(60)
            assert ready["event"] == "ready", ready
            producer = Producer({"bootstrap.servers": broker.bootstrap, "enable.idempotence": True})
            acks = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "bench-acks", "enable.auto.commit": False})
            acks.assign([TopicPartition(ACKS_TOPIC, 0, OFFSET_BEGINNING)])
            latencies: list[float] = []
            for i in range(args.commands):
                command = signer.flow(f"bench-{i}", pair.ip_a, pair.ip_b, 10000 + i % 50000, 5201)
                producer.produce(COMMANDS_TOPIC, key=DEVICE.encode(), value=signer.sign(command))
                producer.flush(10)
                sent = time.monotonic()
                deadline = sent + 30
                while True:
                    assert time.monotonic() < deadline, f"no ack for bench-{i} within 30 s; see {work / 'adapter.log'}"
                    message = acks.poll(0.05)
                    if message is None or message.error():
                        continue
                    ack = messages.ack.FromString(message.value())
                    if ack.command_id == f"bench-{i}":
                        assert messages.status_name(ack.status) == "APPLIED", ack
                        latencies.append((time.monotonic() - sent) * 1000)
                        break
            acks.close()
            latencies.sort()
            command_line = f"adapters/bench/ack_latency.py --commands {args.commands}"
            figure("adapters.tc_ack_latency.p50", f"{statistics.median(latencies):.1f} ms over {len(latencies)} commands", command_line)
            figure("adapters.tc_ack_latency.p95", f"{percentile(latencies, 0.95):.1f} ms", command_line)
            figure("adapters.tc_ack_latency.max", f"{latencies[-1]:.1f} ms", command_line)
        finally:
            if adapter is not None:
                adapter.kill()
            pair.delete()
            broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
