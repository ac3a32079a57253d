-- Planners: the 20 longest flowsets of the last year.
SELECT
    start_at,
    dictGet('sites', 'site', src_addr) AS src_site,
    dictGet('sites', 'site', dst_addr) AS dst_site,
    n_flows,
    formatReadableTimeDelta(duration_s) AS duration,
    formatReadableSize(bytes) AS size,
    concat(formatReadableQuantity(rate_bps), 'bit/s') AS rate
FROM flowsets FINAL
WHERE start_at >= now64(3) - INTERVAL 365 DAY
ORDER BY duration_s DESC
LIMIT 20
