-- One row per throughput observation (throughput.v1, docs/ARCHITECTURE.md, "Transfer throughput"):
-- active (a transfer tool's log) or passive (formula 1 of an application instance's flows).
-- bps is sum_stream_bps, the value the throughput job's series run over. The forecast band is the
-- study's ±1 sample standard deviation around the mean forecast (forecast_mean5_bps), the standard
-- deviation taken over the same 5 previous observations of the series (host pair, active or passive)
-- the mean was; none before 5. NaN (not forecast, not fitted yet) is shown as no value.
-- Sites: an IPv4 host's /24, an IPv6 host's /48, else a host name's domain (the throughput job's
-- peers, `throughput.site-prefix-v4` at its default 24).
SELECT
    start_at,
    end_at,
    src_host,
    dst_host,
    concat(src_host, ' → ', dst_host) AS host_pair,
    concat(multiIf(isIPv4String(src_host), concat(IPv4NumToString(bitAnd(toUInt32(toIPv4OrDefault(src_host)), 4294967040)), '/24'),
                   isIPv6String(src_host), concat(cutIPv6(toIPv6OrDefault(src_host), 10, 0), '/48'),
                   position(src_host, '.') > 0, substring(src_host, position(src_host, '.') + 1), src_host),
           ' → ',
           multiIf(isIPv4String(dst_host), concat(IPv4NumToString(bitAnd(toUInt32(toIPv4OrDefault(dst_host)), 4294967040)), '/24'),
                   isIPv6String(dst_host), concat(cutIPv6(toIPv6OrDefault(dst_host), 10, 0), '/48'),
                   position(dst_host, '.') > 0, substring(dst_host, position(dst_host, '.') + 1), dst_host)) AS site_pair,
    if(passive, 'passive', 'active') AS source,
    streams,
    bytes,
    sum_stream_bps AS bps,
    if(passive, NULL, sum_stream_bps) AS active_bps,
    if(passive, sum_stream_bps, NULL) AS passive_bps,
    if(isFinite(forecast_mean5_bps), forecast_mean5_bps, NULL) AS forecast_bps,
    if(isFinite(forecast_ewma_bps), forecast_ewma_bps, NULL) AS forecast_ewma_bps,
    if(previous = 5 AND isFinite(forecast_mean5_bps), forecast_mean5_bps - previous_sd, NULL) AS band_low_bps,
    if(previous = 5 AND isFinite(forecast_mean5_bps), forecast_mean5_bps + previous_sd, NULL) AS band_high_bps
FROM
(
    SELECT
        *,
        count() OVER w AS previous,
        stddevSamp(sum_stream_bps) OVER w AS previous_sd
    FROM throughput
    WINDOW w AS (PARTITION BY src_host, dst_host, passive ORDER BY start_at ROWS BETWEEN 5 PRECEDING AND 1 PRECEDING)
)
