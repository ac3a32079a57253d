-- Report "Flowset shape" (the planners' tables): size, duration and rate of
-- parallel flowsets, per site direction and overall (site 'all').
-- Percentiles are exact with linear interpolation between closest ranks
-- (quantileExactInclusive: p = x[h] + (h - floor h)(x[h+1] - x[h]), h = (n-1)p),
-- the same as numpy's default.
WITH
    {site_names:Array(String)} AS site_names,
    {site_prefixes:Array(String)} AS site_prefixes,
    sets AS
    (
        SELECT
            toFloat64(bytes) AS size_bytes,
            duration_s,
            rate_bps,
            arrayFirstIndex(p -> isIPAddressInRange(toString(src_addr), p), site_prefixes) AS src_site,
            arrayFirstIndex(p -> isIPAddressInRange(toString(dst_addr), p), site_prefixes) AS dst_site
        FROM flowsets FINAL
    ),
    placed AS
    (
        SELECT site_names[src_site] AS site, 'from' AS direction, size_bytes, duration_s, rate_bps FROM sets WHERE src_site > 0
        UNION ALL
        SELECT site_names[dst_site] AS site, 'to' AS direction, size_bytes, duration_s, rate_bps FROM sets WHERE dst_site > 0
        UNION ALL
        SELECT 'all' AS site, 'all' AS direction, size_bytes, duration_s, rate_bps FROM sets
    )
SELECT
    site,
    direction,
    metric,
    count()                              AS sets,
    quantileExactInclusive(0.5)(value)   AS median,
    avg(value)                           AS mean,
    quantileExactInclusive(0.95)(value)  AS p95,
    quantileExactInclusive(0.99)(value)  AS p99,
    max(value)                           AS max
FROM placed
ARRAY JOIN
    ['size', 'duration', 'rate'] AS metric,
    [size_bytes, duration_s, rate_bps] AS value
GROUP BY site, direction, metric
ORDER BY site = 'all', site, direction, indexOf(['size', 'duration', 'rate'], metric)
