"""Command line: netflow, pcap, catch, replay.  `python -m cheetah_generator COMMAND --help`."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import signal
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from .catcher import DatagramCatcher, describe
from .dgram_file import StoredDatagram, read_datagrams
from .netflow_run import run_netflow
from .pacing import CollectorWindow, Pace, Progress, parse_target, send_paced
from .params import DEFAULT_TIME_BASE_MS, ExportParams, TruthParams, WorkloadParams
from .scenario import WORKLOADS

# The probe-scale pcap workload: 20 MB within 10 s intervals (a 5-minute trace at ~200 Mb/s).
PCAP_TRUTH = TruthParams(h_bytes=20_000_000, interval_ms=10_000)

DESCRIPTION = """\
Cheetah traffic generator. Models a research site's traffic (mice, real-time
flows, parallel dataset transfers between sites in 198.18.0.0/15), exports it
as real NetFlow v9 / IPFIX datagrams with virtual timestamps, paced, and
writes the ground truth (truth.json, cheetahs.csv, flowsets.csv) computed
from the model: cheetah = >= H bytes within one epoch-aligned interval I;
flowsets = cheetahs of one (src, dst) whose starts are <= tau apart.
"""

EPILOG = """\
examples:
  python -m cheetah_generator netflow --target 127.0.0.1:2055 --version 9 --seed 7 --truth /tmp/truth
  python -m cheetah_generator netflow --version 10 --sampling 100 --dry-run --truth /tmp/truth
  python -m cheetah_generator netflow --version 9 --datagrams-out /tmp/v9.dg --truth /tmp/truth
  python -m cheetah_generator replay --in /tmp/v9.dg --target 127.0.0.1:2055 --rate 4000
  python -m cheetah_generator pcap --out /tmp/small.pcap --truth /tmp/ptruth
  python -m cheetah_generator catch --listen 127.0.0.1:9995 --out /tmp/soft.dg --idle 2
"""


def _time_base(text: str) -> int:
    """Epoch ms, or an ISO-8601 UTC time such as 2026-11-01T23:00:00Z."""
    if text.lstrip("-").isdigit():
        return int(text)
    try:
        t = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError as e:
        raise argparse.ArgumentTypeError(
            f"time base {text!r}: give epoch ms or ISO-8601, e.g. 2026-11-01T23:00:00Z"
        ) from e
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    return int(t.timestamp() * 1000)


def _pace_value(text: str) -> float:
    """A rate for --rate/--pps: 0 means no limit."""
    v = float(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"{text}: must be >= 0 (0: no limit)")
    return v


def _positive_float(text: str) -> float:
    v = float(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"{text}: must be > 0")
    return v


def _sampling(text: str) -> tuple[int, ...]:
    """N, or N1,N2,... (one per exporter)."""
    try:
        rates = tuple(int(x) for x in text.split(","))
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"sampling {text!r}: give 1:N as N, or one N per exporter as N1,N2") from e
    if any(n < 1 for n in rates):
        raise argparse.ArgumentTypeError(f"sampling {text!r}: every N must be >= 1")
    return rates


def _add_truth_args(p: argparse.ArgumentParser, tp: TruthParams) -> None:
    g = p.add_argument_group("truth definitions (docs/ARCHITECTURE.md, \"Definitions and defaults\")")
    g.add_argument("--h-bytes", type=float, default=float(tp.h_bytes), help="cheetah threshold H, bytes within one interval")
    g.add_argument(
        "--interval-s", type=_positive_float, default=tp.interval_ms / 1000, help="interval I in seconds, aligned to the epoch"
    )
    g.add_argument("--tau-s", type=float, default=tp.tau_ms / 1000, help="flowset start gap tau, seconds")
    g.add_argument("--gap-s", type=float, default=tp.gap_ms / 1000, help="stitching gap G in seconds (reported in the truth)")


def _add_pace_args(p: argparse.ArgumentParser, rate: float | None, pps: float | None) -> None:
    g = p.add_argument_group("pacing (token bucket, no bursts) or flow control (--follow)")
    g.add_argument(
        "--rate",
        type=_pace_value,
        default=None,
        help=f"flow records per second, 0: no limit (default: {rate if rate else 'none'}; none with --follow)%(default).0s",
    )
    g.add_argument(
        "--pps",
        type=_pace_value,
        default=None,
        help=f"datagrams per second, 0: no limit (default: {pps if pps else 'none'}; none with --follow)%(default).0s",
    )
    g.set_defaults(default_rate=rate, default_pps=pps)
    g.add_argument(
        "--depth-ms",
        type=_pace_value,
        default=0.0,
        help="sending time the token bucket may save up, ms (0: one datagram): at thousands of datagrams"
        " per second, a late wake-up is made up by this much of a burst instead of lowering the rate",
    )
    g.add_argument(
        "--follow",
        metavar="METRICS_URL",
        help="flow control: send as fast as the collector at --target takes datagrams in, reading its"
        " counters from this URL (cheetah-goflow2's /metrics); at most --window datagrams in flight%(default).0s",
    )
    g.add_argument(
        "--window",
        type=int,
        help="datagrams in flight with --follow (default: half of what the collector's granted"
        " receive buffer holds, so the kernel cannot drop even if the collector stalls)%(default).0s",
    )
    g.add_argument("--allow-remote", action="store_true", help="allow a --target other than 127.0.0.1")
    g.add_argument("--quiet", action="store_true", help="no progress on stderr")


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m cheetah_generator",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = ap.add_subparsers(dest="command", required=True)

    nf = sub.add_parser(
        "netflow",
        help="model traffic, write the truth, export NetFlow v9 / IPFIX",
        description="Model a research site's traffic and export it as NetFlow v9 or IPFIX with ground truth.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    out = nf.add_argument_group("output")
    out.add_argument("--target", help="collector HOST:PORT (127.0.0.1 only unless --allow-remote)")
    out.add_argument("--truth", type=Path, help="directory for truth.json, cheetahs.csv, flowsets.csv")
    out.add_argument("--dry-run", action="store_true", help="write the truth only, send nothing")
    out.add_argument(
        "--datagrams-out", type=Path, help="write datagrams to this file (for `replay`) instead of sending"
    )
    ex = nf.add_argument_group("exporter")
    ex.add_argument("--version", type=int, choices=(9, 10), default=9, help="9 = NetFlow v9, 10 = IPFIX")
    ex.add_argument(
        "--sampling",
        type=_sampling,
        default=(1,),
        help="1:N packet sampling (announced in an options record); N1,N2,... gives each exporter its own",
    )
    ex.add_argument(
        "--active-timeout", type=_positive_float, default=ExportParams().active_timeout_ms / 1000, help="active timeout, seconds"
    )
    ex.add_argument("--exporters", type=int, default=2, help="modelled exporters (source ids / observation domains)")
    ex.add_argument("--source-id", type=int, default=1, help="source id of the first exporter")
    ex.add_argument("--template-every", type=int, default=100, help="re-send templates every N datagrams")
    ex.add_argument("--max-datagram", type=int, default=1400, help="maximum datagram size, bytes")
    wl = nf.add_argument_group("workload")
    wl.add_argument(
        "--workload",
        choices=WORKLOADS,
        default="research",
        help="research: the seeded site model; edges: a small fixed set of flows on the definitions' edges "
        "(exactly H, G, tau and one off; sampled; see edges.py)",
    )
    wl.add_argument("--seed", type=int, default=1, help="random seed: same seed and options, same bytes")
    wl.add_argument(
        "--time-base",
        type=_time_base,
        default=DEFAULT_TIME_BASE_MS,
        help="start of virtual time: epoch ms or ISO-8601 (default = 2026-11-01T23:00:00Z)",
    )
    wl.add_argument("--span", type=_positive_float, default=7200.0, help="virtual span D, seconds")
    wl.add_argument("--margin", type=float, default=900.0, help="transfers end before D - margin, seconds")
    wl.add_argument("--sites", type=int, default=6, help="sites site-a.. as 198.18.<k>.0/24")
    wl.add_argument("--mice-per-s", type=float, default=20.0, help="short flows per virtual second")
    wl.add_argument("--realtime-flows", type=int, default=60, help="long low-rate UDP flows")
    wl.add_argument("--transfers", type=int, default=50, help="dataset transfers (parallel flowsets)")
    wl.add_argument("--max-streams", type=int, default=16, help="parallel TCP streams per transfer, at most")
    wl.add_argument(
        "--cross-midnight",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="place a transfer across midnight UTC (None: when the span contains one)",
    )
    _add_truth_args(nf, TruthParams())
    _add_pace_args(nf, 4000.0, None)

    pc = sub.add_parser(
        "pcap",
        help="write a small pcap (for softflowd) with its packet-level truth",
        description="Write a small classic pcap (Ethernet/IPv4, caplen-truncated, true wire length) "
        "of a test-scale workload, and the truth computed from its packets.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    pc.add_argument("--out", type=Path, required=True, help="pcap file to write")
    pc.add_argument("--truth", type=Path, required=True, help="directory for the truth files")
    pc.add_argument("--seed", type=int, default=1, help="random seed: same seed and options, same pcap")
    pc.add_argument(
        "--time-base",
        type=_time_base,
        default=DEFAULT_TIME_BASE_MS + 3_540_000,
        help="first packet time: epoch ms or ISO-8601 (default = 2026-11-01T23:59:00Z, a minute before midnight)",
    )
    pc.add_argument("--span", type=_positive_float, default=120.0, help="virtual span, seconds")
    pc.add_argument("--snaplen", type=int, default=64, help="bytes of each packet kept in the pcap")
    pc.add_argument("--mtu", type=int, default=9000, help="IP packet size of bulk traffic")
    pc.add_argument("--mice", type=int, default=150, help="short flows")
    _add_truth_args(pc, PCAP_TRUTH)

    ca = sub.add_parser(
        "catch",
        help="record UDP datagrams to a datagram file",
        description="Listen on HOST:PORT and record every datagram to FILE (for `replay`). Stops on "
        "--count, --idle after the first datagram, --timeout, or SIGINT/SIGTERM.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    ca.add_argument("--listen", default="127.0.0.1:0", help="HOST:PORT to bind (port 0: any, printed)")
    ca.add_argument("--out", type=Path, required=True)
    ca.add_argument("--count", type=int, help="stop after this many datagrams")
    ca.add_argument("--idle", type=float, help="stop this many seconds after the last datagram")
    ca.add_argument("--timeout", type=float, default=3600.0, help="stop after this many seconds in any case")

    rt = sub.add_parser(
        "records-truth",
        help="cheetahs and flowsets of a datagram file's records (exact peaks)",
        description="Decode a datagram file (from `catch` or --datagrams-out), stitch its records per 5-tuple "
        "and write cheetahs.csv, flowsets.csv and truth.json by the truth's rules (whole-byte interval shares).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    rt.add_argument("--in", dest="infile", type=Path, required=True)
    rt.add_argument("--truth", type=Path, required=True, help="directory for the truth files")
    _add_truth_args(rt, TruthParams())

    sub.add_parser(
        "definitions",
        help="print the platform definitions' defaults the truth uses (JSON)",
        description="Print H, I, G, tau and the exporters' active timeout the truth is computed with by default, "
        "as JSON (milliseconds, bytes). The platform's defaults live in its config model (./cheetah config); "
        "its tests compare them with this output, so the two cannot drift apart.",
    )

    rp = sub.add_parser(
        "replay",
        help="send a datagram file, paced",
        description="Send the datagrams of a file written by `catch` or --datagrams-out, from one socket, paced.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    rp.add_argument("--in", dest="infile", type=Path, required=True)
    rp.add_argument("--target", required=True, help="collector HOST:PORT")
    rp.add_argument(
        "--seconds",
        type=_positive_float,
        help="send the file again and again (whole passes) until this many seconds have passed",
    )
    _add_pace_args(rp, None, 500.0)
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "netflow":
            return _netflow(args)
        if args.command == "pcap":
            return _pcap(args)
        if args.command == "catch":
            return _catch(args)
        if args.command == "replay":
            return _replay(args)
        if args.command == "records-truth":
            return _records_truth(args)
        if args.command == "definitions":
            return _definitions()
    except (ValueError, RuntimeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 2


def _definitions() -> int:
    tp = TruthParams()
    print(
        json.dumps(
            {
                "h_bytes": tp.h_bytes,
                "interval_ms": tp.interval_ms,
                "gap_ms": tp.gap_ms,
                "tau_ms": tp.tau_ms,
                "active_timeout_ms": ExportParams().active_timeout_ms,
            },
            sort_keys=True,
        )
    )
    return 0


def _truth_params(args: argparse.Namespace) -> TruthParams:
    return TruthParams(
        h_bytes=int(args.h_bytes),
        interval_ms=round(args.interval_s * 1000),
        tau_ms=round(args.tau_s * 1000),
        gap_ms=round(args.gap_s * 1000),
    )


def _netflow(args: argparse.Namespace) -> int:
    if not args.dry_run and not args.datagrams_out and not args.target:
        raise ValueError("netflow: give --target HOST:PORT, --datagrams-out FILE or --dry-run")
    if args.dry_run and not args.truth:
        raise ValueError("netflow --dry-run writes only the truth: give --truth DIR")
    target = None
    if args.target and not args.dry_run and not args.datagrams_out:
        target = parse_target(args.target, args.allow_remote)
    wp = WorkloadParams(
        seed=args.seed,
        time_base_ms=args.time_base,
        span_ms=round(args.span * 1000),
        margin_ms=round(args.margin * 1000),
        sites=args.sites,
        mice_per_s=args.mice_per_s,
        realtime_flows=args.realtime_flows,
        transfers=args.transfers,
        max_streams=args.max_streams,
        cross_midnight=args.cross_midnight,
    )
    ep = ExportParams(
        version=args.version,
        sampling=args.sampling[0],
        exporter_sampling=args.sampling if len(args.sampling) > 1 else (),
        active_timeout_ms=round(args.active_timeout * 1000),
        exporters=args.exporters,
        source_id_base=args.source_id,
        template_every=args.template_every,
        max_datagram_bytes=args.max_datagram,
    )
    follow = _follow(args, target, args.max_datagram) if target else None
    run_netflow(
        wp,
        _truth_params(args),
        ep,
        args.truth,
        target,
        _pace(args),
        datagrams_out=args.datagrams_out,
        quiet=args.quiet,
        kind=args.workload,
        follow=follow,
    )
    _say_follow(follow, args.quiet)
    return 0


def _pace(args: argparse.Namespace) -> Pace:
    """--rate/--pps; where one is not given, its default applies, except with --follow."""
    depth = args.depth_ms / 1000
    if args.follow:
        return Pace(args.rate, args.pps, depth)
    return Pace(
        args.rate if args.rate is not None else args.default_rate,
        args.pps if args.pps is not None else args.default_pps,
        depth,
    )


def _follow(args: argparse.Namespace, target: tuple[str, int], max_datagram: int) -> CollectorWindow | None:
    if args.window is not None and args.window < 1:
        raise ValueError(f"--window {args.window}: give at least 1 datagram")
    if not args.follow:
        if args.window is not None:
            raise ValueError("--window needs --follow METRICS_URL")
        return None
    return CollectorWindow(args.follow, target[1], max_datagram, args.window)


def _say_follow(follow: CollectorWindow | None, quiet: bool) -> None:
    if follow is not None and not quiet:
        print(
            f"flow control: at most {follow.window} datagrams in flight (collector's receive buffer"
            f" {follow.buffer} bytes); waited {follow.waited_s:.1f} s for it ({follow.polls} polls)",
            file=sys.stderr,
        )


def _pcap(args: argparse.Namespace) -> int:
    from .pcap_workload import PcapParams, run_pcap

    pp = PcapParams(
        seed=args.seed,
        time_base_ms=args.time_base,
        span_ms=round(args.span * 1000),
        snaplen=args.snaplen,
        mtu=args.mtu,
        mice=args.mice,
    )
    summary = run_pcap(pp, _truth_params(args), args.out, args.truth)
    print(summary, file=sys.stderr)
    return 0


def _catch(args: argparse.Namespace) -> int:
    host, port = parse_target(args.listen, allow_remote=True)
    catcher = DatagramCatcher(args.out, host, port).start()
    print(f"listening on {catcher.address[0]}:{catcher.address[1]}, writing {args.out}", file=sys.stderr, flush=True)
    stopped = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stopped.set())

    deadline = time.monotonic() + args.timeout
    while not stopped.is_set() and time.monotonic() < deadline:
        if (args.count or args.idle) and catcher.wait(count=args.count, idle_s=args.idle, timeout_s=0.2):
            break
        stopped.wait(0.2 if not (args.count or args.idle) else 0)
    n = catcher.stop()
    print(f"caught {n} datagrams into {args.out}", file=sys.stderr)
    return 0


def _records_truth(args: argparse.Namespace) -> int:
    from .records_truth import records_truth
    from .truth_io import write_truth

    tp = _truth_params(args)
    rt = records_truth((d.payload for d in read_datagrams(args.infile)), tp)
    params = {"mode": "records", "in": str(args.infile), "H": tp.h_bytes, "I_ms": tp.interval_ms}
    params |= {"tau_ms": tp.tau_ms, "G_ms": tp.gap_ms}
    write_truth(args.truth, params, rt.cheetahs, rt.flowsets, {"records": rt.records})
    print(f"{rt.records} records: {len(rt.cheetahs)} cheetahs, {len(rt.flowsets)} flowsets", file=sys.stderr)
    return 0


def _replay(args: argparse.Namespace) -> int:
    target = parse_target(args.target, args.allow_remote)
    datagrams = list(read_datagrams(args.infile))
    fixed = [
        d
        if d.records
        else StoredDatagram(d.payload, d.export_ms or describe(d.payload)[0], d.exporter, describe(d.payload)[1])
        for d in datagrams
    ]
    span = None
    times = [d.export_ms for d in fixed if d.export_ms]
    if times:
        span = (min(times), max(times))
    if not fixed:
        raise ValueError(f"{args.infile}: no datagram in it")
    follow = _follow(args, target, max(len(d.payload) for d in fixed))
    stream = fixed if args.seconds is None else _repeat_for(fixed, args.seconds)
    stats = send_paced(stream, target, _pace(args), Progress(span, None if args.quiet else sys.stderr), follow=follow)
    print(f"replayed {stats.datagrams} datagrams ({stats.bytes} bytes) in {stats.seconds:.1f} s", file=sys.stderr)
    _say_follow(follow, args.quiet)
    return 0


def _repeat_for(datagrams: list[StoredDatagram], seconds: float) -> Iterator[StoredDatagram]:
    """The file again and again, whole passes, until `seconds` have passed (at least one pass)."""
    end = time.monotonic() + seconds
    while True:
        yield from datagrams
        if time.monotonic() >= end:
            return
