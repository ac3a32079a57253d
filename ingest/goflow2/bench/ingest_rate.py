"""Ingest at line rate: a paced exporter -> the collector -> Kafka, for minutes (docs/BENCHMARKS.md).

    flink-jobs/bench/run.sh ingest [--seconds 300] [--rate 52000] [--no-nfcapd]

The exporter is the generator's `replay` (one socket, token bucket saving up at most 10 ms:
bursts of at most ~50 datagrams), sending a NetFlow v9 datagram file of the research-site
workload (built once into .cheetah/bench/; datagrams of at most --max-datagram bytes: at most 12
records, 10.3 on average, so 50,000 records/s are ~4,800 datagrams/s) again and again for
--seconds. The collector is the
stack's: cheetah-goflow2 from .cheetah/bin with the flags of Collector.command (flink-jobs/cli)
and the receive buffer of netflow.receive-buffer-bytes (--rcvbuf), publishing to the broker of
`./cheetah broker`. Reported (FIGURE lines, each with the load average and the command):

- what was sent (the sender's own count and rate);
- the records on flows.goflow2.v1, counted on the topic (end minus start offsets: the
  collector's producer is idempotent and not transactional, so one offset is one record), and
  how long after the last datagram the topic held them all;
- the kernel's drops at the collector's socket: its metric cheetah_goflow2_socket_drops_total
  and, independently, `ss -uam` for the port; the largest receive queue seen;
- the collector's CPU per record (/proc/PID/stat).

Then the same stream, same pace and duration, to `nfcapd -B` (nfdump), with its stored records
(`nfdump -I`), drops and CPU, and the ratio of the two.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "adapters"))

from confluent_kafka import Consumer, TopicPartition  # noqa: E402

from tests.kafka_broker import start_broker  # noqa: E402

TOPIC = "flows.goflow2.v1"
# The sender's token bucket may save up 10 ms (~50 datagrams): at ~5,000 datagrams/s a wake-up
# later than one datagram's 0.2 ms would otherwise lower the rate (measured: 45k instead of 50k).
DEPTH_MS = 10
TICKS = os.sysconf("SC_CLK_TCK")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def figure(name: str, value: str, command: str) -> None:
    print(f"FIGURE {name:<28} {value}\n       load {load()} | {command}", flush=True)


def say(text: str) -> None:
    print(f"ingest: {text}", file=sys.stderr, flush=True)


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process so far (its threads included)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def ss_drops(port: int) -> int:
    """The kernel's drop count of the UDP socket(s) on port, as `ss` reports it (skmem d<N>)."""
    out = subprocess.run(["ss", "-uamnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return sum(int(d) for d in re.findall(r"skmem:\([^)]*\bd(\d+)\)", out))


def metric_sum(page: str, name: str) -> float:
    return sum(
        float(line.rpartition(" ")[2])
        for line in page.splitlines()
        if line.startswith(name + "{") or line.startswith(name + " ")
    )


def free_udp_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def python() -> str:
    return os.environ.get("CHEETAH_PYTHON", str(ROOT / ".cheetah/venv/bin/python"))


def generator(*args: str, log: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "ingest/generator"))
    with open(log, "w") as err:
        return subprocess.run([python(), "-m", "cheetah_generator", *args], env=env, stderr=err, text=True, check=False)


def datagram_file(max_datagram: int) -> Path:
    """The research-site workload (seed 1, the generator's defaults) as v9 datagrams, built once."""
    out = ROOT / f".cheetah/bench/ingest-v9-seed1-max{max_datagram}.dg"
    if out.exists():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="ingest-dg-"))
    say(f"building {out} (the generator models the workload: ~10 s)")
    r = generator(
        "netflow", "--version", "9", "--seed", "1", "--max-datagram", str(max_datagram),
        "--datagrams-out", str(tmp / "v9.dg"), "--truth", str(tmp / "truth"), log=tmp / "gen.log",
    )  # fmt: skip
    if r.returncode != 0:
        raise RuntimeError(f"the generator failed: {(tmp / 'gen.log').read_text()[-2000:]}")
    shutil.move(tmp / "v9.dg", out)
    shutil.rmtree(tmp)
    return out


@dataclass
class Sent:
    records: int
    datagrams: int
    seconds: float


def send(dg: Path, port: int, rate: float, seconds: float, log: Path) -> Sent:
    r = generator(
        "replay", "--in", str(dg), "--target", f"127.0.0.1:{port}",
        "--rate", str(rate), "--pps", "0", "--depth-ms", str(DEPTH_MS), "--seconds", str(seconds), log=log,
    )  # fmt: skip
    text = log.read_text()
    m = re.findall(r"^done: (\d+) records in (\d+) datagrams.* ([\d.]+) s$", text, re.M)
    if r.returncode != 0 or not m:
        raise RuntimeError(f"the sender failed (exit {r.returncode}): {text[-2000:]}")
    records, datagrams, secs = m[-1]
    return Sent(int(records), int(datagrams), float(secs))


@dataclass
class Sampler:
    """Reads the collector's metrics and the socket's queue once a second while the stream runs."""

    url: str
    port: int
    max_queued: float = 0.0
    samples: list[tuple[float, float, float]] = field(default_factory=list)  # (t, drops, published)
    _stop: threading.Event = field(default_factory=threading.Event)

    def page(self) -> str:
        with urllib.request.urlopen(self.url, timeout=10) as r:
            return str(r.read().decode())

    def run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                p = self.page()
            except OSError:
                continue
            self.max_queued = max(self.max_queued, metric_sum(p, "cheetah_goflow2_socket_queued_bytes"))
            self.samples.append(
                (
                    time.monotonic(),
                    metric_sum(p, "cheetah_goflow2_socket_drops_total"),
                    metric_sum(p, "cheetah_goflow2_flows_published_total"),
                )
            )

    def __enter__(self) -> Sampler:
        self._thread = threading.Thread(target=self.run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def topic_records(bootstrap: str) -> int:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "ingest-bench-count", "enable.auto.commit": False})
    try:
        parts = c.list_topics(TOPIC, timeout=30).topics[TOPIC].partitions
        total = 0
        for p in parts:
            low, high = c.get_watermark_offsets(TopicPartition(TOPIC, p), timeout=30)
            total += high - low
        return total
    finally:
        c.close()


def collector_command(binary: Path, port: int, rcvbuf: int, bootstrap: str) -> list[str]:
    """Collector.command's flags (flink-jobs/cli), with the metrics port picked by the collector."""
    return [
        str(binary), "-listen", f"netflow://127.0.0.1:{port}?workers=1", "-rcvbuf", str(rcvbuf),
        "-addr", "127.0.0.1:0", "-templates.path", "", "-format", "bin", "-transport", "kafka",
        "-transport.kafka.brokers", bootstrap, "-transport.kafka.topic", TOPIC,
        "-transport.kafka.hashing", "-key", "sampler_address", "-transport.kafka.flushfreq", "500ms",
        "-rejected.kafka.brokers", bootstrap, "-rejected.kafka.topic", "flows.rejected.v1",
        "-strict=true", "-loglevel", "warn",
    ]  # fmt: skip


def wait_until(what: str, cond, timeout: float, every: float = 0.5) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(every)  # polling a condition, with a deadline
    say(f"gave up waiting for {what} after {timeout:.0f} s")
    return False


def run_collector(args: argparse.Namespace, dg: Path, work: Path, command: str) -> float:
    """cheetah-goflow2 + broker; prints its figures; returns its stored records per second."""
    binary = ROOT / ".cheetah/bin/cheetah-goflow2"
    if not binary.exists():
        raise RuntimeError(f"no {binary}: run ./cheetah setup")
    broker = start_broker(work / "broker.log")
    port = free_udp_port()
    log = open(work / "collector.log", "w")
    proc = subprocess.Popen(
        collector_command(binary, port, args.rcvbuf, broker.bootstrap),
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, text=True,
    )  # fmt: skip
    try:
        ready = json.loads(proc.stdout.readline() if proc.stdout else "{}")
        if ready.get("event") != "ready":
            raise RuntimeError(f"the collector did not start: {(work / 'collector.log').read_text()[-2000:]}")
        url = f"http://{ready['metrics_addr']}/metrics"
        say(
            f"cheetah-goflow2 on udp 127.0.0.1:{port}, receive buffer {ready['rcvbuf_bytes']:,} bytes granted"
            f" (-rcvbuf {args.rcvbuf:,}); sending {args.rate:,.0f} records/s for {args.seconds:.0f} s"
        )
        cpu0 = cpu_seconds(proc.pid)
        with Sampler(url, port) as sampler:
            sent = send(dg, port, args.rate, args.seconds, work / "sender-goflow2.log")
            t_end = time.monotonic()
            say(f"sent {sent.records:,} records in {sent.datagrams:,} datagrams; waiting for the topic")
            last = [-1]

            def settled() -> bool:
                n = topic_records(broker.bootstrap)
                done = n >= sent.records or n == last[0]
                last[0] = n
                return done

            wait_until("the topic to hold every record", settled, 300, every=2.0)
            drain_s = time.monotonic() - t_end
        cpu = cpu_seconds(proc.pid) - cpu0
        page = sampler.page()
        drops = int(metric_sum(page, "cheetah_goflow2_socket_drops_total"))
        kernel = ss_drops(port)
        decoded = int(metric_sum(page, "goflow2_flow_traffic_packets_total"))
        on_topic = topic_records(broker.bootstrap)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
        broker.stop()
    rate = on_topic / sent.seconds
    figure(
        "ingest.sent",
        f"{sent.records:,} records in {sent.datagrams:,} datagrams in {sent.seconds:.1f} s:"
        f" {sent.records / sent.seconds:,.0f} records/s, {sent.datagrams / sent.seconds:,.0f} datagrams/s",
        command,
    )
    figure(
        "ingest.goflow2.on_topic",
        f"{on_topic:,} of {sent.records:,} records on {TOPIC} ({sent.records - on_topic:,} missing):"
        f" {rate:,.0f} records/s over the send; all there {drain_s:.1f} s after the last datagram",
        command,
    )
    figure(
        "ingest.goflow2.kernel_drops",
        f"{drops:,} (metric cheetah_goflow2_socket_drops_total), {kernel:,} (ss -uam);"
        f" {sent.datagrams - decoded:,} datagrams sent but not decoded; largest receive queue"
        f" {sampler.max_queued:,.0f} of {ready['rcvbuf_bytes']:,} bytes",
        command,
    )
    figure(
        "ingest.goflow2.cpu",
        f"{cpu:.1f} cpu-s: {1e6 * cpu / max(1, on_topic):.2f} us per record,"
        f" {on_topic / max(cpu, 1e-9):,.0f} records per cpu-s (collector process only)",
        command,
    )
    return on_topic / max(cpu, 1e-9)


def run_nfcapd(args: argparse.Namespace, dg: Path, work: Path, command: str, goflow2_per_cpu: float) -> None:
    nfcapd, nfdump = shutil.which("nfcapd"), shutil.which("nfdump")
    if not nfcapd or not nfdump:
        say("no nfcapd/nfdump installed (apt nfdump): skipping the comparison")
        return
    port = free_udp_port()
    flows = work / "nfcapd"
    flows.mkdir()
    log = open(work / "nfcapd.log", "w")
    proc = subprocess.Popen(
        [nfcapd, "-b", "127.0.0.1", "-p", str(port), "-w", str(flows), "-t", "3600", "-B", str(args.rcvbuf)],
        stdin=subprocess.DEVNULL, stdout=log, stderr=log,
    )  # fmt: skip
    try:
        if not wait_until("nfcapd to listen", lambda: f":{port:04X} " in Path("/proc/net/udp").read_text().upper(), 30):
            raise RuntimeError(f"nfcapd did not start: {(work / 'nfcapd.log').read_text()[-2000:]}")
        say(f"nfcapd -B {args.rcvbuf} on udp 127.0.0.1:{port}: the same stream")
        cpu0 = cpu_seconds(proc.pid)
        sent = send(dg, port, args.rate, args.seconds, work / "sender-nfcapd.log")
        wait_until("nfcapd to drain its socket", lambda: ss_queue(port) == 0, 60)
        kernel = ss_drops(port)
        cpu = cpu_seconds(proc.pid) - cpu0
    finally:
        proc.send_signal(signal.SIGTERM)  # flushes and closes its file
        proc.wait(120)
        log.close()
    out = subprocess.run([nfdump, "-R", str(flows), "-I"], capture_output=True, text=True, check=True).stdout
    m = re.search(r"^Flows:\s*(\d+)", out, re.M)
    stored = int(m.group(1)) if m else -1
    figure(
        "ingest.nfcapd.stored",
        f"{stored:,} of {sent.records:,} records stored ({sent.records - stored:,} missing),"
        f" {kernel:,} kernel drops (ss -uam), {cpu:.1f} cpu-s: {stored / max(cpu, 1e-9):,.0f} records per cpu-s",
        command,
    )
    figure(
        "ratio.nfcapd/goflow2_cpu",
        f"cheetah-goflow2 uses {(stored / max(cpu, 1e-9)) / goflow2_per_cpu:.1f} x the CPU per record of nfcapd"
        f" (goflow2 decodes to protobuf and publishes to Kafka; nfcapd writes a local file)",
        command,
    )


def ss_queue(port: int) -> int:
    out = subprocess.run(["ss", "-uamnH", f"sport = :{port}"], capture_output=True, text=True, check=True).stdout
    return sum(int(r) for r in re.findall(r"skmem:\(r(\d+),", out))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=300.0, help="how long the exporter sends (default 300)")
    ap.add_argument(
        "--rate",
        type=float,
        default=52000.0,
        help="records per second asked of the sender (default 52000: under load it reaches ~98 %% of its"
        " pace, so that at least 50,000 go out)",
    )
    ap.add_argument(
        "--max-datagram", type=int, default=700, help="datagram size limit, bytes (default 700: 12 records)"
    )
    ap.add_argument("--rcvbuf", type=int, required=True, help="-rcvbuf / nfcapd -B (netflow.receive-buffer-bytes)")
    ap.add_argument("--no-nfcapd", action="store_true", help="skip the comparison with nfcapd")
    args = ap.parse_args()
    command = f"flink-jobs/bench/run.sh ingest --seconds {args.seconds:g} --rate {args.rate:g}"
    dg = datagram_file(args.max_datagram)
    with tempfile.TemporaryDirectory(prefix="cheetah-bench-ingest-") as d:
        work = Path(d)
        try:
            per_cpu = run_collector(args, dg, work, command)
            if not args.no_nfcapd:
                run_nfcapd(args, dg, work, command, per_cpu)
        except Exception:
            keep = Path(tempfile.mkdtemp(prefix="cheetah-bench-ingest-failed-"))
            shutil.copytree(work, keep, dirs_exist_ok=True)
            say(f"failed; logs kept in {keep}")
            raise
    return 0


if __name__ == "__main__":
    sys.exit(main())
