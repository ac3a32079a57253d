"""--kafka-config: the adapters' Kafka credentials as librdkafka settings (docs/DEPLOY.md, "Security")."""

from pathlib import Path

import pytest

from cheetah_adapters.kafka_loop import KafkaSetupError, read_client_options


def test_settings_comments_and_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "a.properties"
    f.write_text("# principal cheetah-adapters\n\nsasl.username=cheetah-adapters\nsasl.password=x=y\n")
    assert read_client_options(f) == {"sasl.username": "cheetah-adapters", "sasl.password": "x=y"}


def test_bad_lines_and_missing_files_are_refused(tmp_path: Path) -> None:
    f = tmp_path / "a.properties"
    f.write_text("=nokey\n")
    with pytest.raises(KafkaSetupError, match=r"a\.properties:1"):
        read_client_options(f)
    with pytest.raises(KafkaSetupError, match="cannot read it"):
        read_client_options(tmp_path / "absent")
