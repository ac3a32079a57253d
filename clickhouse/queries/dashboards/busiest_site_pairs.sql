-- Volume, flowsets and rate percentiles per site pair and month (rollup flowsets_site_month).
SELECT
    month,
    src_site,
    dst_site,
    sum(flowsets) AS flowsets,
    formatReadableSize(sum(bytes)) AS volume,
    round(sum(rate_sum) / sum(flowsets) / 1e9, 3) AS mean_rate_gbps,
    arrayMap(r -> round(r / 1e9, 3), quantilesMerge(0.5, 0.95, 0.99)(rate_q)) AS rate_p50_p95_p99_gbps
FROM flowsets_site_month
GROUP BY month, src_site, dst_site
ORDER BY month DESC, sum(bytes) DESC
LIMIT 50
