"""The incast experiment's summary: one row per (N, guard), as CSV, a Markdown table and an SVG plot.

The 95 % interval of the mean RCT is Student's t over the seeded runs' means (the runs are the
independent samples; requests within a run share a connection's state), or over the requests
when there is a single run.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Protocol, Sequence

# Student's t, two-sided 95 %, by degrees of freedom (1..30); 1.96 past 30.
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
       2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]

COLUMNS = ["senders", "guard", "runs", "requests", "rct_ms_mean", "rct_ms_ci95", "rct_ms_median", "rct_ms_max",
           "goodput_mbps", "timeouts_per_request", "requests_with_timeout", "loss_probes_per_request",
           "retrans_per_request", "drops_per_request", "blocks_complete"]


class _Cfg(Protocol):
    block_bytes: int


class _Run(Protocol):
    senders: int
    guard: str
    rct_s: list[float]
    timeouts: list[int]
    loss_probes: list[int]
    retrans: list[int]
    drops: list[int]
    bytes_ok: bool


def ci95(samples: Sequence[float]) -> float:
    """Half-width of the 95 % interval of the mean (0 for fewer than two samples)."""
    if len(samples) < 2:
        return 0.0
    t = T95[len(samples) - 2] if len(samples) - 1 <= len(T95) else 1.96
    return t * statistics.stdev(samples) / math.sqrt(len(samples))


def summarize(cfg: _Cfg, runs: Sequence[_Run]) -> list[dict[str, Any]]:
    groups: dict[tuple[int, str], list[_Run]] = {}
    for r in runs:
        groups.setdefault((r.senders, r.guard), []).append(r)
    rows = []
    for (n, guard), rs in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] != "off")):
        rct = [x for r in rs for x in r.rct_s]
        k = len(rct)
        means = [statistics.fmean(r.rct_s) for r in rs]
        mean = statistics.fmean(rct)
        half = ci95(means) if len(rs) > 1 else ci95(rct)
        rows.append({
            "senders": n, "guard": guard, "runs": len(rs), "requests": k,
            "rct_ms_mean": round(mean * 1e3, 2), "rct_ms_ci95": round(half * 1e3, 2),
            "rct_ms_median": round(statistics.median(rct) * 1e3, 2), "rct_ms_max": round(max(rct) * 1e3, 2),
            "goodput_mbps": round(n * cfg.block_bytes * 8 / mean / 1e6, 2),
            "timeouts_per_request": round(sum(x for r in rs for x in r.timeouts) / k, 3),
            "requests_with_timeout": round(sum(1 for r in rs for x in r.timeouts if x > 0) / k, 3),
            "loss_probes_per_request": round(sum(x for r in rs for x in r.loss_probes) / k, 2),
            "retrans_per_request": round(sum(x for r in rs for x in r.retrans) / k, 2),
            "drops_per_request": round(sum(x for r in rs for x in r.drops) / k, 2),
            "blocks_complete": all(r.bytes_ok for r in rs),
        })
    return rows


def csv_text(rows: Sequence[dict[str, Any]]) -> str:
    lines = [",".join(COLUMNS)]
    lines += [",".join(str(row[c]).lower() if isinstance(row[c], bool) else str(row[c]) for c in COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def markdown_table(rows: Sequence[dict[str, Any]]) -> str:
    head = ["N", "guard", "runs × requests", "RCT mean ± 95 % (ms)", "RCT median / max (ms)", "goodput (Mb/s)",
            "timeouts / request", "requests with a timeout", "loss probes / request", "retransmits / request", "queue drops / request"]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if i != 1 else ":---" for i in range(len(head))) + "|"]
    for r in rows:
        out.append("| " + " | ".join([
            str(r["senders"]), r["guard"], f"{r['runs']} × {r['requests'] // r['runs']}",
            f"{r['rct_ms_mean']:.1f} ± {r['rct_ms_ci95']:.1f}", f"{r['rct_ms_median']:.1f} / {r['rct_ms_max']:.1f}",
            f"{r['goodput_mbps']:.1f}", f"{r['timeouts_per_request']:.2f}", f"{100 * r['requests_with_timeout']:.0f} %",
            f"{r['loss_probes_per_request']:.2f}", f"{r['retrans_per_request']:.1f}", f"{r['drops_per_request']:.1f}",
        ]) + (" |" if r["blocks_complete"] else " (blocks incomplete) |"))
    return "\n".join(out) + "\n"


# --- the plot: SVG written directly (no plotting library in the venv) --------------------------------

COLORS = {"off": "#c0392b", "on": "#2471a3"}
LABELS = {"off": "guard off", "on": "guard on"}


def _nice_max(v: float) -> float:
    if v <= 0:
        return 1.0
    e = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * e >= v:
            return m * e
    return 10 * e


def _panel(x0: float, y0: float, w: float, h: float, title: str, ylabel: str, xs: list[int],
           series: dict[str, list[tuple[int, float, float]]]) -> list[str]:
    """One chart: x = N (linear), y from 0; series: guard -> [(N, y, ci half-width)]."""
    out = []
    ymax = _nice_max(max((y + e for pts in series.values() for _, y, e in pts), default=1.0))
    xmin, xmax = min(xs), max(xs)
    span = max(xmax - xmin, 1)

    def px(n: float) -> float:
        return x0 + (n - xmin) / span * w

    def py(v: float) -> float:
        return y0 + h - v / ymax * h

    out.append(f'<text x="{x0 + w / 2:.1f}" y="{y0 - 12:.1f}" text-anchor="middle" font-size="14">{title}</text>')
    for i in range(6):
        v = ymax * i / 5
        out.append(f'<line x1="{x0:.1f}" y1="{py(v):.1f}" x2="{x0 + w:.1f}" y2="{py(v):.1f}" stroke="#e4e4e4"/>')
        out.append(f'<text x="{x0 - 6:.1f}" y="{py(v) + 4:.1f}" text-anchor="end" font-size="11">{v:g}</text>')
    for n in xs:
        out.append(f'<line x1="{px(n):.1f}" y1="{y0:.1f}" x2="{px(n):.1f}" y2="{y0 + h:.1f}" stroke="#f0f0f0"/>')
        out.append(f'<text x="{px(n):.1f}" y="{y0 + h + 16:.1f}" text-anchor="middle" font-size="11">{n}</text>')
    out.append(f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{w:.1f}" height="{h:.1f}" fill="none" stroke="#888"/>')
    out.append(f'<text x="{x0 + w / 2:.1f}" y="{y0 + h + 36:.1f}" text-anchor="middle" font-size="12">senders N</text>')
    out.append(f'<text x="{x0 - 46:.1f}" y="{y0 + h / 2:.1f}" text-anchor="middle" font-size="12" '
               f'transform="rotate(-90 {x0 - 46:.1f} {y0 + h / 2:.1f})">{ylabel}</text>')
    for guard, pts in series.items():
        c = COLORS.get(guard, "#333")
        path = " ".join(f"{'M' if i == 0 else 'L'}{px(n):.1f},{py(y):.1f}" for i, (n, y, _) in enumerate(pts))
        out.append(f'<path d="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for n, y, e in pts:
            if e > 0:
                out.append(f'<line x1="{px(n):.1f}" y1="{py(max(y - e, 0)):.1f}" x2="{px(n):.1f}" y2="{py(y + e):.1f}" stroke="{c}"/>')
            out.append(f'<circle cx="{px(n):.1f}" cy="{py(y):.1f}" r="3" fill="{c}"/>')
    return out


def svg(cfg: Any, rows: Sequence[dict[str, Any]]) -> str:
    xs = sorted({r["senders"] for r in rows})
    guards = [g for g in ("off", "on") if any(r["guard"] == g for r in rows)]

    def series(key: str, err: str | None = None) -> dict[str, list[tuple[int, float, float]]]:
        return {g: [(r["senders"], float(r[key]), float(r[err]) if err else 0.0) for r in rows if r["guard"] == g] for g in guards}

    W, H = 1080, 400
    pw, ph, top = 260, 250, 70
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">',
             '<rect width="100%" height="100%" fill="white"/>',
             f'<text x="{W / 2}" y="24" text-anchor="middle" font-size="15">Incast: {cfg.block_bytes // 1024} KB per sender through a '
             f'{cfg.rate} port with a {cfg.buffer_bytes // 1024} KB buffer</text>']
    parts += _panel(80, top, pw, ph, "request completion time", "RCT mean (ms), 95 % interval", xs, series("rct_ms_mean", "rct_ms_ci95"))
    parts += _panel(440, top, pw, ph, "goodput", "goodput (Mb/s)", xs, series("goodput_mbps"))
    parts += _panel(800, top, pw, ph, "retransmission timeouts", "RTOs per request (all senders)", xs, series("timeouts_per_request"))
    for i, g in enumerate(guards):
        x = 80 + i * 140
        parts.append(f'<line x1="{x}" y1="{H - 14}" x2="{x + 24}" y2="{H - 14}" stroke="{COLORS[g]}" stroke-width="2"/>')
        parts.append(f'<text x="{x + 30}" y="{H - 10}">{LABELS[g]}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"
