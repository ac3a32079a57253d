"""``ship-transfers --kafka`` without a broker: the settings file, the key, and what is not delivered.

Publishing to a real broker and the warehouse storing it (once, also when shipped again):
clickhouse/warehouse/tests/test_transfers_shipped.py.
"""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cheetah_transfers.kafka import KafkaSetupError, host_sample_message, message_class, read_client_options, topic, \
    transfer_key
from tests.samples import GRIDFTP_LINE

HERE = Path(__file__).resolve().parents[1]


def ship(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cheetah_transfers", *args], cwd=HERE, capture_output=True,
                          text=True, timeout=90)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens once the socket is closed


def test_the_key_is_the_host_pair_and_topics_come_from_the_manifest() -> None:
    assert transfer_key({"src_host": "10.0.0.1", "dst_host": "dtn2"}) == b"10.0.0.1\ndtn2"
    # Hand-read from schemas/topics.yaml.
    assert topic("transfers") == ("transfers.v1", "cheetah/v1/transfers.proto:Transfer")
    assert topic("rejected") == ("flows.rejected.v1", "cheetah/v1/flows.proto:RejectedRecord")
    assert topic("host_samples") == ("transfers.hosts.v1", "cheetah/v1/transfers.proto:HostSample")


def test_a_host_sample_leaves_what_was_not_sampled_unset() -> None:
    """Not sampled is not 0 %: the job's PRCA would average a 0 into the host's use."""
    from google.protobuf import json_format

    sample = {"host": "10.0.2.1", "time_ms": 1700000000000, "cpu_percent": None, "disk_percent": 97.5,
              "nic_percent": None, "nic_bps": 0.0}
    assert host_sample_message(sample) == {"host": "10.0.2.1", "time_ms": 1700000000000, "disk_percent": 97.5,
                                           "nic_bps": 0.0}
    m = json_format.ParseDict(host_sample_message(sample), message_class(topic("host_samples")[1])())
    assert (m.host, m.time_ms, m.disk_percent) == ("10.0.2.1", 1700000000000, 97.5)
    assert not m.HasField("cpu_percent") and not m.HasField("nic_percent")


def test_the_settings_file_is_read_as_the_adapters_read_theirs(tmp_path: Path) -> None:
    f = tmp_path / "client.properties"
    f.write_text("# the shippers' principal\nsecurity.protocol=SASL_SSL\n\nsasl.password = a=b\n")
    assert read_client_options(f) == {"security.protocol": "SASL_SSL", "sasl.password": "a=b"}
    f.write_text("security.protocol\n")
    with pytest.raises(KafkaSetupError, match=r"client.properties:1: not a key=value line"):
        read_client_options(f)


def test_an_unreadable_settings_file_or_one_without_kafka_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    log.write_text(GRIDFTP_LINE + "\n")
    p = ship("gridftp", str(log), "--kafka", "127.0.0.1:9", "--kafka-config", str(tmp_path / "missing"))
    assert p.returncode == 2 and "--kafka-config" in p.stderr and "cannot read it" in p.stderr
    p = ship("gridftp", str(log), "--kafka-config", str(log))
    assert p.returncode == 2 and "--kafka-config needs --kafka" in p.stderr


def test_what_kafka_does_not_acknowledge_is_counted_and_exits_1(tmp_path: Path) -> None:
    log = tmp_path / "g.log"
    log.write_text(GRIDFTP_LINE + "\nnot a log line\n")
    settings = tmp_path / "client.properties"
    settings.write_text("message.timeout.ms=2000\n")  # give up quickly: no broker listens
    p = ship("gridftp", str(log), "--kafka", f"127.0.0.1:{closed_port()}", "--kafka-config", str(settings))
    assert p.returncode == 1, p.stderr
    assert "1 record(s), 1 rejected" in p.stderr
    assert "sent 0 to transfers.v1, 0 to flows.rejected.v1; NOT delivered: 1 to transfers.v1; NOT delivered: 1 to" \
        " flows.rejected.v1" in p.stderr
    assert "check --kafka and --kafka-config" in p.stderr


def test_sysstat_samples_go_to_kafka_without_a_hosts_file(tmp_path: Path) -> None:
    """sysstat with --kafka alone publishes its samples on transfers.hosts.v1 (counted when Kafka
    does not acknowledge them); with neither --hosts nor --kafka it is refused (test_sysstat.py)."""
    sa = tmp_path / "sadf.json"
    sa.write_text((HERE / "tests" / "sadf_j_sysstat_12.6.1.json").read_text())
    settings = tmp_path / "client.properties"
    settings.write_text("message.timeout.ms=2000\n")
    p = ship("sysstat", str(sa), "--as-host", "10.0.2.1", "--kafka", f"127.0.0.1:{closed_port()}", "--kafka-config",
             str(settings))
    assert p.returncode == 1, p.stderr
    assert "0 record(s), 0 rejected, 2 host sample(s)" in p.stderr
    assert "NOT delivered: 2 to transfers.hosts.v1" in p.stderr
