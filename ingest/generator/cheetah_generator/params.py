"""Typed configuration: every default of the generator lives here, nowhere else.

The truth definitions (cheetah flow, parallel flowset) follow
docs/ARCHITECTURE.md, "Definitions and defaults". The defaults of those definitions are
the platform's (its config model, `./cheetah config`); `python -m cheetah_generator
definitions` prints these, and the platform's GeneratorDefinitionsTest compares the two.
"""

from __future__ import annotations

from dataclasses import dataclass

# 2026-11-01T23:00:00Z: a fixed, recent, hour-aligned epoch one hour before a
# midnight UTC, so the default span (2 h) contains a midnight crossing.
DEFAULT_TIME_BASE_MS = 1_793_574_000_000
DAY_MS = 86_400_000


@dataclass(frozen=True)
class TruthParams:
    """Parameters of the cheetah / flowset definitions the truth is computed with."""

    h_bytes: int = 1_000_000_000  # H: bytes within one aligned interval
    interval_ms: int = 60_000  # I: aligned to the epoch, [k*I, (k+1)*I)
    tau_ms: int = 10_000  # tau: start gap that opens a new flowset
    gap_ms: int = 30_000  # G: stitching gap of the platform (reported only)
    # Guards that keep the truth unambiguous (resampled in the workload):
    ambiguity_frac: float = 0.03  # no peak within +-3 % of H
    tau_guard_ms: int = 1_000  # no start gap within +-1 s of tau

    def __post_init__(self) -> None:
        if self.h_bytes <= 0 or self.interval_ms <= 0 or self.tau_ms < 0 or self.gap_ms < 0:
            raise ValueError(
                f"truth parameters must be positive: H={self.h_bytes} I={self.interval_ms} ms "
                f"tau={self.tau_ms} ms G={self.gap_ms} ms"
            )


@dataclass(frozen=True)
class ExportParams:
    """How the modelled exporter turns flows into records and datagrams."""

    version: int = 9  # 9 = NetFlow v9 (RFC 3954), 10 = IPFIX (RFC 7011)
    sampling: int = 1  # 1:N packet sampling; exported counts are floor(x / N)
    # 1:N per exporter (index k), overriding `sampling` when given: one entry per exporter
    exporter_sampling: tuple[int, ...] = ()
    active_timeout_ms: int = 60_000
    exporters: int = 2  # modelled exporters, distinct source id / observation domain
    source_id_base: int = 1  # exporter k has source id source_id_base + k
    template_every: int = 100  # re-send templates every N datagrams per exporter
    max_datagram_bytes: int = 1400
    flush_ms: int = 1_000  # a record waits at most this (virtual) in a datagram buffer
    boot_before_ms: int = DAY_MS  # exporter boot time = time base - this (v9 sysUptime)

    def __post_init__(self) -> None:
        if self.version not in (9, 10):
            raise ValueError(f"export version must be 9 or 10, got {self.version}")
        if self.sampling < 1 or any(n < 1 for n in self.exporter_sampling):
            raise ValueError(f"sampling must be >= 1 (1:N), got {self.sampling} {list(self.exporter_sampling)}")
        if self.exporter_sampling and len(self.exporter_sampling) != self.exporters:
            raise ValueError(
                f"per-exporter sampling needs one rate per exporter: {len(self.exporter_sampling)} "
                f"rates ({self.exporters_sampling_text()}) for {self.exporters} exporters"
            )
        if self.active_timeout_ms <= 0:
            raise ValueError(f"active timeout must be > 0 ms, got {self.active_timeout_ms}")
        if self.exporters < 1:
            raise ValueError(f"need at least one exporter, got {self.exporters}")
        if not 200 <= self.max_datagram_bytes <= 65_000:
            raise ValueError(f"max datagram size must be in [200, 65000], got {self.max_datagram_bytes}")
        if self.template_every < 1:
            raise ValueError(f"template_every must be >= 1, got {self.template_every}")


    def sampling_of(self, exporter: int) -> int:
        """1:N of modelled exporter `exporter` (its index)."""
        return self.exporter_sampling[exporter] if self.exporter_sampling else self.sampling

    def exporters_sampling_text(self) -> str:
        return ",".join(str(n) for n in self.exporter_sampling) or str(self.sampling)


@dataclass(frozen=True)
class WorkloadParams:
    """The modelled research-site traffic (NetFlow mode)."""

    seed: int = 1
    time_base_ms: int = DEFAULT_TIME_BASE_MS
    span_ms: int = 2 * 3_600_000  # D
    margin_ms: int = 15 * 60_000  # transfers end before D - margin
    sites: int = 6  # site-a .. site-f, 198.18.<k+1>.0/24
    mice_per_s: float = 20.0
    realtime_flows: int = 60
    realtime_bps: tuple[float, float] = (1e6, 8e6)
    realtime_duration_s: tuple[float, float] = (300.0, 3_600.0)
    transfers: int = 50
    transfer_bytes: tuple[float, float] = (1e9, 1e12)
    transfer_bps: tuple[float, float] = (0.3e9, 10e9)
    max_streams: int = 16
    stagger_ms: int = 3_000  # stream starts of one transfer spread over this
    cross_midnight: bool | None = None  # None: when the span allows it

    def __post_init__(self) -> None:
        if self.span_ms <= 0 or self.margin_ms < 0 or self.margin_ms >= self.span_ms:
            raise ValueError(f"need span > margin >= 0, got span={self.span_ms} ms margin={self.margin_ms} ms")
        if not 2 <= self.sites <= 254:
            raise ValueError(f"sites must be in [2, 254] (transfers go between sites), got {self.sites}")
        if not 1 <= self.max_streams <= 1000:
            raise ValueError(f"max streams must be in [1, 1000], got {self.max_streams}")
