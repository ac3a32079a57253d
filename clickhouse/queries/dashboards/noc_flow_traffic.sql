-- Flow volumes per minute from the rollup flows_1m (SummingMergeTree: always sum()).
SELECT
    bucket_at,
    replaceRegexpOne(toString(exporter), '^::ffff:', '') AS exporter,
    src_site,
    dst_site,
    proto,
    records,
    bytes,
    packets
FROM flows_1m
