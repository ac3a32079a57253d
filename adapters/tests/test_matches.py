"""Command matches as devices see them, with keys worked out by hand."""

from __future__ import annotations

import pytest

from cheetah_adapters.messages import RedirectMessages
from cheetah_adapters.rules import InvalidMatch, match_of
from cheetah_adapters.targets.openflow import match_text
from cheetah_adapters.targets.tc_match import u32_keys
from tests.signer import Signer


def test_ipv4_mapped_five_tuple_becomes_ipv4(signer: Signer) -> None:
    match = match_of(signer.flow("x", "10.1.0.5", "192.168.7.9", 40000, 5201))
    assert (match.family, str(match.src), str(match.dst)) == (4, "10.1.0.5/32", "192.168.7.9/32")
    assert u32_keys(match) == [
        (0, 0x05000000, 0x0F000000),  # IHL 5
        (4, 0x00000000, 0x00001FFF),  # first fragment
        (8, 0x00060000, 0x00FF0000),  # tcp
        (12, 0x0A010005, 0xFFFFFFFF),
        (16, 0xC0A80709, 0xFFFFFFFF),
        (20, 0x9C401451, 0xFFFFFFFF),  # 40000 = 0x9c40, 5201 = 0x1451
    ]


def test_prefix_pair_lengths_and_partial_words(signer: Signer) -> None:
    match = match_of(signer.prefixes("p", "10.1.2.0/23", "2.0.0.0/7"))
    assert (str(match.src), str(match.dst)) == ("10.1.2.0/23", "2.0.0.0/7")
    assert u32_keys(match) == [(12, 0x0A010200, 0xFFFFFE00), (16, 0x02000000, 0xFE000000)]
    assert match_text(match) == "ip,nw_src=10.1.2.0/23,nw_dst=2.0.0.0/7"


def test_ipv6_prefix_across_words(signer: Signer) -> None:
    match = match_of(signer.prefixes("p", "2001:db8:ab00::/40", "::/0"))
    assert match.dst is None
    assert u32_keys(match) == [(8, 0x20010DB8, 0xFFFFFFFF), (12, 0xAB000000, 0xFF000000)]


@pytest.mark.parametrize("change, message", [
    ({"src_prefix_len": 129}, "exceeds 128"),
    ({"src_prefix": b"\x00" * 4}, "16 bytes"),
    ({"dst_port": 70000}, "exceeds 65535"),
    ({"proto": 1}, "ports given with proto 1"),
    ({"src_prefix_len": 0, "src_prefix": b"", "dst_prefix_len": 0, "dst_prefix": b""}, "every address"),
    ({"src_prefix_len": 120}, "host bits"),
])
def test_invalid_matches_are_explained(signer: Signer, messages: RedirectMessages, change: dict[str, object], message: str) -> None:
    command = signer.flow("x", "10.1.0.5", "10.2.0.9", 1, 2)
    for field, value in change.items():
        setattr(command, field, value)
    with pytest.raises(InvalidMatch, match=message):
        match_of(command)


def test_mixed_families_are_refused(signer: Signer) -> None:
    command = signer.flow("x", "10.1.0.5", "2001:db8::1", 1, 2)
    with pytest.raises(InvalidMatch, match="different address families"):
        match_of(command)
