-- links.stats.v1 -> link_stats: background rate and burstiness per link and T2 window
-- (schemas/cheetah/v1/links.proto). ReplacingMergeTree: a window published again (after a
-- restart, or a sliding window recomputed) keeps one row.

CREATE TABLE IF NOT EXISTS link_stats
(
    link_id         LowCardinality(String),
    window_start_at DateTime64(3, 'UTC'),
    window_end_at   DateTime64(3, 'UTC'),
    t1_ms           UInt32,
    t2_ms           UInt64,
    bins            UInt64,
    mean_bg_bps     Float64,
    burstiness      Float64,                                  -- CoV of background bytes per T1 bin
    utilization     Float64,                                  -- 0..1
    capacity_bps    Float64,
    hour_of_day     UInt32,
    sliding         Bool
)
ENGINE = ReplacingMergeTree
ORDER BY (link_id, sliding, window_start_at, window_end_at)
TTL toDateTime(window_end_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS link_stats_queue
(
    link_id         String,
    window_start_ms UInt64,
    window_end_ms   UInt64,
    t1_ms           UInt32,
    t2_ms           UInt64,
    bins            UInt64,
    mean_bg_bps     Float64,
    burstiness      Float64,
    utilization     Float64,
    capacity_bps    Float64,
    hour_of_day     UInt32,
    sliding         Bool
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'links.stats.v1',
    kafka_group_name = '{{kafka_group_prefix}}.link_stats',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/links.proto:LinkStats',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_mv TO link_stats AS
SELECT
    link_id,
    fromUnixTimestamp64Milli(toInt64(window_start_ms), 'UTC') AS window_start_at,
    fromUnixTimestamp64Milli(toInt64(window_end_ms), 'UTC') AS window_end_at,
    t1_ms,
    t2_ms,
    bins,
    mean_bg_bps,
    burstiness,
    utilization,
    capacity_bps,
    hour_of_day,
    sliding
FROM link_stats_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS link_stats_undecodable_rejected_mv TO rejected AS
SELECT
    'warehouse' AS stage,
    'undecodable_protobuf' AS reason,
    _error AS detail,
    _raw_message AS payload,
    toIPv6('::') AS exporter,
    now64(3, 'UTC') AS received_at,
    _topic AS source_topic,
    toInt32(_partition) AS source_partition,
    toInt64(_offset) AS source_offset
FROM link_stats_queue
WHERE length(_error) > 0;
