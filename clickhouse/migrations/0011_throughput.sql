-- Transfer throughput and alerts (schemas/cheetah/v1/throughput.proto).

-- throughput.v1 -> throughput (Throughput).

CREATE TABLE IF NOT EXISTS throughput
(
    src_host           String,
    dst_host           String,
    start_at           DateTime64(3, 'UTC'),
    end_at             DateTime64(3, 'UTC'),
    streams            UInt32,
    bytes              UInt64,
    sum_stream_bps     Float64,
    mean_time_bps      Float64,
    max_time_bps       Float64,
    passive            Bool,
    forecast_mean5_bps Float64,
    forecast_ewma_bps  Float64,
    diurnal_a          Float64,
    diurnal_b          Float64,
    diurnal_c          Float64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(start_at)
ORDER BY (src_host, dst_host, start_at)
TTL toDateTime(start_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS throughput_queue
(
    src_host           String,
    dst_host           String,
    start_ms           UInt64,
    end_ms             UInt64,
    streams            UInt32,
    bytes              UInt64,
    sum_stream_bps     Float64,
    mean_time_bps      Float64,
    max_time_bps       Float64,
    passive            Bool,
    forecast_mean5_bps Float64,
    forecast_ewma_bps  Float64,
    diurnal_a          Float64,
    diurnal_b          Float64,
    diurnal_c          Float64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'throughput.v1',
    kafka_group_name = '{{kafka_group_prefix}}.throughput',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/throughput.proto:Throughput',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS throughput_mv TO throughput AS
SELECT
    src_host,
    dst_host,
    fromUnixTimestamp64Milli(toInt64(start_ms), 'UTC') AS start_at,
    fromUnixTimestamp64Milli(toInt64(end_ms), 'UTC') AS end_at,
    streams,
    bytes,
    sum_stream_bps,
    mean_time_bps,
    max_time_bps,
    passive,
    forecast_mean5_bps,
    forecast_ewma_bps,
    diurnal_a,
    diurnal_b,
    diurnal_c
FROM throughput_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS throughput_undecodable_rejected_mv TO rejected AS
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
FROM throughput_queue
WHERE length(_error) > 0;

-- alerts.v1 -> alerts (Alert).

CREATE TABLE IF NOT EXISTS alerts
(
    alert_id    String,
    kind        LowCardinality(String),
    src_host    String,
    dst_host    String,
    detected_at DateTime64(3, 'UTC'),
    severity    LowCardinality(String),
    message     String,
    value       Float64,
    expected    Float64
)
ENGINE = ReplacingMergeTree(detected_at)
ORDER BY alert_id
TTL toDateTime(detected_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS alerts_queue
(
    alert_id    String,
    kind        String,
    src_host    String,
    dst_host    String,
    detected_ms UInt64,
    severity    String,
    message     String,
    value       Float64,
    expected    Float64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'alerts.v1',
    kafka_group_name = '{{kafka_group_prefix}}.alerts',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/throughput.proto:Alert',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS alerts_mv TO alerts AS
SELECT
    alert_id,
    kind,
    src_host,
    dst_host,
    fromUnixTimestamp64Milli(toInt64(detected_ms), 'UTC') AS detected_at,
    severity,
    message,
    value,
    expected
FROM alerts_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS alerts_undecodable_rejected_mv TO rejected AS
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
FROM alerts_queue
WHERE length(_error) > 0;
