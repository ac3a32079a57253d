-- Planners: the 20 largest flowsets of the last year.
SELECT
    start_at,
    dictGet('sites', 'site', src_addr) AS src_site,
    toString(src_addr) AS src,
    dictGet('sites', 'site', dst_addr) AS dst_site,
    toString(dst_addr) AS dst,
    n_flows,
    formatReadableSize(bytes) AS size,
    formatReadableTimeDelta(duration_s) AS duration,
    concat(formatReadableQuantity(rate_bps), 'bit/s') AS rate
FROM flowsets FINAL
WHERE start_at >= now64(3) - INTERVAL 365 DAY
ORDER BY bytes DESC
LIMIT 20
