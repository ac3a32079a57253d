-- Planners: flowsets of the last 30 days by number of flows N, from and to each site
-- (sites dictionary; '' = outside every site). N = 1 is a single cheetah flow.
SELECT
    direction,
    site,
    multiIf(n_flows = 1, '1 (single)', n_flows <= 4, '2-4', n_flows <= 8, '5-8', n_flows <= 16, '9-16', '>16') AS n_bucket,
    count() AS flowsets,
    formatReadableSize(sum(bytes)) AS volume
FROM
(
    SELECT 'from' AS direction, dictGet('sites', 'site', src_addr) AS site, n_flows, bytes
    FROM flowsets FINAL WHERE start_at >= now64(3) - INTERVAL 30 DAY
    UNION ALL
    SELECT 'to' AS direction, dictGet('sites', 'site', dst_addr) AS site, n_flows, bytes
    FROM flowsets FINAL WHERE start_at >= now64(3) - INTERVAL 30 DAY
)
GROUP BY direction, site, n_bucket
ORDER BY direction, site, min(n_flows)
