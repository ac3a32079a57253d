-- Planners: flowset rate by number of flows (box-plot statistics: min, quartiles, max),
-- last 90 days.
SELECT
    multiIf(n_flows = 1, '1', n_flows <= 4, '2-4', n_flows <= 8, '5-8', n_flows <= 16, '9-16', '>16') AS n_bucket,
    count() AS flowsets,
    min(rate_bps) AS rate_min,
    quantilesExactInclusive(0.25, 0.5, 0.75)(rate_bps) AS rate_q1_median_q3,
    max(rate_bps) AS rate_max
FROM flowsets FINAL
WHERE start_at >= now64(3) - INTERVAL 90 DAY
GROUP BY n_bucket
ORDER BY min(n_flows)
