-- Planners: shape of the last 30 days' flowsets per source site: median, mean, 95th, 99th
-- percentile and max of size (bytes), duration (s) and rate (bit/s).
SELECT
    dictGet('sites', 'site', src_addr) AS site,
    count() AS flowsets,
    quantilesExactInclusive(0.5, 0.95, 0.99)(bytes) AS size_p50_p95_p99,
    avg(bytes) AS size_mean,
    max(bytes) AS size_max,
    quantilesExactInclusive(0.5, 0.95, 0.99)(duration_s) AS duration_p50_p95_p99,
    avg(duration_s) AS duration_mean,
    max(duration_s) AS duration_max,
    quantilesExactInclusive(0.5, 0.95, 0.99)(rate_bps) AS rate_p50_p95_p99,
    avg(rate_bps) AS rate_mean,
    max(rate_bps) AS rate_max
FROM flowsets FINAL
WHERE start_at >= now64(3) - INTERVAL 30 DAY
GROUP BY site
ORDER BY site
