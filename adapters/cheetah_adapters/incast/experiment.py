"""cheetah incast-experiment: incast collapse behind a shallow-buffer port, with and without the
incast guard (docs/INCAST.md).

For each sender count N and each guard setting, several seeded runs: the aggregator opens one
TCP connection per sender (before any timing, so the guard has counted their SYN-ACKs), then
sends R synchronized requests; each sender answers a fixed block through the switch port towards
the receiver (tbf: rate, byte limit B). Per request: the completion time (RCT, until the last
byte of the last block), goodput N*block/RCT, and from the kernel the senders' retransmission
timeouts, tail loss probes and retransmitted segments, and the bottleneck queue's drops.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

from cheetah_adapters.incast import counters, report, topology
from cheetah_adapters.incast.topology import PORT_TO_RECEIVER, RECEIVER_IP, Bottleneck, Topology
from cheetah_adapters.incast.workload import MIN_BLOCK, Aggregator, WorkloadError

log = logging.getLogger("incast-experiment")

MSS = 1448  # MTU 1500 less IPv4, TCP and timestamp headers
PORT = 5001
ADAPTERS_DIR = Path(__file__).resolve().parents[2]


class ExperimentError(RuntimeError):
    pass


@dataclass(frozen=True)
class Config:
    senders: list[int]
    guard: list[str]  # "off", "on"
    seeds: list[int]
    requests: int = 20
    block_bytes: int = 131072
    buffer_bytes: int = 131072
    rate: str = "100mbit"
    jitter_us: int = 200
    congestion: str = "cubic"
    quickack: bool = False
    request_deadline_s: float = 60.0


@dataclass
class Run:
    senders: int
    guard: str
    seed: int
    rct_s: list[float] = field(default_factory=list)  # per request
    timeouts: list[int] = field(default_factory=list)  # per request, summed over senders
    loss_probes: list[int] = field(default_factory=list)
    retrans: list[int] = field(default_factory=list)
    drops: list[int] = field(default_factory=list)  # the bottleneck qdisc's drops during the request
    bytes_ok: bool = True  # every block of every request arrived complete (counted)
    bytes_received: int = 0
    guard_stats: dict[str, Any] = field(default_factory=dict)


class Lab:
    """The topology for the largest N and one sender process per sender namespace."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.topo: Topology | None = None
        self.procs: list[subprocess.Popen[str]] = []

    def __enter__(self) -> Lab:
        try:
            self.topo = topology.build(max(self.cfg.senders), Bottleneck(rate=self.cfg.rate, buffer_bytes=self.cfg.buffer_bytes))
            env = dict(os.environ, PYTHONPATH=str(ADAPTERS_DIR))
            for i in range(self.topo.senders):
                self.procs.append(subprocess.Popen(
                    ["ip", "netns", "exec", self.topo.sender(i), sys.executable, "-m", "cheetah_adapters.incast.workload",
                     "--index", str(i), "--listen", topology.sender_ip(i), "--port", str(PORT), "--congestion", self.cfg.congestion],
                    stdout=subprocess.PIPE, text=True, env=env,
                ))
            for i, p in enumerate(self.procs):
                assert p.stdout is not None
                line = p.stdout.readline()  # the sender prints "ready" once it listens, or dies
                if line.strip() != "ready":
                    raise ExperimentError(f"sender {i} did not start (exit {p.poll()}); its error is above")
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        self.procs.clear()
        if self.topo is not None:
            self.topo.delete()
            self.topo = None

    def check_senders(self, n: int) -> None:
        for i, p in enumerate(self.procs[:n]):
            if p.poll() is not None:
                raise ExperimentError(f"sender {i} exited ({p.returncode}); its error is above")

    def sender_counters(self, n: int) -> list[dict[str, int]]:
        return [counters.read(p.pid) for p in self.procs[:n]]

    def connect(self, n: int) -> Aggregator:
        assert self.topo is not None
        socks = []
        try:
            for i in range(n):
                s = topology.socket_in(self.topo.receiver)
                socks.append(s)
                s.settimeout(10)
                s.connect((topology.sender_ip(i), PORT))
        except OSError as e:
            for s in socks:
                s.close()
            raise ExperimentError(f"connecting to sender {len(socks) - 1} at {topology.sender_ip(len(socks) - 1)}:{PORT}: {e}") from e
        return Aggregator(socks, self.cfg.block_bytes, self.cfg.request_deadline_s, self.cfg.quickack)


class GuardSession:
    """The incast guard on the bottleneck port for one run (cheetah_adapters.incast.guard)."""

    def __init__(self, topo: Topology, buffer_bytes: int) -> None:
        try:
            from cheetah_adapters.incast.guard import Guard, GuardError
        except ImportError as e:
            raise ExperimentError(f"the incast guard is not available ({e}); run with --guard off") from e
        try:
            self.guard = Guard.attach(interface=PORT_TO_RECEIVER, netns=topo.switch)
        except GuardError as e:
            raise ExperimentError(f"incast guard: {e}") from e
        try:
            self.guard.set_receiver(RECEIVER_IP, buffer_bytes=buffer_bytes, mss=MSS)
            self.guard.watch_queue(interval_s=0.001)
        except GuardError as e:
            self.guard.detach()
            raise ExperimentError(f"incast guard: {e}") from e
        except BaseException:
            self.guard.detach()
            raise

    def stats(self) -> dict[str, Any]:
        return dict(self.guard.stats().get(RECEIVER_IP, {}))

    def close(self) -> None:
        self.guard.detach()


def run_one(lab: Lab, n: int, guard: str, seed: int) -> Run:
    cfg = lab.cfg
    assert lab.topo is not None
    run = Run(senders=n, guard=guard, seed=seed)
    rng = random.Random(seed * 100003 + n)  # same order and jitter with the guard off and on
    session = GuardSession(lab.topo, cfg.buffer_bytes) if guard == "on" else None
    try:
        agg = lab.connect(n)
        try:
            # Warm-up, untimed: every sender answers a header only, so each has seen the receiver
            # ACK new data with the guard's share for all N connections. Before it a sender holds
            # the window of its handshake's ACK (a share for fewer senders): Linux takes a smaller
            # window only from a segment that advances the sequence or the ACK (tcp_input.c,
            # tcp_may_update_window), and the request, sent at that ACK's sequence, does neither.
            agg.request(0, list(range(n)), [0] * n, block=MIN_BLOCK)
            for r in range(cfg.requests):
                order = rng.sample(range(n), n)
                delays = [rng.randint(0, cfg.jitter_us) for _ in range(n)]
                before_q = lab.topo.qdisc_stats()["drops"]
                before = counters.total(lab.sender_counters(n))
                try:
                    res = agg.request(r + 1, order, delays)
                except WorkloadError:
                    lab.check_senders(n)
                    raise
                d = counters.delta(counters.total(lab.sender_counters(n)), before)
                run.rct_s.append(res.rct_s)
                run.timeouts.append(d["timeouts"])
                run.loss_probes.append(d["loss_probes"])
                run.retrans.append(d["retrans"])
                run.drops.append(lab.topo.qdisc_stats()["drops"] - before_q)
                run.bytes_received += sum(res.bytes_received)
                run.bytes_ok &= all(b == cfg.block_bytes for b in res.bytes_received)
            if session is not None:
                run.guard_stats = session.stats()  # before the FINs release the senders' shares
        finally:
            agg.close()
    finally:
        if session is not None:
            session.close()
    return run


def run_all(cfg: Config, progress: Callable[[Run], None] = lambda r: None) -> list[Run]:
    runs = []
    with Lab(cfg) as lab:
        for n in cfg.senders:
            for guard in cfg.guard:
                for seed in cfg.seeds:
                    run = run_one(lab, n, guard, seed)
                    progress(run)
                    runs.append(run)
    return runs


def _int_list(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        if "-" in part:
            lo, hi = part.split("-", 1)
            out.extend(range(int(lo), int(hi) + 1))
        elif part:
            out.append(int(part))
    return out


def _size(text: str) -> int:
    units = {"k": 1024, "m": 1024 * 1024}
    t = text.strip().lower().removesuffix("b")
    return int(float(t[:-1]) * units[t[-1]]) if t and t[-1] in units else int(t)


EPILOG = """\
examples:
  %(prog)s                                    # the docs/INCAST.md run (N = 1..32, guard off and on)
  %(prog)s --senders 8 --guard off --seeds 1 --requests 5
  %(prog)s --senders 1,2,4,8,16,32 --buffer 32k --block 256k --plot docs/img/incast.svg

Needs root (network namespaces, veths, tc). Writes DIR/incast.json (every request), incast.csv
and incast.md (the summary table), and the plot (SVG). Exit status 0, 2 for bad options,
1 when the experiment fails (a block incomplete, a sender dead, the guard unavailable).
"""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cheetah incast-experiment", epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Incast collapse behind a shallow-buffer switch port, with and without the incast guard (docs/INCAST.md).",
    )
    p.add_argument("--senders", type=_int_list, default=[1, 2, 4, 8, 12, 16, 24, 32], help="sender counts N, e.g. 1,2,4,8 or 1-8 (default %(default)s)")
    p.add_argument("--guard", choices=["off", "on", "both"], default="both", help="runs without the guard, with it, or both (default)")
    p.add_argument("--seeds", type=int, default=3, help="seeded runs per (N, guard): seeds 1..S (default %(default)s)")
    p.add_argument("--requests", type=int, default=20, help="requests per run (default %(default)s)")
    p.add_argument("--block", type=_size, default=Config.block_bytes, help="bytes each sender answers, e.g. 128k (default %(default)s)")
    p.add_argument("--buffer", type=_size, default=Config.buffer_bytes, help="the port buffer B: the bottleneck queue's byte limit (default %(default)s)")
    p.add_argument("--rate", default=Config.rate, help="the bottleneck's rate, tc units (default %(default)s)")
    p.add_argument("--jitter-us", type=int, default=Config.jitter_us, help="each sender waits a seeded 0..J µs before answering (default %(default)s)")
    p.add_argument("--congestion", default=Config.congestion, help="the senders' TCP congestion control (default %(default)s)")
    p.add_argument("--quickack", action="store_true", help="the receiver ACKs every segment at once (TCP_QUICKACK after each read) instead of delaying ACKs")
    home = Path(os.environ.get("CHEETAH_HOME", "."))
    p.add_argument("--out", type=Path, default=home / ".cheetah" / "incast", help="folder for incast.json/.csv/.md (default %(default)s)")
    p.add_argument("--plot", type=Path, help="the plot (SVG; default OUT/incast.svg)")
    p.add_argument("--log-level", default="INFO", choices=["DEBUG", "INFO", "WARNING", "ERROR"])
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(asctime)s %(message)s")
    if not args.senders or min(args.senders) < 1 or max(args.senders) > topology.MAX_SENDERS:
        p.error(f"--senders must be 1..{topology.MAX_SENDERS}")
    if args.block < MIN_BLOCK:
        p.error(f"--block must be at least {MIN_BLOCK} bytes")
    if args.seeds < 1 or args.requests < 1:
        p.error("--seeds and --requests must be at least 1")
    if os.geteuid() != 0:
        print("cheetah incast-experiment: needs root (network namespaces, veths, tc)", file=sys.stderr)
        return 2
    cfg = Config(
        senders=sorted(set(args.senders)), guard=["off", "on"] if args.guard == "both" else [args.guard],
        seeds=list(range(1, args.seeds + 1)), requests=args.requests, block_bytes=args.block,
        buffer_bytes=args.buffer, rate=args.rate, jitter_us=args.jitter_us, congestion=args.congestion,
        quickack=args.quickack,
    )

    def progress(run: Run) -> None:
        row = report.summarize(cfg, [run])[0]
        log.info("N=%d guard=%s seed=%d: RCT mean %.1f ms, goodput %.1f Mb/s, timeouts/request %.2f, drops/request %.1f%s",
                 run.senders, run.guard, run.seed, row["rct_ms_mean"], row["goodput_mbps"], row["timeouts_per_request"],
                 row["drops_per_request"], "" if run.bytes_ok else "  BLOCKS INCOMPLETE")

    started = time.time()
    try:
        runs = run_all(cfg, progress)
    except (ExperimentError, WorkloadError, topology.TopologyError, OSError) as e:
        print(f"cheetah incast-experiment: {e}", file=sys.stderr)
        return 1
    rows = report.summarize(cfg, runs)
    args.out.mkdir(parents=True, exist_ok=True)
    meta = {"config": asdict(cfg), "started": started, "seconds": round(time.time() - started, 1), "kernel": os.uname().release}
    (args.out / "incast.json").write_text(json.dumps({"meta": meta, "rows": rows, "runs": [asdict(r) for r in runs]}, indent=1) + "\n")
    (args.out / "incast.csv").write_text(report.csv_text(rows))
    table = report.markdown_table(rows)
    (args.out / "incast.md").write_text(table)
    plot = args.plot or args.out / "incast.svg"
    plot.parent.mkdir(parents=True, exist_ok=True)
    plot.write_text(report.svg(cfg, rows))
    print(table)
    print(f"wrote {args.out}/incast.json, incast.csv, incast.md and {plot} ({meta['seconds']} s)")
    return 0 if all(r.bytes_ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
