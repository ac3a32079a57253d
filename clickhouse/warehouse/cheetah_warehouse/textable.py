"""Aligned plain-text tables for terminal reports."""

from __future__ import annotations

from typing import Sequence


def render_table(headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool], indent: str = "  ") -> str:
    """Columns padded to their widest cell; ``right[i]`` right-aligns column i (numbers)."""
    widths = [len(h) for h in headers]
    for row in rows:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], len(cell))

    def line(cells: Sequence[str]) -> str:
        parts = [cell.rjust(widths[i]) if right[i] else cell.ljust(widths[i]) for i, cell in enumerate(cells)]
        return (indent + "  ".join(parts)).rstrip()

    out = [line(headers), line(["-" * w for w in widths])]
    out.extend(line(row) for row in rows)
    return "\n".join(out)


def human(value: float | None, unit: str, base: int = 1000) -> str:
    """1234567 B -> '1.23 MB'; 2.5e9 b/s -> '2.50 Gb/s'; None -> '-'."""
    if value is None:
        return "-"
    prefixes = ["", "k", "M", "G", "T", "P", "E"]
    magnitude = abs(value)
    i = 0
    while magnitude >= base and i < len(prefixes) - 1:
        magnitude /= base
        i += 1
    scaled = value / (base**i)
    if i == 0 and float(value).is_integer():
        return f"{int(value)} {unit}"
    return f"{scaled:.2f} {prefixes[i]}{unit}"


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:.1f} s" if value < 100 else f"{value:,.0f} s"


def count(value: int) -> str:
    return f"{value:,}"
