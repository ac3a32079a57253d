-- Generated throughput alerts, inserted by the dashboards check (`cheetah_dashboards check`) into ITS
-- COPY of the warehouse, and only while `alerts` there is empty: the demo runs no throughput job.
-- Ids and hosts under `check-fixture`, never taken for a measurement; they match the generated
-- throughput rows (throughput.sql here): the 6th passive dtn1 observation (600 M) outside the band,
-- a PRCA report on the slow peer dtn2 (receiver disk), and a newer one with cause network.
INSERT INTO alerts (alert_id, kind, src_host, dst_host, detected_at, severity, message, value, expected)
SELECT
    id,
    kind,
    src,
    dst,
    toStartOfDay(now64(3, 'UTC')) - INTERVAL 2 DAY + toIntervalMinute(minute),
    severity,
    message,
    value,
    expected
FROM values(
    'id String, kind String, src String, dst String, minute UInt32, severity String, message String, value Float64, expected Float64',
    ('check-fixture-1', 'outside_band', 'dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 1210, 'warning',
     'observed 600 Mbit/s outside the forecast band (300 Mbit/s)', 600e6, 300e6),
    ('check-fixture-2', 'prca', 'dtn2.site-a.check-fixture', 'dtn2.site-b.check-fixture', 310, 'warning',
     'slow against the peers (median 60 Mbit/s, reference 350 Mbit/s): receiver disk saturated', 60e6, 350e6),
    ('check-fixture-3', 'prca', 'dtn2.site-a.check-fixture', 'dtn2.site-b.check-fixture', 1300, 'info',
     'slow together with every peer pair within the window: network', 70e6, 350e6))
