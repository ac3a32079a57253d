-- The diurnal fit over the points (throughput.v1): each observation at its time of day (kind
-- 'observed'), and each series' newest fit f(x) = |a|·sin(x + b) + c, x the time of day in radians
-- (UTC, 0 at midnight; docs/ARCHITECTURE.md, "Transfer throughput"), every 15 minutes over the day
-- (kind 'fit'). The time of day is drawn on 1970-01-01 UTC (time_of_day), so a time axis shows it as
-- hours; the dashboard's time range does not apply. A series is a host pair, active or passive;
-- observations not fitted yet (NaN parameters: fewer than 4 points) give no curve.
SELECT
    'observed' AS kind,
    concat(src_host, ' → ', dst_host, ', ', if(passive, 'passive', 'active')) AS series,
    fromUnixTimestamp64Milli(toUnixTimestamp64Milli(start_at) % 86400000, 'UTC') AS time_of_day,
    sum_stream_bps AS observed_bps,
    CAST(NULL AS Nullable(Float64)) AS fit_bps
FROM throughput
UNION ALL
SELECT
    'fit' AS kind,
    concat(src_host, ' → ', dst_host, ', ', if(passive, 'passive', 'active')) AS series,
    fromUnixTimestamp64Milli(toInt64(second_of_day) * 1000, 'UTC') AS time_of_day,
    CAST(NULL AS Nullable(Float64)) AS observed_bps,
    abs(a) * sin(2 * pi() * second_of_day / 86400 + b) + c AS fit_bps
FROM
(
    SELECT
        src_host,
        dst_host,
        passive,
        argMax(diurnal_a, start_at) AS a,
        argMax(diurnal_b, start_at) AS b,
        argMax(diurnal_c, start_at) AS c
    FROM throughput
    WHERE isFinite(diurnal_a) AND isFinite(diurnal_b) AND isFinite(diurnal_c)
    GROUP BY src_host, dst_host, passive
)
ARRAY JOIN range(0, 86400 + 900, 900) AS second_of_day
