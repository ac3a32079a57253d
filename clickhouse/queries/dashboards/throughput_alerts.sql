-- Throughput alerts and PRCA reports (alerts.v1), newest first: every kind the throughput job
-- publishes (forecast band, step change, PRCA with its cause), one row per alert id.
SELECT
    detected_at,
    kind,
    severity,
    src_host,
    dst_host,
    concat(src_host, ' → ', dst_host) AS host_pair,
    message,
    value,
    expected
FROM alerts FINAL
