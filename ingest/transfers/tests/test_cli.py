from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.samples import GRIDFTP_LINE

HERE = Path(__file__).resolve().parents[1]


def ship(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cheetah_transfers", *args], cwd=HERE, capture_output=True,
                          text=True, timeout=60)


def test_a_directory_ships_and_bad_lines_go_to_rejects(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "a.log").write_text(GRIDFTP_LINE + "\nnot a log line\n")
    (logs / "b.log").write_text(GRIDFTP_LINE.replace("TYPE=RETR", "TYPE=STOR") + "\n")
    out, rej = tmp_path / "t.jsonl", tmp_path / "r.jsonl"
    p = ship("gridftp", str(logs), "--out", str(out), "--rejects", str(rej), "--server-address", "10.9.9.9")
    assert p.returncode == 0, p.stderr
    assert "2 record(s), 1 rejected" in p.stderr
    records = [json.loads(x) for x in out.read_text().splitlines()]
    assert [(r["src_host"], r["dst_host"]) for r in records] == [("10.9.9.9", "192.0.2.7"), ("192.0.2.7", "10.9.9.9")]
    (r,) = [json.loads(x) for x in rej.read_text().splitlines()]
    assert r["reason"] == "malformed_line" and r["detail"].startswith(f"{logs / 'a.log'}:2:")


def test_an_unreadable_input_exits_1_after_shipping_the_rest(tmp_path: Path) -> None:
    good = tmp_path / "g.log"
    good.write_text(GRIDFTP_LINE + "\n")
    out = tmp_path / "t.jsonl"
    p = ship("gridftp", str(tmp_path / "missing.log"), str(good), "--out", str(out))
    assert p.returncode == 1
    assert len(out.read_text().splitlines()) == 1
    assert '"reason":"unreadable_file"' in p.stderr


def test_usage_error() -> None:
    p = ship("ftp", "x")
    assert p.returncode == 2
    assert "invalid choice" in p.stderr
