-- Report "Flowsets by N": parallel flowsets per member-count bucket, from and to
-- each site, and overall (site 'all'). Sites arrive as parallel arrays, one
-- entry per prefix (IPv6 CIDR; IPv4 as ::ffff:a.b.c.d/96+len); an address
-- belongs to the first matching prefix.
WITH
    {site_names:Array(String)} AS site_names,
    {site_prefixes:Array(String)} AS site_prefixes,
    sets AS
    (
        SELECT
            n_flows,
            arrayFirstIndex(p -> isIPAddressInRange(toString(src_addr), p), site_prefixes) AS src_site,
            arrayFirstIndex(p -> isIPAddressInRange(toString(dst_addr), p), site_prefixes) AS dst_site
        FROM flowsets FINAL
    ),
    placed AS
    (
        SELECT site_names[src_site] AS site, 'from' AS direction, n_flows FROM sets WHERE src_site > 0
        UNION ALL
        SELECT site_names[dst_site] AS site, 'to' AS direction, n_flows FROM sets WHERE dst_site > 0
        UNION ALL
        SELECT 'all' AS site, 'all' AS direction, n_flows FROM sets
    )
SELECT
    site,
    direction,
    countIf(n_flows = 1)               AS n_1,
    countIf(n_flows BETWEEN 2 AND 4)   AS n_2_4,
    countIf(n_flows BETWEEN 5 AND 8)   AS n_5_8,
    countIf(n_flows BETWEEN 9 AND 16)  AS n_9_16,
    countIf(n_flows > 16)              AS n_over_16,
    count()                            AS sets
FROM placed
GROUP BY site, direction
ORDER BY site = 'all', site, direction
