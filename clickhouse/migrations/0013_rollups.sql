-- Rollups fed by materialized views (ARCHITECTURE.md "Storage"): flow volumes and link
-- load per 1 min / 1 h / 1 day, link statistics per 1 min / 1 h / 1 day, and flowsets per
-- site pair and month. Views see rows as they are inserted into their source table, so a
-- rollup counts what arrived from then on (run `cheetah_warehouse rollups rebuild` after
-- loading sites or migrating existing data). SummingMergeTree sums the plain numeric
-- columns of rows with the same key when parts merge: query with sum()/max() ... GROUP BY.

-- flows_1m: records, bytes and packets of flows.v1 per 1m of start, exporter, site pair, proto.
CREATE TABLE IF NOT EXISTS flows_1m
(
    bucket_at DateTime('UTC'),
    exporter  IPv6,
    src_site  LowCardinality(String),  -- '' when no site prefix matches
    dst_site  LowCardinality(String),
    proto     UInt32,
    records   UInt64,
    bytes     UInt64,
    packets   UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (bucket_at, exporter, src_site, dst_site, proto)
TTL bucket_at + INTERVAL 90 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS flows_1m_mv TO flows_1m AS
SELECT
    toStartOfMinute(start_at, 'UTC') AS bucket_at,
    exporter,
    dictGet('{{database}}.sites', 'site', src_addr) AS src_site,
    dictGet('{{database}}.sites', 'site', dst_addr) AS dst_site,
    proto,
    count() AS records,
    sum(bytes) AS bytes,
    sum(packets) AS packets
FROM flows
GROUP BY bucket_at, exporter, src_site, dst_site, proto;

-- flows_1h: records, bytes and packets of flows.v1 per 1h of start, exporter, site pair, proto.
CREATE TABLE IF NOT EXISTS flows_1h
(
    bucket_at DateTime('UTC'),
    exporter  IPv6,
    src_site  LowCardinality(String),  -- '' when no site prefix matches
    dst_site  LowCardinality(String),
    proto     UInt32,
    records   UInt64,
    bytes     UInt64,
    packets   UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (bucket_at, exporter, src_site, dst_site, proto)
TTL bucket_at + INTERVAL 400 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS flows_1h_mv TO flows_1h AS
SELECT
    toStartOfHour(start_at, 'UTC') AS bucket_at,
    exporter,
    dictGet('{{database}}.sites', 'site', src_addr) AS src_site,
    dictGet('{{database}}.sites', 'site', dst_addr) AS dst_site,
    proto,
    count() AS records,
    sum(bytes) AS bytes,
    sum(packets) AS packets
FROM flows
GROUP BY bucket_at, exporter, src_site, dst_site, proto;

-- flows_1d: records, bytes and packets of flows.v1 per 1d of start, exporter, site pair, proto.
CREATE TABLE IF NOT EXISTS flows_1d
(
    bucket_at DateTime('UTC'),
    exporter  IPv6,
    src_site  LowCardinality(String),  -- '' when no site prefix matches
    dst_site  LowCardinality(String),
    proto     UInt32,
    records   UInt64,
    bytes     UInt64,
    packets   UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (bucket_at, exporter, src_site, dst_site, proto)
TTL bucket_at + INTERVAL 1825 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS flows_1d_mv TO flows_1d AS
SELECT
    toStartOfDay(start_at, 'UTC') AS bucket_at,
    exporter,
    dictGet('{{database}}.sites', 'site', src_addr) AS src_site,
    dictGet('{{database}}.sites', 'site', dst_addr) AS dst_site,
    proto,
    count() AS records,
    sum(bytes) AS bytes,
    sum(packets) AS packets
FROM flows
GROUP BY bucket_at, exporter, src_site, dst_site, proto;

-- link_load_1m: probe.bins.v1 per link and 1m. Burstiness of the bucket from the sums
-- (CoV of background bytes per T1 bin): sqrt(bg_bytes_sq / bins - (bg_bytes / bins)^2) / (bg_bytes / bins).
CREATE TABLE IF NOT EXISTS link_load_1m
(
    link_id       LowCardinality(String),
    bucket_at     DateTime('UTC'),
    bins          UInt64,
    bytes         UInt64,
    packets       UInt64,
    cheetah_bytes UInt64,
    bg_bytes      UInt64,   -- bytes - cheetah_bytes
    bg_bytes_sq   Float64,  -- sum over bins of background bytes squared
    max_bin_bytes SimpleAggregateFunction(max, UInt64)
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (link_id, bucket_at)
TTL bucket_at + INTERVAL 90 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_load_1m_mv TO link_load_1m AS
SELECT
    link_id,
    toStartOfMinute(bin_start_at, 'UTC') AS bucket_at,
    count() AS bins,
    sum(b.bytes) AS bytes,
    sum(b.packets) AS packets,
    sum(b.cheetah_bytes) AS cheetah_bytes,
    sum(b.bytes - least(b.cheetah_bytes, b.bytes)) AS bg_bytes,
    sum(pow(toFloat64(b.bytes - least(b.cheetah_bytes, b.bytes)), 2)) AS bg_bytes_sq,
    max(b.bytes) AS max_bin_bytes
FROM probe_bins AS b
GROUP BY link_id, bucket_at;

-- link_load_1h: probe.bins.v1 per link and 1h. Burstiness of the bucket from the sums
-- (CoV of background bytes per T1 bin): sqrt(bg_bytes_sq / bins - (bg_bytes / bins)^2) / (bg_bytes / bins).
CREATE TABLE IF NOT EXISTS link_load_1h
(
    link_id       LowCardinality(String),
    bucket_at     DateTime('UTC'),
    bins          UInt64,
    bytes         UInt64,
    packets       UInt64,
    cheetah_bytes UInt64,
    bg_bytes      UInt64,   -- bytes - cheetah_bytes
    bg_bytes_sq   Float64,  -- sum over bins of background bytes squared
    max_bin_bytes SimpleAggregateFunction(max, UInt64)
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (link_id, bucket_at)
TTL bucket_at + INTERVAL 400 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_load_1h_mv TO link_load_1h AS
SELECT
    link_id,
    toStartOfHour(bin_start_at, 'UTC') AS bucket_at,
    count() AS bins,
    sum(b.bytes) AS bytes,
    sum(b.packets) AS packets,
    sum(b.cheetah_bytes) AS cheetah_bytes,
    sum(b.bytes - least(b.cheetah_bytes, b.bytes)) AS bg_bytes,
    sum(pow(toFloat64(b.bytes - least(b.cheetah_bytes, b.bytes)), 2)) AS bg_bytes_sq,
    max(b.bytes) AS max_bin_bytes
FROM probe_bins AS b
GROUP BY link_id, bucket_at;

-- link_load_1d: probe.bins.v1 per link and 1d. Burstiness of the bucket from the sums
-- (CoV of background bytes per T1 bin): sqrt(bg_bytes_sq / bins - (bg_bytes / bins)^2) / (bg_bytes / bins).
CREATE TABLE IF NOT EXISTS link_load_1d
(
    link_id       LowCardinality(String),
    bucket_at     DateTime('UTC'),
    bins          UInt64,
    bytes         UInt64,
    packets       UInt64,
    cheetah_bytes UInt64,
    bg_bytes      UInt64,   -- bytes - cheetah_bytes
    bg_bytes_sq   Float64,  -- sum over bins of background bytes squared
    max_bin_bytes SimpleAggregateFunction(max, UInt64)
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (link_id, bucket_at)
TTL bucket_at + INTERVAL 1825 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_load_1d_mv TO link_load_1d AS
SELECT
    link_id,
    toStartOfDay(bin_start_at, 'UTC') AS bucket_at,
    count() AS bins,
    sum(b.bytes) AS bytes,
    sum(b.packets) AS packets,
    sum(b.cheetah_bytes) AS cheetah_bytes,
    sum(b.bytes - least(b.cheetah_bytes, b.bytes)) AS bg_bytes,
    sum(pow(toFloat64(b.bytes - least(b.cheetah_bytes, b.bytes)), 2)) AS bg_bytes_sq,
    max(b.bytes) AS max_bin_bytes
FROM probe_bins AS b
GROUP BY link_id, bucket_at;

-- link_stats_1m: links.stats.v1 per link, kind (sliding or T2) and 1m of window end;
-- averages are sum_* / windows.
CREATE TABLE IF NOT EXISTS link_stats_1m
(
    link_id         LowCardinality(String),
    sliding         Bool,
    bucket_at       DateTime('UTC'),
    windows         UInt64,
    sum_mean_bg_bps Float64,
    sum_burstiness  Float64,
    sum_utilization Float64,
    max_burstiness  SimpleAggregateFunction(max, Float64),
    max_utilization SimpleAggregateFunction(max, Float64)
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (link_id, sliding, bucket_at)
TTL bucket_at + INTERVAL 90 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_1m_mv TO link_stats_1m AS
SELECT
    link_id,
    sliding,
    toStartOfMinute(window_end_at, 'UTC') AS bucket_at,
    count() AS windows,
    sum(mean_bg_bps) AS sum_mean_bg_bps,
    sum(burstiness) AS sum_burstiness,
    sum(utilization) AS sum_utilization,
    max(burstiness) AS max_burstiness,
    max(utilization) AS max_utilization
FROM link_stats
GROUP BY link_id, sliding, bucket_at;

-- link_stats_1h: links.stats.v1 per link, kind (sliding or T2) and 1h of window end;
-- averages are sum_* / windows.
CREATE TABLE IF NOT EXISTS link_stats_1h
(
    link_id         LowCardinality(String),
    sliding         Bool,
    bucket_at       DateTime('UTC'),
    windows         UInt64,
    sum_mean_bg_bps Float64,
    sum_burstiness  Float64,
    sum_utilization Float64,
    max_burstiness  SimpleAggregateFunction(max, Float64),
    max_utilization SimpleAggregateFunction(max, Float64)
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (link_id, sliding, bucket_at)
TTL bucket_at + INTERVAL 400 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_1h_mv TO link_stats_1h AS
SELECT
    link_id,
    sliding,
    toStartOfHour(window_end_at, 'UTC') AS bucket_at,
    count() AS windows,
    sum(mean_bg_bps) AS sum_mean_bg_bps,
    sum(burstiness) AS sum_burstiness,
    sum(utilization) AS sum_utilization,
    max(burstiness) AS max_burstiness,
    max(utilization) AS max_utilization
FROM link_stats
GROUP BY link_id, sliding, bucket_at;

-- link_stats_1d: links.stats.v1 per link, kind (sliding or T2) and 1d of window end;
-- averages are sum_* / windows.
CREATE TABLE IF NOT EXISTS link_stats_1d
(
    link_id         LowCardinality(String),
    sliding         Bool,
    bucket_at       DateTime('UTC'),
    windows         UInt64,
    sum_mean_bg_bps Float64,
    sum_burstiness  Float64,
    sum_utilization Float64,
    max_burstiness  SimpleAggregateFunction(max, Float64),
    max_utilization SimpleAggregateFunction(max, Float64)
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket_at)
ORDER BY (link_id, sliding, bucket_at)
TTL bucket_at + INTERVAL 1825 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_1d_mv TO link_stats_1d AS
SELECT
    link_id,
    sliding,
    toStartOfDay(window_end_at, 'UTC') AS bucket_at,
    count() AS windows,
    sum(mean_bg_bps) AS sum_mean_bg_bps,
    sum(burstiness) AS sum_burstiness,
    sum(utilization) AS sum_utilization,
    max(burstiness) AS max_burstiness,
    max(utilization) AS max_utilization
FROM link_stats
GROUP BY link_id, sliding, bucket_at;

-- flowsets_site_month: flowsets per month of their start and (source site, destination
-- site). Quantiles are ClickHouse's reservoir quantiles (exact up to 8192 flowsets per
-- key, then sampled): quantilesMerge(0.5, 0.95, 0.99)(size_q) AS size_p50_p95_p99.
CREATE TABLE IF NOT EXISTS flowsets_site_month
(
    month        Date,
    src_site     LowCardinality(String),
    dst_site     LowCardinality(String),
    flowsets     SimpleAggregateFunction(sum, UInt64),
    singles      SimpleAggregateFunction(sum, UInt64),  -- N = 1
    flows        SimpleAggregateFunction(sum, UInt64),  -- sum of N
    bytes        SimpleAggregateFunction(sum, UInt64),
    duration_sum SimpleAggregateFunction(sum, Float64),
    rate_sum     SimpleAggregateFunction(sum, Float64),
    max_n        SimpleAggregateFunction(max, UInt32),
    max_bytes    SimpleAggregateFunction(max, UInt64),
    max_duration SimpleAggregateFunction(max, Float64),
    max_rate     SimpleAggregateFunction(max, Float64),
    size_q       AggregateFunction(quantiles(0.5, 0.95, 0.99), UInt64),
    duration_q   AggregateFunction(quantiles(0.5, 0.95, 0.99), Float64),
    rate_q       AggregateFunction(quantiles(0.5, 0.95, 0.99), Float64)
)
ENGINE = AggregatingMergeTree
ORDER BY (month, src_site, dst_site)
TTL month + INTERVAL 5 YEAR;

CREATE MATERIALIZED VIEW IF NOT EXISTS flowsets_site_month_mv TO flowsets_site_month AS
SELECT
    toStartOfMonth(f.start_at, 'UTC') AS month,
    dictGet('{{database}}.sites', 'site', f.src_addr) AS src_site,
    dictGet('{{database}}.sites', 'site', f.dst_addr) AS dst_site,
    count() AS flowsets,
    countIf(f.n_flows = 1) AS singles,
    sum(toUInt64(f.n_flows)) AS flows,
    sum(f.bytes) AS bytes,
    sum(f.duration_s) AS duration_sum,
    sum(f.rate_bps) AS rate_sum,
    max(f.n_flows) AS max_n,
    max(f.bytes) AS max_bytes,
    max(f.duration_s) AS max_duration,
    max(f.rate_bps) AS max_rate,
    quantilesState(0.5, 0.95, 0.99)(f.bytes) AS size_q,
    quantilesState(0.5, 0.95, 0.99)(f.duration_s) AS duration_q,
    quantilesState(0.5, 0.95, 0.99)(f.rate_bps) AS rate_q
FROM flowsets AS f
GROUP BY month, src_site, dst_site;
