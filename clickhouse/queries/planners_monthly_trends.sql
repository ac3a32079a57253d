-- Planners: flowsets per month and source site, from the rollup (exact counts and
-- volumes; medians exact up to 8192 flowsets per month and site pair, sampled above).
SELECT
    month,
    src_site,
    sum(flowsets) AS flowsets,
    sum(singles) AS single_flows,
    sum(flows) AS cheetah_flows,
    formatReadableSize(sum(bytes)) AS volume,
    arrayMap(x -> round(x / 1e9, 2), quantilesMerge(0.5, 0.95, 0.99)(rate_q)) AS rate_gbps_p50_p95_p99
FROM flowsets_site_month
GROUP BY month, src_site
ORDER BY month, src_site
