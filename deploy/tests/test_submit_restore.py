"""What flink-submit restores a job from (deploy/docker/flink/submit-jobs.sh --restore-point): the
newest complete savepoint or retained checkpoint of that job, never an incomplete checkpoint (no
_metadata: the JobManager died while writing it) nor another job's. Real directories, times set
by hand; the script itself runs (bash)."""

from __future__ import annotations

import os
import subprocess

from compose_files import ROOT

SCRIPT = ROOT / "deploy" / "docker" / "flink" / "submit-jobs.sh"


def restore_point(tmp_path, job: str) -> str:
    env = {**os.environ, "CHEETAH_SAVEPOINTS": str(tmp_path / "savepoints"),
           "CHEETAH_CHECKPOINTS": str(tmp_path / "checkpoints")}
    out = subprocess.run(["bash", str(SCRIPT), "--restore-point", job], env=env, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def make(path, mtime: float, complete: bool = True):
    path.mkdir(parents=True)
    if complete:
        (path / "_metadata").write_bytes(b"x")
        os.utime(path / "_metadata", (mtime, mtime))
    os.utime(path, (mtime, mtime))
    return path


def test_nothing_to_restore_is_a_fresh_start(tmp_path):
    assert restore_point(tmp_path, "cheetah-normalize") == ""


def test_the_newest_complete_one_wins(tmp_path):
    sp = tmp_path / "savepoints" / "cheetah-normalize"
    cp = tmp_path / "checkpoints" / "cheetah-normalize"
    make(sp / "savepoint-aaaa-1", 1000)
    make(cp / "job1" / "chk-7", 2000)
    make(cp / "job2" / "chk-3", 3000)
    make(cp / "job2" / "chk-4", 4000, complete=False)  # cut short: no _metadata
    make(tmp_path / "checkpoints" / "cheetah-redirects" / "job9" / "chk-99", 9000)  # another job's
    assert restore_point(tmp_path, "cheetah-normalize") == str(cp / "job2" / "chk-3")
    make(sp / "savepoint-bbbb-2", 5000)  # a savepoint taken later (stop with savepoint) wins
    assert restore_point(tmp_path, "cheetah-normalize") == str(sp / "savepoint-bbbb-2")
    assert restore_point(tmp_path, "cheetah-redirects").endswith("job9/chk-99")
