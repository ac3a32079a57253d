-- Flow records (flows.v1, kept 30 days), for top talkers.
SELECT
    start_at,
    end_at,
    replaceRegexpOne(toString(exporter), '^::ffff:', '') AS exporter,
    replaceRegexpOne(toString(src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(toString(dst_addr), '^::ffff:', '') AS dst,
    dictGet('sites', 'site', src_addr) AS src_site,
    dictGet('sites', 'site', dst_addr) AS dst_site,
    proto,
    bytes,
    packets
FROM flows
