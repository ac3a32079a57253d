"""Byte-level tests of the NetFlow v9 and IPFIX encoders against hand-written bytes."""

from __future__ import annotations

from cheetah_generator import ipfix, netflow_v9
from cheetah_generator.flows import ip_from_str


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", "").replace("\n", ""))


RECORD_VALUES = dict(
    bytes_=1500,
    packets=1,
    proto=6,
    tos=0,
    tcp_flags=0x1B,
    src_port=40000,
    src=ip_from_str("198.18.1.10"),
    dst_port=443,
    dst=ip_from_str("198.18.2.20"),
    src_as=65001,
    dst_as=65002,
    in_if=10,
    out_if=11,
)


class TestNetflowV9:
    def test_header(self) -> None:
        got = netflow_v9.header(count=3, sys_uptime_ms=0x01020304, unix_secs=0x65000000, sequence=7, source_id=1)
        assert got == h("0009 0003 01020304 65000000 00000007 00000001")

    def test_template_flowset(self) -> None:
        got = netflow_v9.template_flowset(256, netflow_v9.FLOW_FIELDS)
        assert got == h(
            "0000 0044 0100 000f"
            " 0001 0008  0002 0008  0004 0001  0005 0001  0006 0001  0007 0002  0008 0004  000b 0002"
            " 000c 0004  0010 0004  0011 0004  000a 0004  000e 0004  0015 0004  0016 0004"
        )

    def test_data_record_uses_uptime_relative_switched_times(self) -> None:
        rec = netflow_v9.flow_record(**RECORD_VALUES, first_ms=2000, last_ms=3500, boot_ms=1000)
        assert (
            rec
            == h(
                "00000000000005dc 0000000000000001 06 00 1b 9c40 c612010a 01bb c6120214"
                " 0000fde9 0000fdea 0000000a 0000000b"
                " 000009c4"  # LAST_SWITCHED = 3500 - 1000
                " 000003e8"  # FIRST_SWITCHED = 2000 - 1000
            )
        )
        assert len(rec) == 55

    def test_data_flowset_is_padded_to_four_bytes(self) -> None:
        rec = netflow_v9.flow_record(**RECORD_VALUES, first_ms=2000, last_ms=3500, boot_ms=1000)
        fs = netflow_v9.flowset(256, rec)
        assert fs[:4] == h("0100 003c")  # 4 + 55 = 59, padded to 60
        assert fs[4:59] == rec and fs[59:] == h("00")

    def test_options_template_and_sampling_record(self) -> None:
        tmpl = netflow_v9.options_template_flowset(257, netflow_v9.OPTION_SCOPES, netflow_v9.OPTION_FIELDS)
        # scope length 4 bytes (System), option length 8 bytes (interval, algorithm), 2 bytes padding
        assert tmpl == h("0001 0018 0101 0004 0008  0001 0004  0022 0004  0023 0001  0000")
        data = netflow_v9.flowset(257, netflow_v9.sampling_record(source_id=1, interval=10))
        assert data == h("0101 0010 00000001 0000000a 01 000000")

    def test_switched_times_before_boot_are_refused(self) -> None:
        try:
            netflow_v9.flow_record(**RECORD_VALUES, first_ms=500, last_ms=3500, boot_ms=1000)
        except ValueError as e:
            assert "boot" in str(e)
        else:
            raise AssertionError("a record before exporter boot must be refused")


class TestIpfix:
    def test_header(self) -> None:
        got = ipfix.header(length=0x30, export_time_s=0x65000000, sequence=5, domain_id=2)
        assert got == h("000a 0030 65000000 00000005 00000002")

    def test_template_set(self) -> None:
        got = ipfix.template_set(256, ipfix.FLOW_FIELDS)
        assert got == h(
            "0002 0044 0100 000f"
            " 0001 0008  0002 0008  0004 0001  0005 0001  0006 0002  0007 0002  0008 0004  000b 0002"
            " 000c 0004  0010 0004  0011 0004  000a 0004  000e 0004  0098 0008  0099 0008"
        )

    def test_data_record_has_absolute_millisecond_times(self) -> None:
        rec = ipfix.flow_record(**RECORD_VALUES, first_ms=1793577600000, last_ms=1793577600123)
        assert (
            rec
            == h(
                "00000000000005dc 0000000000000001 06 00 001b 9c40 c612010a 01bb c6120214"
                " 0000fde9 0000fdea 0000000a 0000000b"
                " 000001a1998e4400"  # flowStartMilliseconds 2026-11-02T00:00:00.000Z
                " 000001a1998e447b"  # flowEndMilliseconds   2026-11-02T00:00:00.123Z
            )
        )
        assert ipfix.set_(256, rec)[:4] == h("0100 0044")  # 4 + 64, already aligned

    def test_options_template_scope_is_observation_domain(self) -> None:
        tmpl = ipfix.options_template_set(257, ipfix.OPTION_SCOPES, ipfix.OPTION_FIELDS)
        # field count 3, scope field count 1: observationDomainId(149); samplingInterval(34), samplingAlgorithm(35)
        assert tmpl == h("0003 0018 0101 0003 0001  0095 0004  0022 0004  0023 0001  0000")
        data = ipfix.set_(257, ipfix.sampling_record(domain_id=2, interval=100))
        assert data == h("0101 0010 00000002 00000064 01 000000")
