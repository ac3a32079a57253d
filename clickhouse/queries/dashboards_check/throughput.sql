-- A generated throughput episode, inserted by the dashboards check (`cheetah_dashboards check`) into
-- ITS COPY of the warehouse, and only while `throughput` there is empty: the demo runs no throughput
-- job, so without it the Throughput dashboard would have no rows to check and draw. Hosts under
-- `.check-fixture` and TEST-NET addresses, so it is never taken for a measurement. The day D is
-- midnight UTC two days ago; rates in bit/s (M = 10^6). The chart values the dashboards test expects
-- from these rows are computed by hand in dashboards/tests/test_headless_check.py.
--   dtn1.site-a -> dtn1.site-b, passive: 100, 200, 300, 400, 500, 600 M at D + 00:00, 04:00, ...,
--     20:00; the 6th carries the mean forecast of the 5 before (300 M), the others NaN; the EWMA
--     forecast (w = 0.5) 100, 150, 225, 312.5, 406.25 M from the 2nd on; diurnal fits from the 4th
--     on, the newest (6th) a = -100 M (drawn as |a|), b = pi/2, c = 350 M, the 4th and 5th a flat
--     c = 300 M that the chart must not use.
--   dtn1.site-a -> dtn1.site-b, active: 190, 280, 410 M at D + 04:10, 08:10, 12:10; no forecast or fit.
--   dtn2.site-a -> dtn2.site-b (a peer of dtn1): passive 50 and 70 M at D + 01:00, 05:00; active
--     55 M at D + 01:05.
--   198.51.100.7 -> 203.0.113.9 (another site pair): passive 900 M at D + 02:00.
INSERT INTO throughput (src_host, dst_host, start_at, end_at, streams, bytes, sum_stream_bps, mean_time_bps,
                        max_time_bps, passive, forecast_mean5_bps, forecast_ewma_bps, diurnal_a, diurnal_b,
                        diurnal_c)
SELECT
    src,
    dst,
    toStartOfDay(now64(3, 'UTC')) - INTERVAL 2 DAY + toIntervalMinute(start_min),
    toStartOfDay(now64(3, 'UTC')) - INTERVAL 2 DAY + toIntervalMinute(start_min + 10),
    4,
    toUInt64(bps * 600 / 8),
    bps,
    bps,
    bps,
    passive,
    mean5,
    ewma,
    a,
    b,
    c
FROM values(
    'src String, dst String, start_min UInt32, bps Float64, passive Bool, mean5 Float64, ewma Float64, a Float64, b Float64, c Float64',
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 0, 100e6, true, nan, nan, nan, nan, nan),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 240, 200e6, true, nan, 100e6, nan, nan, nan),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 480, 300e6, true, nan, 150e6, nan, nan, nan),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 720, 400e6, true, nan, 225e6, 0, 0, 300e6),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 960, 500e6, true, nan, 312.5e6, 0, 0, 300e6),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 1200, 600e6, true, 300e6, 406.25e6, -100e6, pi() / 2, 350e6),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 250, 190e6, false, nan, nan, nan, nan, nan),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 490, 280e6, false, nan, nan, nan, nan, nan),
    ('dtn1.site-a.check-fixture', 'dtn1.site-b.check-fixture', 730, 410e6, false, nan, nan, nan, nan, nan),
    ('dtn2.site-a.check-fixture', 'dtn2.site-b.check-fixture', 60, 50e6, true, nan, nan, nan, nan, nan),
    ('dtn2.site-a.check-fixture', 'dtn2.site-b.check-fixture', 300, 70e6, true, nan, 50e6, nan, nan, nan),
    ('dtn2.site-a.check-fixture', 'dtn2.site-b.check-fixture', 65, 55e6, false, nan, nan, nan, nan, nan),
    ('198.51.100.7', '203.0.113.9', 120, 900e6, true, nan, nan, nan, nan, nan))
