-- One row per cheetah flow and minute it was active (from its start to its last record), with
-- the flow's mean rate: active cheetahs per minute = uniqExact(flow_id), their load = sum(rate_bps).
SELECT
    minute,
    flow_id,
    source,
    link_id,
    exporter,
    src,
    dst,
    bytes * 8000 / greatest(duration_ms, 1) AS rate_bps
FROM
(
    SELECT
        flow_id,
        source,
        link_id,
        replaceRegexpOne(toString(exporter), '^::ffff:', '') AS exporter,
        replaceRegexpOne(toString(src_addr), '^::ffff:', '') AS src,
        replaceRegexpOne(toString(dst_addr), '^::ffff:', '') AS dst,
        bytes,
        toUInt64(greatest(dateDiff('millisecond', start_at, end_at), 0)) AS duration_ms,
        arrayJoin(timeSlots(toDateTime(start_at, 'UTC'), toUInt32(greatest(dateDiff('second', start_at, end_at), 1)), 60)) AS minute
    FROM cheetahs FINAL
)
