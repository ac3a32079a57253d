"""sysstat's ``sadf -j`` output as host resource samples (the transfer hosts' CPU, disk and NIC use).

sysstat (Debian's ``sysstat``: ``sadc`` samples /proc into daily files, ``sadf -j`` prints them as
JSON) is the sampler: ``sadf -j FILE -- -u -d -n DEV -p`` gives, per host and per interval, the CPU
split (``cpu-load``, the ``all`` row), each disk's ``util-percent`` and each interface's
``ifutil-percent``. One statistics entry becomes one sample at the interval's end:

- cpu_percent = 100 - idle of the ``all`` row;
- disk_percent = the busiest disk's util-percent (a transfer's disk bottleneck is its busiest disk);
- nic_percent = the busiest interface's ifutil-percent, loopback (``lo``) left out;
- nic_bps = 0 (unknown: sadf reports no link speed).

A disk's or interface's use a little over 100 (up to ``OVERSHOOT_PERCENT``) is taken as 100: sadf
divides a busy time by an interval read at another moment, so a device busy the whole interval can
show more (util-percent 100.2 and 100.4 were seen for a loop device kept busy by 16 writers, 1-s
samples on a loaded machine). Anything above that is a bad number.

A part that is missing from an entry (sadf run without ``-d``, or a host with no disk) is None
("not sampled"), never 0. An entry that cannot be read becomes a reject with a reason; it never
stops the others. Times must be UTC (``"utc": 1``: sadf's default; ``sadf -t`` prints local times,
rejected as ``local_time``).
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timezone
from typing import Any

from .records import BadRecord, Parsed, host_sample, reject

LOOPBACK = "lo"
OVERSHOOT_PERCENT = 110.0  # a device's use up to this is read as 100 (see above)


def parse_sysstat(text: str, source: str = "-") -> Parsed:
    """Every statistics entry of every host in ``sadf -j`` output ``text`` as a host sample;
    entries that do not parse become rejects. Never raises."""
    out = Parsed()
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as e:
        out.rejects.append(reject("malformed_json", f"not sadf -j JSON: {e}", text, source, 1))
        return out
    try:
        hosts = doc["sysstat"]["hosts"]
        if not isinstance(hosts, list):
            raise TypeError(f"sysstat.hosts is a {type(hosts).__name__}, not a list")
    except (KeyError, TypeError) as e:
        out.rejects.append(reject("unexpected_layout", f"not sadf -j output (no sysstat.hosts list: {e})",
                                  text, source, 1))
        return out
    for h, host in enumerate(hosts):
        name = host.get("nodename") if isinstance(host, dict) else None
        stats = host.get("statistics") if isinstance(host, dict) else None
        if not isinstance(name, str) or not name.strip() or not isinstance(stats, list):
            out.rejects.append(reject("unexpected_layout", f"host {h}: needs a nodename and a statistics list",
                                      _dump(host), source, 1))
            continue
        for i, entry in enumerate(stats):
            try:
                out.host_samples.append(sample(name.strip(), entry))
            except BadRecord as e:
                out.rejects.append(reject(e.reason, f"host {name} entry {i}: {e}", _dump(entry), source, 1))
            except (KeyError, TypeError, ValueError, AttributeError, IndexError, OverflowError) as e:
                out.rejects.append(reject("unexpected_layout",
                                          f"host {name} entry {i}: not a sadf -j entry ({type(e).__name__}: {e})",
                                          _dump(entry), source, 1))
    return out


def sample(host: str, entry: Any) -> dict[str, Any]:
    """One statistics entry as a host sample. Raises BadRecord (or a lookup error on a layout
    that is not sadf's)."""
    if not isinstance(entry, dict):
        raise BadRecord("unexpected_layout", f"an entry is a JSON object, got {type(entry).__name__}")
    ts = entry["timestamp"]
    if ts.get("utc") != 1:
        raise BadRecord("local_time", "the time is local (sadf -t); run sadf without -t for UTC times")
    try:
        at = datetime.strptime(f"{ts['date']} {ts['time']}", "%Y-%m-%d %H:%M:%S").replace(tzinfo=timezone.utc)
    except (ValueError, TypeError) as e:
        raise BadRecord("bad_time", f"timestamp {ts.get('date')!r} {ts.get('time')!r}: {e}") from e
    ms = int(at.timestamp() * 1000)
    cpu = None
    if "cpu-load" in entry:
        rows = [r for r in entry["cpu-load"] if r.get("cpu") == "all"]
        if not rows:
            raise BadRecord("unexpected_layout", "cpu-load has no 'all' row")
        cpu = round(100.0 - _percent(rows[0]["idle"], "cpu idle"), 2)
    disk = None
    if entry.get("disk"):
        disk = max(_percent(d["util-percent"], f"disk {d.get('disk-device')} util-percent", OVERSHOOT_PERCENT)
                   for d in entry["disk"])
    nic = None
    devs = [d for d in (entry.get("network") or {}).get("net-dev") or [] if d.get("iface") != LOOPBACK]
    if devs:
        nic = max(_percent(d["ifutil-percent"], f"interface {d.get('iface')} ifutil-percent", OVERSHOOT_PERCENT)
                  for d in devs)
    if cpu is None and disk is None and nic is None:
        raise BadRecord("no_utilisation", "neither cpu-load, disk nor net-dev: run sadf -j -- -u -d -n DEV -p")
    return host_sample(host, ms, cpu, disk, nic, 0.0)


def _percent(value: Any, name: str, upto: float = 100.0) -> float:
    """A percentage in 0..100; a value in (100, upto] (a device's use read over an interval) is 100."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or not 0 <= value <= upto:
        raise BadRecord("bad_number", f"{name} must be a percentage in 0..100, got {value!r}"
                        + (f" (up to {upto:g} is read as 100)" if upto > 100 else ""))
    return round(min(float(value), 100.0), 2)


def _dump(value: Any) -> str:
    try:
        return json.dumps(value, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(value)
