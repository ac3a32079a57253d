-- The latest event of every cheetah flow (cheetahs is a ReplacingMergeTree: FINAL keeps the
-- newest by seq). state: start/update while active, end once the flow ended.
SELECT
    flow_id,
    type AS state,
    source,
    link_id,
    replaceRegexpOne(toString(exporter), '^::ffff:', '') AS exporter,
    replaceRegexpOne(toString(src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(toString(dst_addr), '^::ffff:', '') AS dst,
    src_port,
    dst_port,
    proto,
    dictGet('sites', 'site', src_addr) AS src_site,
    dictGet('sites', 'site', dst_addr) AS dst_site,
    start_at,
    end_at,
    event_at,
    bytes,
    packets,
    rate_bps,
    peak_interval_bytes,
    toUInt64(greatest(dateDiff('millisecond', start_at, end_at), 0)) AS duration_ms,
    threshold_bps
FROM cheetahs FINAL
