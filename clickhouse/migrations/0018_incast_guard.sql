-- Written by `python -m cheetah_warehouse schema new-migration incast_guard` from the table declarations
-- (clickhouse/tables/*.yaml; topics and messages: schemas/topics.yaml). Once applied, this file
-- is history: change a declaration and write another migration.
--
-- incast_guard: the migrations do not create this table
-- incast_guard_queue: the migrations do not create this Kafka table
-- incast_guard_mv: the migrations do not create this view
-- incast_guard_undecodable_rejected_mv: the migrations do not create this view

CREATE TABLE IF NOT EXISTS incast_guard
(
    device_id         LowCardinality(String),
    receiver          IPv6,
    at                DateTime64(3, 'UTC'),
    senders           UInt32,
    senders_one_mss   UInt32,
    syn_acks_total    UInt64,
    releases_total    UInt64,
    acks_seen_total   UInt64,
    acks_capped_total UInt64,
    backlog_bytes     UInt64,
    max_backlog_bytes UInt64,
    buffer_bytes      UInt64,
    share_bytes       UInt64,
    queue_drops_total UInt64,
    command_id        String
)
ENGINE = MergeTree
PARTITION BY toDate(at)
ORDER BY (device_id, receiver, at)
TTL toDateTime(at) + INTERVAL 90 DAY;

CREATE TABLE IF NOT EXISTS incast_guard_queue
(
    device_id         String,
    receiver          IPv6,
    time_ms           UInt64,
    senders           UInt32,
    senders_one_mss   UInt32,
    syn_acks_total    UInt64,
    releases_total    UInt64,
    acks_seen_total   UInt64,
    acks_capped_total UInt64,
    backlog_bytes     UInt64,
    max_backlog_bytes UInt64,
    buffer_bytes      UInt64,
    share_bytes       UInt64,
    queue_drops_total UInt64,
    command_id        String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'incast.guard.v1',
    kafka_group_name = '{{kafka_group_prefix}}.incast_guard',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/incast.proto:IncastGuardSample',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS incast_guard_mv TO incast_guard AS
SELECT
    device_id,
    receiver,
    fromUnixTimestamp64Milli(toInt64(time_ms), 'UTC') AS at,
    senders,
    senders_one_mss,
    syn_acks_total,
    releases_total,
    acks_seen_total,
    acks_capped_total,
    backlog_bytes,
    max_backlog_bytes,
    buffer_bytes,
    share_bytes,
    queue_drops_total,
    command_id
FROM incast_guard_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS incast_guard_undecodable_rejected_mv TO rejected AS
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
FROM incast_guard_queue
WHERE length(_error) > 0;
