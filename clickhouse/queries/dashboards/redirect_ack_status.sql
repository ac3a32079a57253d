-- One row per ack status, zero-filled: no adapter acking (as in the demo) shows four zeros,
-- an honest answer, rather than an empty chart. The time range and device filters apply
-- inside (Jinja), so the zero rows stay.
SELECT status, sum(acked) AS acks
FROM
(
    SELECT arrayJoin(['applied', 'rejected', 'failed', 'duplicate']) AS status, 0 AS acked
    UNION ALL
    SELECT status, 1 AS acked
    FROM redirect_acks FINAL
    WHERE 1
    {% if from_dttm %}AND acked_at >= parseDateTime64BestEffort('{{ from_dttm }}', 3, 'UTC'){% endif %}
    {% if to_dttm %}AND acked_at < parseDateTime64BestEffort('{{ to_dttm }}', 3, 'UTC'){% endif %}
    {% if filter_values('device_id', remove_filter=True) %}AND device_id IN {{ filter_values('device_id', remove_filter=True) | where_in }}{% endif %}
)
GROUP BY status
