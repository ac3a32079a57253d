-- thresholds.v1 -> thresholds: every version of the rate threshold R per link
-- (schemas/cheetah/v1/thresholds.proto). ReplacingMergeTree(computed_at) keyed by
-- (link_id, version): the history stays, a version delivered twice is one row. The R in
-- force is argMax(rate_bps, version) per link.

CREATE TABLE IF NOT EXISTS thresholds
(
    link_id         LowCardinality(String),
    version         UInt64,
    mode            LowCardinality(String),                   -- formula, table, feedback, static
    rate_bps        Float64,                                  -- R
    computed_at     DateTime64(3, 'UTC'),
    capacity_bps    Float64,
    mean_bg_bps     Float64,
    burstiness      Float64,
    alpha_bg        Float64,
    loss_acceptable Float64,
    measured_loss   Float64,
    reason          String                                    -- why R changed
)
ENGINE = ReplacingMergeTree(computed_at)
ORDER BY (link_id, version)
TTL toDateTime(computed_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS thresholds_queue
(
    link_id         String,
    version         UInt64,
    mode            String,
    rate_bps        Float64,
    computed_ms     UInt64,
    capacity_bps    Float64,
    mean_bg_bps     Float64,
    burstiness      Float64,
    alpha_bg        Float64,
    loss_acceptable Float64,
    measured_loss   Float64,
    reason          String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'thresholds.v1',
    kafka_group_name = '{{kafka_group_prefix}}.thresholds',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/thresholds.proto:Threshold',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS thresholds_mv TO thresholds AS
SELECT
    link_id,
    version,
    lower(replaceOne(mode, 'THRESHOLD_MODE_', '')) AS mode,
    rate_bps,
    fromUnixTimestamp64Milli(toInt64(computed_ms), 'UTC') AS computed_at,
    capacity_bps,
    mean_bg_bps,
    burstiness,
    alpha_bg,
    loss_acceptable,
    measured_loss,
    reason
FROM thresholds_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS thresholds_undecodable_rejected_mv TO rejected AS
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
FROM thresholds_queue
WHERE length(_error) > 0;
