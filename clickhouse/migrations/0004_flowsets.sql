-- flowsets.v1 -> flowsets: parallel flowsets (schemas/cheetah/v1/flowsets.proto
-- Flowset; definition in ARCHITECTURE.md). ReplacingMergeTree(closed_at) keyed
-- by flowset_id: a set emitted again keeps its latest closing.

CREATE TABLE IF NOT EXISTS flowsets
(
    flowset_id      String,
    src_addr        IPv6,
    dst_addr        IPv6,
    src_as          UInt32,
    dst_as          UInt32,
    n_flows         UInt32,
    single          Bool,                    -- n_flows = 1: a single cheetah flow
    start_at        DateTime64(3, 'UTC'),
    end_at          DateTime64(3, 'UTC'),
    bytes           UInt64,                  -- size
    duration_s      Float64,
    rate_bps        Float64,
    member_flow_ids Array(String),
    closed_at       DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(closed_at)
ORDER BY flowset_id
TTL toDateTime(closed_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS flowsets_queue
(
    flowset_id      String,
    src_addr        IPv6,
    dst_addr        IPv6,
    src_as          UInt32,
    dst_as          UInt32,
    n_flows         UInt32,
    single          Bool,
    start_ms        UInt64,
    end_ms          UInt64,
    bytes           UInt64,
    duration_s      Float64,
    rate_bps        Float64,
    member_flow_ids Array(String),
    closed_ms       UInt64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'flowsets.v1',
    kafka_group_name = '{{kafka_group_prefix}}.flowsets',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/flowsets.proto:Flowset',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS flowsets_mv TO flowsets AS
SELECT
    flowset_id,
    src_addr,
    dst_addr,
    src_as,
    dst_as,
    n_flows,
    single,
    fromUnixTimestamp64Milli(toInt64(start_ms), 'UTC') AS start_at,
    fromUnixTimestamp64Milli(toInt64(end_ms), 'UTC') AS end_at,
    bytes,
    duration_s,
    rate_bps,
    member_flow_ids,
    fromUnixTimestamp64Milli(toInt64(closed_ms), 'UTC') AS closed_at
FROM flowsets_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS flowsets_undecodable_rejected_mv TO rejected AS
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
FROM flowsets_queue
WHERE length(_error) > 0;
