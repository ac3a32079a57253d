-- One row per link and minute (link_load_1m, a SummingMergeTree: summed here so that parts not
-- yet merged count once), with the link's capacity from its newest statistics.
SELECT
    l.link_id AS link_id,
    l.bucket_at AS bucket_at,
    l.bins AS bins,
    l.bytes AS bytes,
    l.bg_bytes AS bg_bytes,
    l.cheetah_bytes AS cheetah_bytes,
    l.bg_bytes_sq AS bg_bytes_sq,
    c.capacity_bps AS capacity_bps
FROM
(
    SELECT link_id, bucket_at, sum(bins) AS bins, sum(bytes) AS bytes, sum(bg_bytes) AS bg_bytes,
           sum(cheetah_bytes) AS cheetah_bytes, sum(bg_bytes_sq) AS bg_bytes_sq
    FROM link_load_1m
    GROUP BY link_id, bucket_at
) AS l
LEFT JOIN
(
    SELECT link_id, argMax(capacity_bps, window_end_at) AS capacity_bps
    FROM link_stats
    GROUP BY link_id
) AS c ON c.link_id = l.link_id
