-- A generated fabric episode, inserted by the dashboards check (`cheetah_dashboards check`) into ITS
-- COPY of the warehouse, and only while `fabric_links` there is empty: the demo runs no fabric job
-- (it needs an sFlow-monitored fabric), so without it the Fabric charts would have no rows to check
-- and draw. Fabric `check-fixture`, so it is never taken for a measurement. The leaf-spine example
-- of docs/FABRIC.md (10 Mb/s links, threshold 70 %, elephants above 1 Mb/s), its four
-- switch-to-switch links up and down, 60 rounds (one a second) from an hour ago, round r = 0..59:
--   spine1 (leaf1:2>spine1:1, spine1:2>leaf2:2): flow B (10.0.1.2:40002 → 10.0.2.2:5201, 3.5 Mb/s)
--     all along; in round 10 flow A (40001, 4.5 Mb/s) joins it: 8 Mb/s, 80 %, over the threshold,
--     two elephants; A is rerouted (leaf1:2>spine1:1 names reroute check-fixture-reroute-1);
--     3.5 Mb/s (35 %) before and after.
--   spine2 (leaf1:3>spine2:1, spine2:2>leaf2:3): 0.5 Mb/s of small traffic (no flow sampled) up to
--     round 10, then A on it too: 5 Mb/s (50 %), one elephant.
INSERT INTO fabric_links (fabric, round_at, link_id, from_node, from_port, to_node, to_port, between_switches,
                          capacity_bps, threshold_bps, measured, counter_bps, utilisation_bps, utilisation,
                          over_threshold, flows, sampled_bps, elephants, top_src, top_dst, top_src_port,
                          top_dst_port, top_proto, top_bps, reroute_command_id, unresolved)
SELECT
    'check-fixture',
    toStartOfMinute(now64(3, 'UTC')) - INTERVAL 1 HOUR + toIntervalSecond(r),
    link_id,
    from_node,
    from_port,
    to_node,
    to_port,
    true,
    10e6,
    7e6,
    true,
    bps,
    bps,
    bps / 10e6,
    bps > 7e6,
    flows,
    if(flows = 0, 0, bps),
    flows,
    if(flows = 0, toIPv6('::'), toIPv6('::ffff:10.0.1.2')),
    if(flows = 0, toIPv6('::'), toIPv6('::ffff:10.0.2.2')),
    top_port,
    if(flows = 0, 0, 5201),
    if(flows = 0, 0, 6),
    top_bps,
    if(link_id = 'leaf1:2>spine1:1' AND r = 10, 'check-fixture-reroute-1', ''),
    ''
FROM
(
    SELECT
        r,
        link_id,
        from_node,
        from_port,
        to_node,
        to_port,
        multiIf(spine = 1 AND r = 10, 8e6, spine = 1, 3.5e6, r <= 10, 0.5e6, 5e6) AS bps,
        toUInt32(multiIf(spine = 1 AND r = 10, 2, spine = 1, 1, r <= 10, 0, 1)) AS flows,
        toUInt32(multiIf(spine = 1 AND r != 10, 40002, flows = 0, 0, 40001)) AS top_port,
        multiIf(spine = 1 AND r != 10, 3.5e6, flows = 0, 0, 4.5e6) AS top_bps
    FROM (SELECT toInt64(number) AS r FROM numbers(60)) AS rounds
    CROSS JOIN
    (
        SELECT * FROM VALUES('link_id String, from_node String, from_port UInt32, to_node String, to_port UInt32, spine UInt8',
            ('leaf1:2>spine1:1', 'leaf1', 2, 'spine1', 1, 1),
            ('spine1:2>leaf2:2', 'spine1', 2, 'leaf2', 2, 1),
            ('leaf1:3>spine2:1', 'leaf1', 3, 'spine2', 1, 2),
            ('spine2:2>leaf2:3', 'spine2', 2, 'leaf2', 3, 2))
    ) AS links
)
