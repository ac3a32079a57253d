-- Stored cheetah flows in the CSV shape of `cheetah analyze` (cheetahs.csv), for the
-- demo's ground-truth check.
SELECT
    replaceRegexpOne(IPv6NumToString(src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(IPv6NumToString(dst_addr), '^::ffff:', '') AS dst,
    src_port, dst_port, proto,
    toUnixTimestamp64Milli(start_at) AS start_ms,
    toUnixTimestamp64Milli(end_at) AS end_ms,
    bytes, peak_interval_bytes
FROM cheetahs FINAL
WHERE type = 'end' AND source = 'netflow'
ORDER BY start_ms, src, dst, src_port, dst_port
FORMAT CSV
