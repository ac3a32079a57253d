"""cheetah-probe --help against the sources of truth it must agree with.

Topics: every Kafka topic --help names is in schemas/topics.yaml (read here with PyYAML, not
through the generated topics.h), the topics it says it exports are exactly the manifest's topics
whose producers include the probe, and the ones it reads are those whose consumers include it.
Defaults: each default --help states is the value a run without that option used (the run's
summary.json, written by the probe from its effective configuration).

Usage: check_help.py PROBE MANIFEST SUMMARY_JSON   (exit 0 when all agree; each mismatch printed)
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import yaml

TOPIC = re.compile(r"\b[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.v\d+\b")
# --help option -> summary.json config key, for the defaults a run records.
DEFAULTS = {
    "--flight-ms": "flight_ms",
    "--min-length": "min_length",
    "--sampling": "sampling",
    "--cache-size": "cache_size",
    "--idle-timeout-ms": "idle_timeout_ms",
    "--bin-ms": "bin_ms",
}


def option_text(help_text: str, option: str) -> str:
    """The paragraph of one option: its line and the indented lines that continue it."""
    lines = help_text.splitlines()
    for i, line in enumerate(lines):
        if line.lstrip().startswith(option + " "):
            para = [line]
            for more in lines[i + 1 :]:
                if more.startswith("  --") or not more.startswith("    "):
                    break
                para.append(more)
            return " ".join(p.strip() for p in para)
    raise AssertionError(f"--help has no {option} option")


def main(argv: list[str]) -> int:
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    probe, manifest, summary = argv[1], Path(argv[2]), Path(argv[3])
    help_text = subprocess.run([probe, "--help"], capture_output=True, text=True, check=True, timeout=30).stdout
    topics = yaml.safe_load(manifest.read_text())["topics"]
    names = {t["name"] for t in topics}
    produced = {t["name"] for t in topics if "probe" in t.get("producers", [])}
    consumed = {t["name"] for t in topics if "probe" in t.get("consumers", [])}
    errors = []

    unknown = set(TOPIC.findall(help_text)) - names
    if unknown:
        errors.append(f"--help names topics that {manifest} does not have: {sorted(unknown)}")
    kafka = option_text(help_text, "--kafka")
    exports, _, reads = kafka.partition("read R live from")
    if set(TOPIC.findall(exports)) != produced:
        errors.append(f"--kafka exports {sorted(set(TOPIC.findall(exports)))}, but the manifest's topics produced "
                      f"by the probe are {sorted(produced)}")
    if set(TOPIC.findall(reads)) != consumed:
        errors.append(f"--kafka reads {sorted(set(TOPIC.findall(reads)))}, but the manifest's topics consumed "
                      f"by the probe are {sorted(consumed)}")

    used = json.loads(summary.read_text())["config"]
    for option, key in DEFAULTS.items():
        m = re.search(r"\(default ([0-9.e+]+)", option_text(help_text, option))
        if not m:
            errors.append(f"--help states no default for {option}")
        elif float(m.group(1)) != float(used[key]):
            errors.append(f"--help says {option} defaults to {m.group(1)}, a run without it used {key} = {used[key]}")

    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
