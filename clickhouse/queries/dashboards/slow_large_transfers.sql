-- Flowsets larger than 10 GiB with a mean rate below 2 Gbit/s, slowest first.
SELECT
    start_at,
    replaceRegexpOne(toString(src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(toString(dst_addr), '^::ffff:', '') AS dst,
    dictGet('sites', 'site', src_addr) AS src_site,
    dictGet('sites', 'site', dst_addr) AS dst_site,
    n_flows,
    formatReadableSize(bytes) AS size,
    formatReadableTimeDelta(duration_s) AS duration,
    round(rate_bps / 1e9, 3) AS rate_gbps
FROM flowsets FINAL
WHERE bytes > 10 * 1024 * 1024 * 1024 AND rate_bps < 2e9
ORDER BY rate_bps
LIMIT 100
