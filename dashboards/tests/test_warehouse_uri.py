import pytest

from cheetah_dashboards.errors import DashboardsError
from cheetah_dashboards.warehouse_uri import sqlalchemy_uri


def test_plain_url_uses_the_read_only_dashboards_user() -> None:
    assert sqlalchemy_uri("http://127.0.0.1:18123") == \
        "clickhousedb://dashboards:cheetah-dashboards@127.0.0.1:18123/default"


def test_credentials_database_and_https_are_kept() -> None:
    assert sqlalchemy_uri("https://reader:p%40ss@ch.example:9443/cheetah") == \
        "clickhousedb://reader:p%40ss@ch.example:9443/cheetah?secure=true"


def test_default_ports_and_ipv6_host() -> None:
    assert sqlalchemy_uri("http://[::1]") == "clickhousedb://dashboards:cheetah-dashboards@[::1]:8123/default"


@pytest.mark.parametrize("url", ["127.0.0.1:8123", "tcp://127.0.0.1:9000", "http://", "http://host:notaport"])
def test_unusable_urls_are_refused_with_the_url_named(url: str) -> None:
    with pytest.raises(DashboardsError, match="warehouse URL"):
        sqlalchemy_uri(url)
