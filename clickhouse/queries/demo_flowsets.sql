-- Stored flowsets in the CSV shape of `cheetah analyze` (flowsets.csv), for the demo's
-- ground-truth check.
SELECT
    replaceRegexpOne(IPv6NumToString(src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(IPv6NumToString(dst_addr), '^::ffff:', '') AS dst,
    n_flows,
    toUnixTimestamp64Milli(start_at) AS start_ms,
    toUnixTimestamp64Milli(end_at) AS end_ms,
    bytes,
    round(duration_s, 3) AS duration_s,
    round(rate_bps) AS rate_bps
FROM flowsets FINAL
ORDER BY start_ms, src, dst
FORMAT CSV
