-- cheetahs.v1 -> cheetahs: start, update and end events of cheetah flows
-- (schemas/cheetah/v1/cheetahs.proto CheetahEvent). ReplacingMergeTree(seq)
-- keyed by flow_id: the latest event of a flow wins (query with FINAL, or
-- argMax(..., seq) ... GROUP BY flow_id). Not partitioned by time, so that
-- replacement never depends on which partition an event fell in.

CREATE TABLE IF NOT EXISTS cheetahs
(
    flow_id                String,
    type                   LowCardinality(String),  -- start, update, end
    source                 LowCardinality(String),  -- netflow, probe
    event_at               DateTime64(3, 'UTC'),
    seq                    UInt64,
    exporter               IPv6,
    link_id                LowCardinality(String),
    src_addr               IPv6,
    dst_addr               IPv6,
    src_port               UInt32,
    dst_port               UInt32,
    proto                  UInt32,
    start_at               DateTime64(3, 'UTC'),
    end_at                 DateTime64(3, 'UTC'),
    bytes                  UInt64,
    packets                UInt64,
    peak_interval_bytes    UInt64,
    peak_interval_start_at DateTime64(3, 'UTC'),
    rate_bps               Float64,
    records                UInt32,
    src_as                 UInt32,
    dst_as                 UInt32,
    threshold_version      UInt64,
    threshold_bps          Float64
)
ENGINE = ReplacingMergeTree(seq)
ORDER BY flow_id
TTL toDateTime(event_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS cheetahs_queue
(
    flow_id                String,
    type                   String,
    source                 String,
    event_ms               UInt64,
    seq                    UInt64,
    exporter               IPv6,
    link_id                String,
    src_addr               IPv6,
    dst_addr               IPv6,
    src_port               UInt32,
    dst_port               UInt32,
    proto                  UInt32,
    start_ms               UInt64,
    end_ms                 UInt64,
    bytes                  UInt64,
    packets                UInt64,
    peak_interval_bytes    UInt64,
    peak_interval_start_ms UInt64,
    rate_bps               Float64,
    records                UInt32,
    src_as                 UInt32,
    dst_as                 UInt32,
    threshold_version      UInt64,
    threshold_bps          Float64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'cheetahs.v1',
    kafka_group_name = '{{kafka_group_prefix}}.cheetahs',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/cheetahs.proto:CheetahEvent',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS cheetahs_mv TO cheetahs AS
SELECT
    flow_id,
    lower(replaceOne(type, 'CHEETAH_EVENT_TYPE_', '')) AS type,
    lower(replaceOne(source, 'DETECTION_SOURCE_', '')) AS source,
    fromUnixTimestamp64Milli(toInt64(event_ms), 'UTC') AS event_at,
    seq,
    exporter,
    link_id,
    src_addr,
    dst_addr,
    src_port,
    dst_port,
    proto,
    fromUnixTimestamp64Milli(toInt64(start_ms), 'UTC') AS start_at,
    fromUnixTimestamp64Milli(toInt64(end_ms), 'UTC') AS end_at,
    bytes,
    packets,
    peak_interval_bytes,
    fromUnixTimestamp64Milli(toInt64(peak_interval_start_ms), 'UTC') AS peak_interval_start_at,
    rate_bps,
    records,
    src_as,
    dst_as,
    threshold_version,
    threshold_bps
FROM cheetahs_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS cheetahs_undecodable_rejected_mv TO rejected AS
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
FROM cheetahs_queue
WHERE length(_error) > 0;
