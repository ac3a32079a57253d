"""sFlow from a real Open vSwitch leaf-spine fabric (`fabric-up --sflow`, docs/FABRIC.md, "sFlow") through
the real collector (ingest/goflow2's binary, flows to a file, counters as stdout lines): traffic from h1 to
h2 is paced from h1's port; its flow samples, placed on ports by fabric-up's map, name exactly the hops
of the path that OVS's own port counters (`ovs-ofctl dump-ports`) show it took; its bytes scaled by the
sampling rate estimate what that path carried; every inter-switch port sends counters, and the octets
and utilisation from them agree with the port counters. Last, the same data through flink-jobs/fabric's
placement and counter rates (`./cheetah fabric sflow-links`) gives the same links and rates.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

from cheetah_adapters.fabric import parse
from cheetah_adapters.fabric_up import SflowConfig, down, up
from cheetah_adapters.ovs import FabricSwitches
from tests.cheetah_up import REPO, free_port
from tests.test_fabric_reroute import H1, H2, docs_example

COLLECTOR = Path(os.environ.get("CHEETAH_GOFLOW2_BIN", REPO / ".cheetah" / "bin" / "cheetah-goflow2"))
AGENT = "127.0.0.1"
SPORT, DPORT = 41000, 5201
FRAME = 1000  # bytes on the wire as OVS counts them (no FCS)
PPS, SECONDS = 1500, 5.0  # 12 Mbit/s for 5 s: 7500 packets, about 750 sampled at each switch
# The spine a flow takes from leaf1's up-port, and the leaf2 port it arrives at (docs/FABRIC.md's wiring).
VIA = {2: ("spine1", 2), 3: ("spine2", 3)}


def _frame() -> bytes:
    """Ethernet + IPv4 + TCP from h1 to h2, FRAME bytes (OVS checks no checksum)."""
    def ip(a: str) -> bytes:
        return bytes(int(x) for x in a.split("."))
    payload = bytes(FRAME - 14 - 20 - 20)
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    iph = struct.pack("!BBHHHBBH4s4s", 0x45, 0, FRAME - 14, 1, 0, 64, 6, 0, ip(H1), ip(H2))
    tcp = struct.pack("!HHIIBBHHH", SPORT, DPORT, 1, 0, 0x50, 0x10, 65535, 0, 0)
    return eth + iph + tcp + payload


def _varint(b: bytes, i: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def read_flows(data: bytes) -> list[dict[int, Any]]:
    """goflow2's `bin` output: varint-length-delimited FlowMessages, each read as {field number: value}
    (protobuf wire format by hand: varints and length-delimited fields are all this test reads)."""
    flows, i = [], 0
    while i < len(data):
        n, i = _varint(data, i)
        msg, j, end = {}, i, i + n
        while j < end:
            key, j = _varint(data, j)
            field, wire = key >> 3, key & 7
            if wire == 0:
                msg[field], j = _varint(data, j)
            elif wire == 2:
                ln, j = _varint(data, j)
                msg[field], j = data[j:j + ln], j + ln
            elif wire == 1:
                j += 8
            elif wire == 5:
                j += 4
            else:
                raise AssertionError(f"wire type {wire} in a FlowMessage")
        flows.append(msg)
        i = end
    return flows


# goflow2's pb/flow.proto field numbers
SAMPLING_RATE, SRC_ADDR, DST_ADDR, BYTES, SAMPLER, IN_IF, OUT_IF, PROTO, SRC_PORT, DST_PORT = 3, 6, 7, 9, 11, 18, 19, 20, 21, 22


def sflow_links(tmp: Path, fabric_file: Path, map_file: Path, flows: list[dict[int, Any]],
                counter_lines: list[dict[str, Any]], window_ms: int) -> dict[str, Any]:
    """`./cheetah fabric sflow-links` (flink-jobs/fabric's SflowPlacement and CounterRates) on what the
    collector wrote."""
    samples, counters = tmp / "samples.jsonl", tmp / "counters.jsonl"
    samples.write_text("".join(json.dumps({
        "agent": socket.inet_ntoa(f[SAMPLER]), "in_if": f[IN_IF], "out_if": f[OUT_IF], "bytes": f[BYTES],
        "sampling_rate": f[SAMPLING_RATE], "src": socket.inet_ntoa(f[SRC_ADDR]), "dst": socket.inet_ntoa(f[DST_ADDR]),
        "src_port": f[SRC_PORT], "dst_port": f[DST_PORT], "proto": f[PROTO]}) + "\n" for f in flows))
    counters.write_text("".join(json.dumps(e) + "\n" for e in counter_lines))
    done = subprocess.run([str(REPO / "cheetah"), "fabric", "sflow-links", str(fabric_file), "--map", str(map_file),
                           "--samples", str(samples), "--counters", str(counters), "--window-ms", str(window_ms)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def _tx(switches: FabricSwitches, switch: str) -> dict[int, int]:
    out = switches.ofctl("dump-ports", switches.target(switch))
    return {int(m.group(1)): int(m.group(2)) for m in re.finditer(r"port\s+(\d+):.*?tx pkts=\d+, bytes=(\d+)", out, re.DOTALL)}


def _host_up(interface: str) -> None:
    """A host's internal port, up with IPv6 off: the kernel sends nothing of its own on it."""
    subprocess.run(["sysctl", "-q", "-w", f"net.ipv6.conf.{interface}.disable_ipv6=1"], check=True, timeout=30)
    subprocess.run(["ip", "link", "set", interface, "up"], check=True, timeout=30)


def test_sflow_through_the_collector_places_the_flow_on_its_path_and_measures_the_links(tmp_path: Path) -> None:
    assert COLLECTOR.exists(), f"{COLLECTOR} is missing: ./cheetah setup builds it (or set CHEETAH_GOFLOW2_BIN)"
    port = free_port(socket.SOCK_DGRAM)
    flows_file = tmp_path / "flows.bin"
    collector = subprocess.Popen(
        [str(COLLECTOR), "-listen", f"sflow://127.0.0.1:{port}?workers=1", "-addr", "", "-format", "bin",
         "-transport", "file", "-transport.file", str(flows_file), "-transport.file.sep", "", "-exit-on-stdin-eof"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(tmp_path / "collector.log", "w"), text=True)
    lines: list[dict[str, Any]] = []
    ready = threading.Event()

    def pump() -> None:
        assert collector.stdout is not None
        for line in collector.stdout:
            event = json.loads(line)
            if event["event"] == "ready":
                ready.set()
            lines.append(event)
    threading.Thread(target=pump, daemon=True).start()
    switches = None
    try:
        assert ready.wait(60), (tmp_path / "collector.log").read_text()
        fabric = parse(docs_example(), "docs/FABRIC.md")
        switches = up(fabric, tmp_path / "ovs", detach=False, sflow=SflowConfig(f"127.0.0.1:{port}"))
        rows = json.loads((tmp_path / "ovs" / "sflow-map.json").read_text())
        port_of = {r["if_index"]: (r["switch"], r["port"]) for r in rows}
        index_of = {v: k for k, v in port_of.items()}
        for r in rows:
            if r["port"] == 1 and r["switch"].startswith("leaf"):
                _host_up(r["interface"])
        inter_switch = {(sw, p) for (sw, p), (other, _) in fabric.cables.items() if other in fabric.layers}
        assert len(inter_switch) == 8

        def counters(link: str) -> list[dict[str, Any]]:
            return sorted((e for e in list(lines) if e["event"] == "counters" and e["link_id"] == link),
                          key=lambda e: e["polled_ms"])

        # Counter samples arrive from every inter-switch port (OVS pushes each second).
        deadline = time.monotonic() + 30
        while not all(counters(f"{AGENT}/{index_of[p]}") for p in inter_switch):
            assert time.monotonic() < deadline, sorted(p for p in inter_switch if not counters(f"{AGENT}/{index_of[p]}"))
            time.sleep(0.2)
        assert all(e["device"] == AGENT and e["if_high_speed_mbps"] == 10_000 for e in lines if e["event"] == "counters")

        before = _tx(switches, "leaf1")
        h1 = next(r["interface"] for r in rows if (r["switch"], r["port"]) == ("leaf1", 1))
        raw = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        raw.bind((h1, 0))
        frame, sent = _frame(), 0
        start = time.monotonic()
        start_ms = time.time() * 1000
        while sent < PPS * SECONDS:  # paced: as many as due by now, in 10 ms steps
            due = min(int((time.monotonic() - start) * PPS) + 1, int(PPS * SECONDS))
            while sent < due:
                raw.send(frame)
                sent += 1
            time.sleep(0.01)
        end_ms = time.time() * 1000
        raw.close()
        sending_s = time.monotonic() - start

        # veths deliver asynchronously: wait until leaf1 sent every frame up one port
        deadline = time.monotonic() + 30
        while sum(_tx(switches, "leaf1")[p] - before[p] for p in (2, 3)) < sent * FRAME:
            assert time.monotonic() < deadline, (sent, _tx(switches, "leaf1"), before)
            time.sleep(0.2)
        after = _tx(switches, "leaf1")
        moved = [p for p in (2, 3) if after[p] != before[p]]
        assert len(moved) == 1 and after[moved[0]] - before[moved[0]] == sent * FRAME, (before, after)  # one path: one 5-tuple
        up_port = moved[0]
        spine, leaf2_port = VIA[up_port]
        assert _tx(switches, spine)[2] >= sent * FRAME  # the spine sent it on to leaf2
        # OVS's counters as the last counter sample will show them: wait for a push that has them all
        link = f"{AGENT}/{index_of[('leaf1', up_port)]}"
        deadline = time.monotonic() + 30
        while not counters(link) or counters(link)[-1]["if_hc_out_octets"] != after[up_port]:
            assert time.monotonic() < deadline, (counters(link)[-3:], after[up_port])
            time.sleep(0.2)
    finally:
        if switches is not None:
            down(tmp_path / "ovs")
        assert collector.stdin is not None
        collector.stdin.close()  # -exit-on-stdin-eof: stops as on SIGTERM, flushing the flows file
        try:
            collector.wait(30)
        except subprocess.TimeoutExpired:
            collector.send_signal(signal.SIGKILL)
            collector.wait()
    assert collector.returncode == 0, (tmp_path / "collector.log").read_text()[-2000:]

    # 1. Placement: every sample of the flow names one hop of the path OVS's counters show, and each hop is
    # sampled (1 in 10 of 7500 packets at each switch).
    ours = [f for f in read_flows(flows_file.read_bytes()) if f.get(SRC_PORT) == SPORT and f.get(DST_PORT) == DPORT]
    assert ours and all(f[SAMPLING_RATE] == 10 and f[SAMPLER] == socket.inet_aton(AGENT) for f in ours)
    hops = [(port_of[f[IN_IF]], port_of[f[OUT_IF]]) for f in ours]
    path = {(("leaf1", 1), ("leaf1", up_port)), ((spine, 1), (spine, 2)), (("leaf2", leaf2_port), ("leaf2", 1))}
    assert set(hops) == path, (set(hops), path)
    # 2. Elephant rate: leaf1's samples out of up_port, bytes x sampling rate, estimate what OVS counted on
    # that link. The sample count is binomial (n = 7500, p = 0.1: sd about 3.5 % of the mean); 15 % is
    # more than 4 sd.
    at_leaf1 = [f for f, h in zip(ours, hops) if h[1] == ("leaf1", up_port)]
    estimate = sum(f[BYTES] * f[SAMPLING_RATE] for f in at_leaf1)
    counted = after[up_port] - before[up_port]
    assert abs(estimate - counted) <= 0.15 * counted, (estimate, counted, len(at_leaf1))
    # 3. Utilisation from the counter samples of leaf1:up_port: the octets between its first and last record
    # are exactly what OVS counted (no other traffic), and the rate over the full intervals inside the sending
    # window agrees with the rate the test sent at (OVS's byte count over the sending time) within 10 %.
    records = counters(link)
    assert records[0]["if_hc_out_octets"] == before[up_port] and records[-1]["if_hc_out_octets"] == after[up_port]
    inside = [r for r in records if start_ms + 500 <= r["polled_ms"] <= end_ms - 500]
    assert len(inside) >= 3, (records, start_ms, end_ms)
    octets = inside[-1]["if_hc_out_octets"] - inside[0]["if_hc_out_octets"]
    utilisation = octets * 8 / ((inside[-1]["polled_ms"] - inside[0]["polled_ms"]) / 1000)
    sent_rate = counted * 8 / sending_s
    assert abs(utilisation - sent_rate) <= 0.10 * sent_rate, (utilisation, sent_rate, inside)
    assert not [e for e in lines if e["event"] == "rejected"]

    # 4. The same through flink-jobs/fabric's placement and counter rates (./cheetah fabric sflow-links): the
    # flow is measured on exactly the four links of its path, with the estimate above on the up-link, and the
    # up-link's utilisation over the intervals inside the sending window agrees with the sending rate.
    fabric_file = tmp_path / "leaf-spine.yaml"
    fabric_file.write_text(docs_example())
    map_file = tmp_path / "sflow-map.json"
    map_file.write_text(json.dumps(rows))
    out = sflow_links(tmp_path, fabric_file, map_file, read_flows(flows_file.read_bytes()),
                      [e for e in lines if e["event"] == "counters"], int(end_ms - start_ms))
    # Refused: only the counters of the bridges' own local ports (OpenFlow port 65534), on no link.
    unplaced = {int(m.group(1)) for r in out["refused"]
                if (m := re.fullmatch(r"agent 127\.0\.0\.1 ifIndex (\d+) is on no link", r["reason"]))
                and r["at"].startswith(str(tmp_path / "counters.jsonl"))}
    assert len(unplaced) == 4 and not unplaced & set(port_of) and \
        len(out["refused"]) == sum(1 for e in lines if e["event"] == "counters" and e["if_index"] in unplaced), out["refused"][:5]
    flow = f"{H1}:{SPORT}>{H2}:{DPORT}/6"
    up_link = f"leaf1:{up_port}>{spine}:1"
    measured = {r["link"]: r["estimated_bytes"] for r in out["flows"] if r["flow"] == flow}
    assert set(measured) == {"h1:0>leaf1:1", up_link, f"{spine}:2>leaf2:{leaf2_port}", "leaf2:1>h2:0"}, measured
    assert abs(measured[up_link] - estimate) < 1  # the same samples, the same arithmetic (bit/s x window back to bytes)
    spans = [u for u in out["utilisation"] if u["link"] == up_link
             and start_ms + 500 <= u["from_ms"] and u["to_ms"] <= end_ms - 500]
    assert len(spans) >= 2, out["utilisation"]
    java_rate = sum(u["bps"] * (u["to_ms"] - u["from_ms"]) for u in spans) / sum(u["to_ms"] - u["from_ms"] for u in spans)
    assert abs(java_rate - sent_rate) <= 0.10 * sent_rate, (java_rate, sent_rate, spans)
    print(f"samples {len(ours)} (leaf1 {len(at_leaf1)}), estimate {estimate} B vs {counted} B counted; "
          f"utilisation {utilisation:.0f} bit/s (sflow-links {java_rate:.0f}) vs sent {sent_rate:.0f} bit/s")
