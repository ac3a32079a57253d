-- Flowsets per site and month from the rollup flowsets_site_month (AggregatingMergeTree:
-- merged here with sum/max), one row per site end like planners_flowsets.
SELECT
    month,
    side.1 AS direction,
    side.2 AS site,
    side.3 AS peer_site,
    flowsets,
    singles,
    flows,
    bytes,
    rate_sum,
    duration_sum,
    max_bytes,
    max_rate,
    max_duration
FROM
(
    SELECT
        month,
        if(src_site = '', '(no site)', src_site) AS src_site,
        if(dst_site = '', '(no site)', dst_site) AS dst_site,
        sum(flowsets) AS flowsets,
        sum(singles) AS singles,
        sum(flows) AS flows,
        sum(bytes) AS bytes,
        sum(rate_sum) AS rate_sum,
        sum(duration_sum) AS duration_sum,
        max(max_bytes) AS max_bytes,
        max(max_rate) AS max_rate,
        max(max_duration) AS max_duration
    FROM flowsets_site_month
    GROUP BY month, src_site, dst_site
)
ARRAY JOIN [('out', src_site, dst_site), ('in', dst_site, src_site)] AS side
