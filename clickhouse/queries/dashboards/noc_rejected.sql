-- Input that was refused anywhere on the way (flows.rejected.v1 and undecodable records).
SELECT
    received_at,
    stage,
    reason,
    replaceRegexpOne(toString(exporter), '^::ffff:', '') AS exporter,
    source_topic
FROM rejected
