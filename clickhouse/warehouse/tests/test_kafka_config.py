"""--kafka-config: the warehouse's Kafka credentials as librdkafka settings (docs/DEPLOY.md, "Security")."""

from pathlib import Path

import pytest

from cheetah_warehouse.consumer import read_client_options
from cheetah_warehouse.errors import WarehouseError


def test_settings_comments_and_blank_lines(tmp_path: Path) -> None:
    f = tmp_path / "w.properties"
    f.write_text("# principal cheetah-warehouse\n\nsecurity.protocol=SASL_SSL\nsasl.password=a=b\n  ssl.ca.location = /ca.pem \n")
    assert read_client_options(f) == {"security.protocol": "SASL_SSL", "sasl.password": "a=b", "ssl.ca.location": "/ca.pem"}


def test_a_line_without_a_key_is_refused_naming_file_and_line(tmp_path: Path) -> None:
    f = tmp_path / "w.properties"
    f.write_text("security.protocol=SASL_SSL\nnot a setting\n")
    with pytest.raises(WarehouseError, match=r"w\.properties:2: not a key=value line"):
        read_client_options(f)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="cannot read it"):
        read_client_options(tmp_path / "absent")
