-- Flowsets by number of parallel flows (N), leaving ('out') and reaching ('in') each site.
SELECT
    side.1 AS direction,
    side.2 AS site,
    countIf(n_flows = 1) AS `N=1`,
    countIf(n_flows BETWEEN 2 AND 4) AS `N=2-4`,
    countIf(n_flows BETWEEN 5 AND 8) AS `N=5-8`,
    countIf(n_flows BETWEEN 9 AND 16) AS `N=9-16`,
    countIf(n_flows > 16) AS `N>16`,
    count() AS flowsets
FROM flowsets FINAL
ARRAY JOIN [('out', dictGet('sites', 'site', src_addr)), ('in', dictGet('sites', 'site', dst_addr))] AS side
GROUP BY direction, site
ORDER BY site, direction
