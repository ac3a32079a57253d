-- A generated incast-guard episode, inserted by the dashboards check (`cheetah_dashboards check`)
-- into ITS COPY of the warehouse, and only while `incast_guard` there is empty: the demo runs no
-- incast guard, so without it the NOC's incast charts would have no rows to check and draw. Device
-- `check-fixture`, so it is never taken for a measurement. Ten minutes at one sample per second,
-- starting an hour ago, for two receivers, following the guard's share rule (75 % of the buffer B
-- shared among the senders):
--   10.9.0.1: B = 256 KiB (the study's port buffer); a sender more every 20 s, 1 to 30; the share
--             is 3B/(4n); the largest backlog 60-90 % of the shared 3B/4, the backlog half of it.
--   10.9.0.2: B = 64 KiB, 8 senders (share 6144 B); in the last 20 s of each minute the backlog
--             reaches 80 % of B and 2 new senders are held at 1 MSS.
INSERT INTO incast_guard (device_id, receiver, at, senders, senders_one_mss, syn_acks_total, releases_total,
                          acks_seen_total, acks_capped_total, backlog_bytes, max_backlog_bytes, buffer_bytes,
                          share_bytes, queue_drops_total, command_id)
SELECT
    'check-fixture',
    toIPv6(receiver),
    toStartOfMinute(now64(3, 'UTC')) - INTERVAL 1 HOUR + toIntervalSecond(t),
    senders,
    senders_one_mss,
    syn_acks_total,
    releases_total,
    50 * (t + 1),
    45 * (t + 1),
    intDiv(max_backlog_bytes, 2),
    max_backlog_bytes,
    buffer_bytes,
    intDiv(3 * buffer_bytes, 4 * senders),
    0,
    concat('check-fixture-', receiver)
FROM
(
    SELECT
        number AS t,
        '::ffff:10.9.0.1' AS receiver,
        toUInt64(262144) AS buffer_bytes,
        toUInt32(1 + intDiv(number, 20)) AS senders,
        toUInt32(0) AS senders_one_mss,
        toUInt64(senders) AS syn_acks_total,
        toUInt64(0) AS releases_total,
        intDiv(senders * intDiv(3 * buffer_bytes, 4 * senders) * (6 + number % 4), 10) AS max_backlog_bytes
    FROM numbers(600)
    UNION ALL
    SELECT
        number AS t,
        '::ffff:10.9.0.2' AS receiver,
        toUInt64(65536) AS buffer_bytes,
        toUInt32(8) AS senders,
        toUInt32(if(number % 60 >= 40, 2, 0)) AS senders_one_mss,
        toUInt64(8 + 2 * intDiv(number + 20, 60)) AS syn_acks_total,
        toUInt64(2 * intDiv(number, 60)) AS releases_total,
        if(number % 60 >= 40, intDiv(4 * buffer_bytes, 5), intDiv(buffer_bytes, 2)) AS max_backlog_bytes
    FROM numbers(600)
)
