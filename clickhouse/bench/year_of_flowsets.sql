-- A year of flowsets and their member cheetah flows, for timing the dashboards' queries
-- (clickhouse/bench/README.md). Parameters: {n:UInt64} flowsets, {year_start:DateTime64(3)}.
-- Shapes: 6 sites of 50 hosts; N heavy-tailed (~79 % single flows, P(N >= k) = k^-1.25 otherwise, capped at 512);
-- sizes log-normal around 30 GB per member; rates 0.2-10 Gb/s per member.

INSERT INTO flowsets
SELECT
    concat('bench-fs-', toString(number)) AS flowset_id,
    toIPv6(concat('::ffff:198.18.', toString(1 + src_site), '.', toString(1 + (h % 50)))) AS src_addr,
    toIPv6(concat('::ffff:198.18.', toString(1 + ((src_site + 1 + (h % 5)) % 6)), '.', toString(1 + (bitShiftRight(h, 8) % 50)))) AS dst_addr,
    0 AS src_as,
    0 AS dst_as,
    n AS n_flows,
    n = 1 AS single,
    start_at,
    start_at + toIntervalMillisecond(toUInt64(duration_s * 1000)) AS end_at,
    size AS bytes,
    duration_s,
    size * 8 / duration_s AS rate_bps,
    arrayMap(i -> concat('bench-f-', toString(number), '-', toString(i)), range(n)) AS member_flow_ids,
    start_at + toIntervalMillisecond(toUInt64(duration_s * 1000) + 10000) AS closed_at
FROM
(
    SELECT
        number,
        cityHash64(number) AS h,
        h % 6 AS src_site,
        toUInt32(least(512, if(h % 2 = 0, 1, floor(pow((bitShiftRight(h, 16) % 10000 + 1) / 10001, -0.8))))) AS n,
        {year_start:DateTime64(3)} + toIntervalMillisecond(bitShiftRight(h, 20) % (365 * 86400000)) AS start_at,
        -- log-normal by Box-Muller on two independent 20-bit slices of the hash: reproducible
        toUInt64(n * exp(24.1 + 1.2 * sqrt(-2 * log((bitShiftRight(h, 4) % 1048575 + 1) / 1048576)) * cos(2 * pi() * (bitShiftRight(h, 24) % 1048576) / 1048576))) AS size,
        size * 8 / (n * (2e8 + (bitShiftRight(h, 40) % 98) * 1e8)) + 1 AS duration_s
    FROM numbers({n:UInt64})
);

INSERT INTO cheetahs
SELECT
    member AS flow_id,
    'end' AS type,
    'netflow' AS source,
    end_at AS event_at,
    3 AS seq,
    toIPv6('::ffff:192.0.2.1') AS exporter,
    'esnet-a' AS link_id,
    src_addr,
    dst_addr,
    toUInt32(40000 + i) AS src_port,
    5201 AS dst_port,
    6 AS proto,
    start_at + toIntervalMillisecond(i * 37) AS start_at,
    end_at,
    intDiv(bytes, n_flows) AS bytes,
    intDiv(bytes, n_flows * 1400) AS packets,
    least(intDiv(bytes, n_flows), toUInt64(7.5e9)) AS peak_interval_bytes,
    start_at AS peak_interval_start_at,
    rate_bps / n_flows AS rate_bps,
    toUInt32(duration_s / 60) + 1 AS records,
    0 AS src_as,
    0 AS dst_as,
    0 AS threshold_version,
    0 AS threshold_bps
FROM flowsets
ARRAY JOIN member_flow_ids AS member, arrayEnumerate(member_flow_ids) AS i
WHERE startsWith(flowset_id, 'bench-fs-');
