-- Prefix filters' effectiveness (ARCHITECTURE.md, "Prefix filters"): per day, the share of α
-- bytes (NetFlow cheetah flows) that filters built from earlier days would have caught. A
-- filter is (ingress router = exporter, source net, destination net): an IPv4 /24 (IPv6 /48),
-- alive while an α flow of that triple started in the 30 days before the day. Recomputed
-- every hour by a refreshable view over the last 400 days of cheetahs; the latest computation
-- of a day wins.

CREATE TABLE IF NOT EXISTS prefix_filter_effectiveness
(
    day          Date,
    alpha_flows  UInt64,
    alpha_bytes  UInt64,
    caught_flows UInt64,
    caught_bytes UInt64,
    share        Float64,                 -- caught_bytes / alpha_bytes
    computed_at  DateTime('UTC')
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY day
TTL day + INTERVAL 5 YEAR;

CREATE MATERIALIZED VIEW IF NOT EXISTS prefix_filter_effectiveness_mv
REFRESH EVERY 1 HOUR APPEND TO prefix_filter_effectiveness AS
WITH
    alpha AS
    (
        SELECT
            toDate(start_at) AS day,
            (
                exporter,
                IPv6CIDRToRange(src_addr, if(startsWith(IPv6NumToString(src_addr), '::ffff:'), 120, 48)).1,
                IPv6CIDRToRange(dst_addr, if(startsWith(IPv6NumToString(dst_addr), '::ffff:'), 120, 48)).1
            ) AS filter,
            bytes
        FROM cheetahs FINAL
        WHERE source = 'netflow' AND start_at >= now64(3) - INTERVAL 400 DAY
    ),
    filter_days AS
    (
        SELECT filter, groupUniqArray(day) AS days FROM alpha GROUP BY filter
    )
SELECT
    a.day AS day,
    count() AS alpha_flows,
    sum(a.bytes) AS alpha_bytes,
    countIf(caught) AS caught_flows,
    sumIf(a.bytes, caught) AS caught_bytes,
    if(alpha_bytes = 0, 0, caught_bytes / alpha_bytes) AS share,
    now() AS computed_at
FROM
(
    SELECT alpha.day, alpha.bytes, arrayExists(d -> d < alpha.day AND d >= alpha.day - 30, f.days) AS caught
    FROM alpha
    INNER JOIN filter_days AS f ON alpha.filter = f.filter
)
AS a
GROUP BY a.day;
