"""cheetah fabric-experiment (`./cheetah bench fabric`): the EFM study's collision experiment on the
k = 4 fat-tree (docs/FABRIC.md, "The experiment").

The fat-tree (4 core, 8 aggregation, 8 edge switches, 16 hosts, 10 Mb/s links) is brought up with
`fabric-up --netns`: hosts are network namespaces, every link is shaped to its capacity. Each test
starts TCP elephant flows (iperf3, a fixed number of bytes each) placed so that ECMP's hash puts them
on one core link: upstream (flows of one pod leaving it by one aggregation-to-core link) or downstream
(flows of three pods entering a fourth by one core-to-aggregation link), with a fourth flow of
background traffic in tests 2 and 4. A flow is placed by its client port: the switches' own select
groups are asked (`ofproto/trace`, hop by hop) which path a 5-tuple takes, and the run uses the first
ports, from a seeded offset, whose paths cross the collision link. Each flow's completion time (client
start to exit) and throughput (iperf3's receiver side, -J) are measured; several seeded runs give
means and 95 % intervals (Student's t over the runs), written as JSON, CSV, a Markdown table and an
SVG plot into --out.

Modes: `ecmp` (the fabric's default forwarding only); `efm-biggest` and `efm-smallest` also start the
live stack (`./cheetah up` with fabric.topology-file, fabric.sflow-map-file and fabric.policy set),
fabric-up's sFlow pointed at the stack's collector (--sflow-collector HOST:PORT) and the openflow
adapter applying the job's REROUTE commands on the fabric.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from cheetah_adapters.fabric import Fabric, FabricError, load
from cheetah_adapters.incast.report import ci95
from cheetah_adapters.ports import free_ports

ROOT = Path(__file__).resolve().parents[2]
MODES = ("ecmp", "efm-biggest", "efm-smallest")
CAPACITY_BPS = 10e6  # the study's links
SERVER_PORT = 5201  # flow i's iperf3 server listens on SERVER_PORT + i
CLIENT_PORTS = range(20000, 60000)  # where client ports are looked for
MAX_TRIES = 4000  # client ports tried per flow before the placement gives up
# iperf3 -w: both ends' socket buffers. The client ends once its last byte is in its send buffer, so
# a small buffer keeps its exit close to the last byte's arrival (the kernel doubles it: 256 KB, 0.2 s
# at 10 Mb/s), and is still far above what one flow needs in flight here (RTT under 0.2 s).
SOCKET_BUFFER = "128K"


@dataclass(frozen=True)
class Test:
    """One of the study's four tests: flows (source host, destination host) and the hop (switch,
    switch) every flow but the background one must cross."""

    number: int
    kind: str  # upstream | downstream
    flows: tuple[tuple[str, str], ...]
    collision: tuple[str, str]
    background: tuple[tuple[str, str], tuple[str, str]] | None = None  # (src, dst) and the hop it crosses


# Names are the k = 4 fat-tree's (docs/FABRIC.md, "The k-ary fat-tree"): pod 0 holds e1 (h1, h2),
# e2 (h3, h4), a1, a2; pod 1 e3 (h5, h6), e4 (h7, h8); pod 2 e5 (h9, h10), e6 (h11, h12); pod 3
# e7 (h13, h14), e8 (h15, h16), a7, a8. Core c1 and c2 reach the first aggregation switch of each pod
# (a1, a3, a5, a7), c3 and c4 the second.
TESTS = {
    # upstream: three flows of pod 0 to three other pods, all leaving by a1 -> c1
    1: Test(1, "upstream", (("h1", "h5"), ("h3", "h9"), ("h2", "h13")), ("a1", "c1")),
    2: Test(2, "upstream", (("h1", "h5"), ("h3", "h9"), ("h2", "h13")), ("a1", "c1"), (("h4", "h15"), ("a1", "c2"))),
    # downstream: flows from pods 0, 1, 2 into pod 3, all entering it by c1 -> a7
    3: Test(3, "downstream", (("h1", "h13"), ("h5", "h14"), ("h9", "h15")), ("c1", "a7")),
    4: Test(4, "downstream", (("h1", "h13"), ("h5", "h14"), ("h9", "h15")), ("c1", "a7"), (("h11", "h16"), ("c2", "a7"))),
}
# The transmission rates of the flows F1, F2, F3 (and the background F4), Mb/s; 0 = as fast as TCP
# goes. Ours: the study varies the rates four times but does not list them. Each sums above the
# collision link's 70 % threshold, and every flow is an elephant (above 10 % of 10 Mb/s).
VARIATIONS = {
    1: (0.0, 0.0, 0.0, 0.0),
    2: (6.0, 4.0, 2.0, 2.0),
    3: (2.0, 4.0, 6.0, 2.0),
    4: (4.0, 4.0, 4.0, 2.0),
}


# --- pure parts -----------------------------------------------------------------------------------

def mean_ci95(samples: Sequence[float]) -> tuple[float, float]:
    """The mean and the half-width of its 95 % interval (Student's t, n - 1 degrees of freedom; 0 for
    one sample)."""
    if not samples:
        raise ValueError("no samples")
    return statistics.fmean(samples), ci95(list(samples))


def crosses(path: Sequence[str], hop: tuple[str, str]) -> bool:
    """The path (switches in order) goes from hop[0] straight to hop[1]."""
    return any(a == hop[0] and b == hop[1] for a, b in zip(path, path[1:]))


def start_offset(seed: int, span: int) -> int:
    """Where in the client port range a seed starts looking: seed * 7919 (a prime) mod span."""
    return (seed * 7919) % span


def place(flows: Sequence[tuple[str, str, tuple[str, str]]], path_of: Callable[[str, str, int, int], list[str]],
          seed: int, ports: range = CLIENT_PORTS, tries: int = MAX_TRIES) -> list[int]:
    """A client port per flow (src, dst, hop) whose path (path_of(src, dst, client port, server port),
    server port SERVER_PORT + the flow's index) crosses the flow's hop: the first such port from the
    seed's offset in `ports`, wrapping, never one already given to another flow. Raises
    PlacementError if `tries` ports in a row do not cross it."""
    chosen: list[int] = []
    offset = start_offset(seed, len(ports))
    for i, (src, dst, hop) in enumerate(flows):
        for t in range(tries):
            port = ports[(offset + t) % len(ports)]
            if port in chosen:
                continue
            if crosses(path_of(src, dst, port, SERVER_PORT + i), hop):
                chosen.append(port)
                break
        else:
            raise PlacementError(f"flow {i + 1} {src} -> {dst}: none of {tries} client ports from {ports[offset]} crosses "
                                 f"{hop[0]} -> {hop[1]}")
    return chosen


class PlacementError(RuntimeError):
    pass


def flows_of(test: Test, variation: int) -> list[tuple[str, str, tuple[str, str], float]]:
    """(src, dst, hop, rate Mb/s) of each flow of a test, background last."""
    rates = VARIATIONS[variation]
    out = [(s, d, test.collision, rates[i]) for i, (s, d) in enumerate(test.flows)]
    if test.background:
        (s, d), hop = test.background
        out.append((s, d, hop, rates[3]))
    return out


def summarize(records: Sequence[dict[str, object]]) -> list[dict[str, object]]:
    """One row per (test, variation, mode, flow): runs, FCT and throughput mean ± 95 %."""
    groups: dict[tuple[int, int, str, int], list[dict[str, object]]] = {}
    for r in records:
        groups.setdefault((int(r["test"]), int(r["variation"]), str(r["mode"]), int(r["flow"])), []).append(r)  # type: ignore[call-overload]
    rows = []
    for (test, variation, mode, flow), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], MODES.index(kv[0][2]), kv[0][3])):
        fct, fct_ci = mean_ci95([float(r["fct_s"]) for r in rs])  # type: ignore[arg-type]
        thr, thr_ci = mean_ci95([float(r["throughput_bps"]) / 1e6 for r in rs])  # type: ignore[arg-type]
        rows.append({"test": test, "variation": variation, "mode": mode, "flow": flow, "runs": len(rs),
                     "src": rs[0]["src"], "dst": rs[0]["dst"], "background": rs[0]["background"],
                     "fct_s_mean": round(fct, 3), "fct_s_ci95": round(fct_ci, 3),
                     "throughput_mbps_mean": round(thr, 3), "throughput_mbps_ci95": round(thr_ci, 3),
                     "on_collision_link": all(bool(r["on_hop"]) for r in rs)})
    return rows


COLUMNS = ["test", "variation", "mode", "flow", "src", "dst", "background", "runs", "fct_s_mean", "fct_s_ci95",
           "throughput_mbps_mean", "throughput_mbps_ci95", "on_collision_link"]


def csv_text(rows: Sequence[dict[str, object]]) -> str:
    return "\n".join([",".join(COLUMNS)] + [",".join(str(r[c]).lower() if isinstance(r[c], bool) else str(r[c])
                                                     for c in COLUMNS) for r in rows]) + "\n"


def markdown_table(rows: Sequence[dict[str, object]]) -> str:
    head = ["test", "var.", "mode", "flow", "runs", "FCT mean ± 95 % (s)", "throughput mean ± 95 % (Mb/s)"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join(":---" if i in (2, 3) else "---:" for i in range(len(head))) + "|"]
    for r in rows:
        flow = f"F{r['flow']} {r['src']}→{r['dst']}" + (" (bg)" if r["background"] else "")
        out.append("| " + " | ".join([str(r["test"]), str(r["variation"]), str(r["mode"]), flow, str(r["runs"]),
                                      f"{r['fct_s_mean']:.2f} ± {r['fct_s_ci95']:.2f}",
                                      f"{r['throughput_mbps_mean']:.2f} ± {r['throughput_mbps_ci95']:.2f}"])
                   + (" |" if r["on_collision_link"] else " (placement not confirmed) |"))
    return "\n".join(out) + "\n"


COLORS = {"ecmp": "#c0392b", "efm-biggest": "#2471a3", "efm-smallest": "#27ae60"}


def svg(rows: Sequence[dict[str, object]], size_bytes: int) -> str:
    """Grouped bars: mean FCT per flow, one group per (test, variation, flow), a bar per mode, with the
    95 % interval as a whisker."""
    groups = sorted({(int(r["test"]), int(r["variation"]), int(r["flow"])) for r in rows})  # type: ignore[call-overload]
    modes = [m for m in MODES if any(r["mode"] == m for r in rows)]
    by = {(int(r["test"]), int(r["variation"]), int(r["flow"]), str(r["mode"])): r for r in rows}  # type: ignore[call-overload]
    top = max((float(r["fct_s_mean"]) + float(r["fct_s_ci95"]) for r in rows), default=1.0)  # type: ignore[arg-type]
    e = 10 ** math.floor(math.log10(top)) if top > 0 else 1
    ymax = next(m * e for m in (1, 2, 2.5, 5, 10) if m * e >= top)
    bw, gap, x0, y0, h = 14, 16, 70, 50, 260
    w = len(groups) * (len(modes) * bw + gap)
    W, H = max(x0 + w + 30, 760), y0 + h + 110
    py = lambda v: y0 + h - v / ymax * h  # noqa: E731
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="11">',
           '<rect width="100%" height="100%" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">Flow completion time, k = 4 fat-tree, 10 Mb/s links, '
           f'{size_bytes / 2 ** 20:g} MiB per flow (mean, 95 % interval)</text>']
    for i in range(6):
        v = ymax * i / 5
        out.append(f'<line x1="{x0}" y1="{py(v):.1f}" x2="{x0 + w}" y2="{py(v):.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x0 - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    out.append(f'<text x="20" y="{y0 + h / 2}" transform="rotate(-90 20 {y0 + h / 2})" text-anchor="middle">FCT (s)</text>')
    for g, (test, variation, flow) in enumerate(groups):
        gx = x0 + g * (len(modes) * bw + gap) + gap / 2
        for m, mode in enumerate(modes):
            r = by.get((test, variation, flow, mode))
            if r is None:
                continue
            y, ci = float(r["fct_s_mean"]), float(r["fct_s_ci95"])  # type: ignore[arg-type]
            x = gx + m * bw
            out.append(f'<rect x="{x:.1f}" y="{py(y):.1f}" width="{bw - 2}" height="{y0 + h - py(y):.1f}" fill="{COLORS[mode]}"/>')
            if ci > 0:
                cx = x + (bw - 2) / 2
                out.append(f'<line x1="{cx:.1f}" y1="{py(max(y - ci, 0)):.1f}" x2="{cx:.1f}" y2="{py(y + ci):.1f}" stroke="black"/>')
        label = f"T{test} v{variation} F{flow}"
        lx = gx + len(modes) * bw / 2
        out.append(f'<text x="{lx:.1f}" y="{y0 + h + 14}" text-anchor="end" transform="rotate(-45 {lx:.1f} {y0 + h + 14})">{label}</text>')
    for i, mode in enumerate(modes):
        out.append(f'<rect x="{x0 + i * 130}" y="{H - 22}" width="12" height="12" fill="{COLORS[mode]}"/>')
        out.append(f'<text x="{x0 + i * 130 + 18}" y="{H - 12}">{mode}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --- the fabric -----------------------------------------------------------------------------------

def _sh(argv: list[str], timeout: float = 60) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def fat_tree_file(out: Path, capacity: float = CAPACITY_BPS) -> Path:
    """The k = 4 fat-tree's topology file, from its one generator (FatTree, `./cheetah fabric fat-tree`)."""
    _sh([str(ROOT / "cheetah"), "fabric", "fat-tree", "--k", "4", "--capacity", f"{capacity:g}", "--out", str(out)], timeout=900)
    return out


@dataclass
class Fabricated:
    """A fabric brought up by fabric-up --netns: its run dir, state and helpers."""

    fabric: Fabric
    run_dir: Path
    state: dict[str, object]
    hosts: dict[str, dict[str, object]] = field(default_factory=dict)  # name -> the state's host row

    def __post_init__(self) -> None:
        self.hosts = {str(h["name"]): h for h in self.state["hosts"]}  # type: ignore[union-attr,index]

    @property
    def prefix(self) -> str:
        return str(self.state["prefix"])

    def appctl(self, *args: str) -> str:
        return _sh(["ovs-appctl", "-t", str(self.run_dir / "vswitchd.ctl"), *args])

    def path_of(self, src: str, dst: str, sport: int, dport: int) -> list[str]:
        """The switches a TCP packet src:sport -> dst:dport crosses, asked of each switch's own
        forwarding (ofproto/trace: the select group's hash picks the bucket as for a real packet)."""
        s, d = self.hosts[src], self.hosts[dst]
        sw, in_port = str(s["switch"]), int(s["port"])  # type: ignore[call-overload]
        path = [sw]
        for _ in range(len(self.fabric.layers)):
            text = self.appctl("ofproto/trace", self.prefix + sw,
                               f"tcp,in_port={in_port},dl_src={s['mac']},dl_dst={d['mac']},nw_src={s['address']},"
                               f"nw_dst={d['address']},nw_ttl=64,tp_src={sport},tp_dst={dport}")
            outs = re.findall(r"output:(\d+)", text.split("Final flow:")[0])
            if not outs:
                raise RuntimeError(f"{sw} forwards {src} -> {dst} nowhere:\n{text[-1500:]}")
            out_port = int(outs[-1])
            if (sw, out_port) == (d["switch"], d["port"]):
                return path
            nxt = self.fabric.cables.get((sw, out_port))
            if nxt is None:
                raise RuntimeError(f"{sw} sends {src} -> {dst} out of port {out_port}, which is no cable and not {dst}'s port")
            sw, in_port = nxt
            path.append(sw)
        raise RuntimeError(f"{src} -> {dst} loops: {path}")

    def reroutes(self) -> int:
        """Flows the openflow adapter installed (its priority, 40000) on all switches."""
        return sum(_sh(["ovs-ofctl", "-O", "OpenFlow13", "dump-flows", f"unix:{self.run_dir}/{self.prefix}{sw}.mgmt"]).count("priority=40000")
                   for sw in self.fabric.layers)

    def tx_bytes(self) -> dict[tuple[str, int], int]:
        """(switch, port) -> bytes sent, from OVS's port counters."""
        out = {}
        for sw in self.fabric.layers:
            text = _sh(["ovs-ofctl", "-O", "OpenFlow13", "dump-ports", f"unix:{self.run_dir}/{self.prefix}{sw}.mgmt"])
            for m in re.finditer(r"port\s+(\d+):.*?tx pkts=\d+, bytes=(\d+)", text, re.DOTALL):
                out[(sw, int(m.group(1)))] = int(m.group(2))
        return out


def fabric_up(fabric_file: Path, run_dir: Path, sflow: str | None = None) -> Fabricated:
    # One userspace-datapath ovs-vswitchd per machine: each opens the tap device ovs-netdev, and a second
    # one's bridges fail ("creating tap device failed: Device or resource busy"). Wait for another's end.
    deadline = time.monotonic() + 1800
    while Path("/sys/class/net/ovs-netdev").exists():
        if time.monotonic() > deadline:
            raise RuntimeError("another Open vSwitch with the userspace datapath has run for 30 min (tap ovs-netdev exists)")
        time.sleep(2)
    argv = [sys.executable, "-m", "cheetah_adapters.fabric_up", "--fabric", str(fabric_file), "--run-dir", str(run_dir), "--netns"]
    if sflow:
        argv += ["--sflow", sflow]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=ROOT / "adapters",
                          env={**os.environ, "PYTHONPATH": str(ROOT / "adapters")})
    if done.returncode != 0:
        raise RuntimeError(f"fabric-up failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return Fabricated(load(fabric_file), run_dir.resolve(), json.loads((run_dir / "fabric-up.json").read_text()))


def fabric_down(run_dir: Path) -> None:
    subprocess.run([sys.executable, "-m", "cheetah_adapters.fabric_up", "--down", "--run-dir", str(run_dir)],
                   capture_output=True, text=True, timeout=300, cwd=ROOT / "adapters",
                   env={**os.environ, "PYTHONPATH": str(ROOT / "adapters")})


# --- a run ----------------------------------------------------------------------------------------

def _listening(ns: str, port: int) -> bool:
    out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout
    return bool(out.strip())


def run_once(fab: Fabricated, test: Test, variation: int, mode: str, seed: int, size_bytes: int, log: Callable[[str], None],
             timeout_s: float) -> list[dict[str, object]]:
    flows = flows_of(test, variation)
    ports = place([(s, d, hop) for s, d, hop, _ in flows], fab.path_of, seed)
    paths = [fab.path_of(s, d, p, SERVER_PORT + i) for i, ((s, d, _, _), p) in enumerate(zip(flows, ports))]
    servers, clients = [], []
    try:
        for i, (s, d, _, _) in enumerate(flows):
            ns = str(fab.hosts[d]["netns"])
            servers.append(subprocess.Popen(["ip", "netns", "exec", ns, "iperf3", "-s", "-1", "-p", str(SERVER_PORT + i)],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 30
        for i, (s, d, _, _) in enumerate(flows):
            while not _listening(str(fab.hosts[d]["netns"]), SERVER_PORT + i):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"iperf3 server of flow {i + 1} did not listen within 30 s")
                time.sleep(0.05)
        before = fab.tx_bytes()
        starts = []
        for i, ((s, d, _, rate), port) in enumerate(zip(flows, ports)):
            argv = ["ip", "netns", "exec", str(fab.hosts[s]["netns"]), "iperf3", "-c", str(fab.hosts[d]["address"]),
                    "-p", str(SERVER_PORT + i), "--cport", str(port), "-n", str(size_bytes), "-w", SOCKET_BUFFER, "-J"]
            if rate > 0:
                argv += ["-b", f"{rate:g}M"]
            starts.append(time.monotonic())
            clients.append(subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        # Each client is waited for in its own thread, so each flow's end is the moment its client exits
        # (waiting for them one after another would give a flow that ended first the end of the one
        # waited for before it).
        ended: dict[int, tuple[float, str, str]] = {}

        def wait(i: int, c: subprocess.Popen[str]) -> None:
            try:
                out, err = c.communicate(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                c.kill()
                out, err = c.communicate()
                err = f"timed out after {timeout_s} s; {err}"
            ended[i] = (time.monotonic(), out, err)

        waiters = [threading.Thread(target=wait, args=(i, c), daemon=True) for i, c in enumerate(clients)]
        for t in waiters:
            t.start()
        for t in waiters:
            t.join()
        records = []
        for i, c in enumerate(clients):
            end, out, err = ended[i]
            if c.returncode != 0:
                raise RuntimeError(f"iperf3 client of flow {i + 1} failed ({c.returncode}): {(err or out)[-800:]}")
            result = json.loads(out)
            received = result["end"]["sum_received"]
            s, d, hop, rate = flows[i]
            records.append({"test": test.number, "variation": variation, "mode": mode, "seed": seed, "flow": i + 1,
                            "src": s, "dst": d, "background": i >= len(test.flows), "rate_mbps": rate,
                            "client_port": ports[i], "server_port": SERVER_PORT + i, "path": paths[i],
                            "on_hop": crosses(paths[i], hop), "bytes": int(received["bytes"]),
                            "fct_s": round(end - starts[i], 4), "iperf_seconds": round(float(received["seconds"]), 4),
                            "throughput_bps": float(received["bits_per_second"]),
                            "retransmits": int(result["end"]["sum_sent"].get("retransmits", 0))})
        after = fab.tx_bytes()
        hop_link = next((a, p) for (a, p), (b, _) in fab.fabric.cables.items() if (a, b) == test.collision)
        moved = after.get(hop_link, 0) - before.get(hop_link, 0)
        colliding = sum(int(r["bytes"]) for r in records if not r["background"])  # type: ignore[call-overload]
        for r in records:
            r["collision_link_bytes"] = moved
            # Under ECMP alone, OVS's own counter of the collision link confirms the trace: it sent at least the
            # colliding flows' bytes. Under EFM the flows it moved left the link (its bytes are EFM's effect), so
            # the trace at placement is the confirmation.
            if mode == "ecmp":
                r["on_hop"] = bool(r["on_hop"]) and (bool(r["background"]) or moved >= colliding)
        log(f"test {test.number} var {variation} {mode} seed {seed}: " + ", ".join(
            f"F{r['flow']} {r['fct_s']:.1f} s {float(r['throughput_bps']) / 1e6:.2f} Mb/s" for r in records)
            + f"; {test.collision[0]}->{test.collision[1]} sent {moved / 1e6:.1f} MB")
        return records
    finally:
        for p in clients + servers:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


# --- the live stack for the EFM modes ---------------------------------------------------------------

@dataclass
class Live:
    stack: subprocess.Popen[str]
    adapter: subprocess.Popen[str] | None
    data_dir: Path

    def stop(self) -> None:
        for p in (self.adapter, self.stack):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def start_live(fab: Fabricated, fabric_file: Path, policy: str, work: Path, log: Callable[[str], None],
               extra: Sequence[str] = ()) -> Live:
    """`./cheetah up` with the fabric job (fabric.topology-file, fabric.sflow-map-file, fabric.policy) on
    free ports, then the openflow adapter on the fabric reading its commands. The stack's collector must
    listen for sFlow where fabric-up sends it (--sflow-collector)."""
    kinds = {"kafka.port": socket.SOCK_STREAM, "kafka.controller-port": socket.SOCK_STREAM, "flink.rest-port": socket.SOCK_STREAM,
             "netflow.udp-port": socket.SOCK_DGRAM, "netflow.metrics-port": socket.SOCK_STREAM,
             "warehouse.http-port": socket.SOCK_STREAM}
    sets = {**{k: str(v) for k, v in zip(kinds, free_ports(*kinds.values()))}, "data-dir": str(work / "data"),
            "fabric.topology-file": str(fabric_file), "fabric.sflow-map-file": str(fab.run_dir / "sflow-map.json"),
            "fabric.policy": policy}
    for setting in extra:  # --stack-set KEY=VALUE
        key, _, value = setting.partition("=")
        sets[key] = value
    argv = [str(ROOT / "cheetah"), "up"] + [a for k, v in sets.items() for a in ("--set", f"{k}={v}")]
    log_file = (work / "up.log").open("w")
    stack = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=log_file, text=True, start_new_session=True)
    live = Live(stack, None, work / "data")
    bootstrap = ""
    deadline = time.monotonic() + 600
    try:
        while not bootstrap:  # the JSON ready line on stdout
            if time.monotonic() > deadline or stack.poll() is not None:
                raise RuntimeError(f"./cheetah up did not get ready; see {work / 'up.log'}")
            line = stack.stdout.readline() if stack.stdout else ""
            try:
                ready = json.loads(line)
            except ValueError:
                continue
            bootstrap = str(ready.get("kafka") or ready.get("bootstrap") or "")
        log(f"stack up (Kafka {bootstrap}, policy {policy})")
        live.adapter = subprocess.Popen(
            [str(ROOT / "cheetah"), "adapter", "--target", "openflow", "--device", fab.fabric.name, "--bootstrap", bootstrap,
             "--keys", str(work / "data" / "keys" / "redirects.json"), "--fabric", str(fabric_file),
             "--fabric-switch-target", str(fab.state["switch_target"]), "--state-dir", str(work / "adapter-state")],
            stdout=(work / "adapter.log").open("w"), stderr=subprocess.STDOUT, text=True, start_new_session=True)
    except Exception:
        live.stop()
        raise
    return live


# --- the command ----------------------------------------------------------------------------------

def _int_list(text: str, allowed: Sequence[int], what: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what}: give numbers separated by commas, not {text!r}") from None
    bad = [v for v in values if v not in allowed]
    if bad or not values:
        raise argparse.ArgumentTypeError(f"{what}: {bad or text!r} not in {list(allowed)}")
    return values


def _size(text: str) -> int:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([KMG]?)", text.strip().upper())
    if not m:
        raise argparse.ArgumentTypeError(f"--size {text!r}: give bytes, e.g. 20M")
    return int(float(m.group(1)) * {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}[m.group(2)])


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cheetah fabric-experiment",
        description="The EFM study's upstream and downstream collisions on the k = 4 fat-tree (10 Mb/s links, hosts in "
        "network namespaces, Open vSwitch): per-flow FCT and throughput of iperf3 elephant flows, seeded runs, means and "
        "95 %% intervals (docs/FABRIC.md, \"The experiment\"). Root.",
        epilog="example:\n  %(prog)s --modes ecmp --tests 1,3 --runs 3 --size 5M --out /tmp/fabric-exp\n",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--modes", default="ecmp", help=f"comma-separated, of {', '.join(MODES)} (default ecmp)")
    p.add_argument("--tests", type=lambda t: _int_list(t, list(TESTS), "--tests"), default=[1, 2, 3, 4],
                   help="1, 2 upstream (2 with background), 3, 4 downstream (4 with background); default all")
    p.add_argument("--variations", type=lambda t: _int_list(t, list(VARIATIONS), "--variations"), default=[1],
                   help="rate variations 1..4 (1: as fast as TCP goes; 2-4: iperf3 -b per flow, in the module's VARIATIONS); "
                   "default 1")
    p.add_argument("--runs", type=int, default=5, help="seeded runs per test, variation and mode (default 5, the study's)")
    p.add_argument("--seed", type=int, default=1, help="the first run's seed (run i uses seed + i)")
    p.add_argument("--size", type=_size, default=_size("20M"), help="bytes per flow (default 20M, the study's 20 MB)")
    p.add_argument("--fabric", type=Path, help="topology file (default: the k = 4 fat-tree from ./cheetah fabric fat-tree)")
    p.add_argument("--sflow-collector", metavar="HOST:PORT",
                   help="efm modes: where fabric-up --sflow sends (default: a free port of 127.0.0.1 that the"
                   " stack's collector listens on, netflow.sflow-udp-port)")
    p.add_argument("--stack-set", action="append", default=[], metavar="KEY=VALUE",
                   help="efm modes: a setting for ./cheetah up (repeatable), e.g. its collector's sFlow listener port")
    p.add_argument("--out", type=Path, required=True, help="output directory (results.json, summary.csv, table.md, fct.svg)")
    p.add_argument("--timeout", type=float, default=900, help="seconds a run may take (default 900)")
    return p


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in MODES for m in modes):
        p.error(f"--modes {args.modes!r}: choose from {', '.join(MODES)}")
    if args.runs < 1:
        p.error("--runs must be at least 1")
    if any("=" not in x for x in args.stack_set):
        p.error("--stack-set takes KEY=VALUE")
    if any(m != "ecmp" for m in modes) and not args.sflow_collector:
        # The stack's own collector listens for sFlow (netflow.sflow-udp-port) on a free port.
        port = free_ports(socket.SOCK_DGRAM)[0]
        args.sflow_collector = f"127.0.0.1:{port}"
        args.stack_set = [f"netflow.sflow-udp-port={port}", *args.stack_set]
    if os.geteuid() != 0:
        p.error("needs root (network namespaces, veths, tc)")
    args.out.mkdir(parents=True, exist_ok=True)
    log = lambda text: print(f"fabric-experiment: {text}", file=sys.stderr, flush=True)  # noqa: E731
    work = Path(tempfile.mkdtemp(prefix="fabric-exp."))
    fabric_file = args.fabric or fat_tree_file(work / "k4.yaml")
    try:
        fabric = load(fabric_file)
    except FabricError as e:
        print(f"fabric-experiment: {e}", file=sys.stderr)
        return 2
    records: list[dict[str, object]] = []
    started = time.time()
    for mode in modes:
        run_dir = work / f"ovs-{mode}"
        log(f"{mode}: bringing {fabric.name} up in {run_dir}")
        fab = fabric_up(fabric_file, run_dir, args.sflow_collector if mode != "ecmp" else None)
        live = None
        try:
            if mode != "ecmp":
                (work / mode).mkdir(exist_ok=True)
                live = start_live(fab, fabric_file, mode.split("-")[1], work / mode, log, args.stack_set)
            for test in args.tests:
                for variation in args.variations:
                    for i in range(args.runs):
                        if live is not None:  # the previous run's reroutes are taken off (flow idle) first
                            deadline = time.monotonic() + 120
                            while fab.reroutes() and time.monotonic() < deadline:
                                time.sleep(1)
                        records += run_once(fab, TESTS[test], variation, mode, args.seed + i, args.size, log, args.timeout)
                        (args.out / "results.json").write_text(json.dumps(records, indent=1) + "\n")
        finally:
            if live is not None:
                live.stop()
            fabric_down(run_dir)
    rows = summarize(records)
    (args.out / "summary.csv").write_text(csv_text(rows))
    (args.out / "table.md").write_text(markdown_table(rows))
    (args.out / "fct.svg").write_text(svg(rows, args.size))
    command = "./cheetah bench fabric " + " ".join(sys.argv[1:] if argv is None else argv)
    meta = {"command": command, "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)),
            "seconds": round(time.time() - started, 1), "load_average": os.getloadavg(), "fabric": fabric.name}
    (args.out / "run.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(markdown_table(rows), end="")
    print(f"FIGURE fabric_experiment {args.out}/table.md  (load {os.getloadavg()[0]:.2f}; {command})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
