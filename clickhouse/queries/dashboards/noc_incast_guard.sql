-- One row per incast-guard sample (incast.guard.v1: one per guarded receiver per second), with its
-- minute for the NOC's per-minute charts (max senders and backlog, smallest window cap), and the
-- shared part of the buffer: 75 % of B, what the guard divides among the senders.
SELECT
    device_id,
    replaceRegexpOne(toString(receiver), '^::ffff:', '') AS receiver_ip,
    at,
    toStartOfMinute(at) AS minute,
    senders,
    senders_one_mss,
    backlog_bytes,
    max_backlog_bytes,
    buffer_bytes,
    intDiv(3 * buffer_bytes, 4) AS shared_bytes,
    share_bytes,
    acks_capped_total,
    queue_drops_total
FROM incast_guard
