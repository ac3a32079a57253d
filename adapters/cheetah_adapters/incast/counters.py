"""The kernel's own TCP loss-recovery counters of one network namespace, read through a process
that lives in it (/proc/PID/net/{netstat,snmp} show that process's namespace).

  timeouts     TcpExt TCPTimeouts     retransmission timeouts fired (the incast collapse)
  loss_probes  TcpExt TCPLossProbes   tail loss probes sent (the cheap recovery before an RTO)
  retrans      Tcp RetransSegs        segments retransmitted, any cause
  spurious     TcpExt TCPSpuriousRTOs RTOs undone as spurious (F-RTO)
"""

from __future__ import annotations

FIELDS = {
    "timeouts": ("TcpExt", "TCPTimeouts"),
    "loss_probes": ("TcpExt", "TCPLossProbes"),
    "retrans": ("Tcp", "RetransSegs"),
    "spurious": ("TcpExt", "TCPSpuriousRTOs"),
}


def parse_proc_net(text: str) -> dict[str, dict[str, int]]:
    """/proc/net/netstat and /proc/net/snmp: pairs of lines "Proto: names..." / "Proto: values..."."""
    out: dict[str, dict[str, int]] = {}
    lines = text.splitlines()
    for names, values in zip(lines[0::2], lines[1::2]):
        proto, _, keys = names.partition(":")
        proto2, _, vals = values.partition(":")
        if proto != proto2:
            raise ValueError(f"unpaired lines in a /proc/net table: {names!r} / {values!r}")
        out[proto] = {k: int(v) for k, v in zip(keys.split(), vals.split())}
    return out


def read(pid: int) -> dict[str, int]:
    tables: dict[str, dict[str, int]] = {}
    for name in ("netstat", "snmp"):
        with open(f"/proc/{pid}/net/{name}") as f:
            tables.update(parse_proc_net(f.read()))
    return {key: tables[proto][field] for key, (proto, field) in FIELDS.items()}


def delta(after: dict[str, int], before: dict[str, int]) -> dict[str, int]:
    return {k: after[k] - before[k] for k in after}


def total(many: list[dict[str, int]]) -> dict[str, int]:
    return {k: sum(m[k] for m in many) for k in FIELDS}
