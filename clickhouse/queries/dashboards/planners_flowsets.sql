-- One row per flowset and site end: direction 'out' at its source site, 'in' at its destination
-- site, so one Site filter answers "what leaves or reaches this site". Sites come from the
-- warehouse's `sites` dictionary ('(no site)' when no prefix matches).
SELECT
    flowset_id,
    side.1 AS direction,
    side.2 AS site,
    side.3 AS peer_site,
    src,
    dst,
    n_flows,
    multiIf(n_flows = 1, 'N=1', n_flows <= 4, 'N=2-4', n_flows <= 8, 'N=5-8', n_flows <= 16, 'N=9-16', 'N>16') AS n_bucket,
    single,
    start_at,
    end_at,
    bytes,
    toUInt64(round(duration_s * 1000)) AS duration_ms,
    rate_bps
FROM
(
    SELECT
        *,
        replaceRegexpOne(toString(src_addr), '^::ffff:', '') AS src,
        replaceRegexpOne(toString(dst_addr), '^::ffff:', '') AS dst,
        if(dictGet('sites', 'site', src_addr) = '', '(no site)', dictGet('sites', 'site', src_addr)) AS src_site,
        if(dictGet('sites', 'site', dst_addr) = '', '(no site)', dictGet('sites', 'site', dst_addr)) AS dst_site
    FROM flowsets FINAL
)
ARRAY JOIN [('out', src_site, dst_site), ('in', dst_site, src_site)] AS side
