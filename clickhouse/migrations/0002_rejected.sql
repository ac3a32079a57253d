-- flows.rejected.v1 -> rejected: the bad input itself plus why it was refused
-- (schemas/cheetah/v1/flows.proto RejectedRecord). Also receives, with stage
-- 'warehouse', every record of a result topic that the warehouse could not decode:
-- nothing is dropped silently (ARCHITECTURE.md "Kafka topics").

CREATE TABLE IF NOT EXISTS rejected
(
    stage            LowCardinality(String),
    reason           LowCardinality(String),
    detail           String,
    payload          String,                  -- the refused bytes, verbatim
    exporter         IPv6,
    received_at      DateTime64(3, 'UTC'),
    source_topic     LowCardinality(String),
    source_partition Int32,
    source_offset    Int64
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (received_at, stage, reason)
TTL toDateTime(received_at) + INTERVAL 90 DAY;

-- exporter is read as raw bytes: the record describes bad input, so an address
-- of the wrong length is stored as '::' rather than refusing the rejection.
CREATE TABLE IF NOT EXISTS rejected_queue
(
    stage            String,
    reason           String,
    detail           String,
    payload          String,
    exporter         String,
    received_ms      UInt64,
    source_topic     String,
    source_partition Int32,
    source_offset    Int64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'flows.rejected.v1',
    kafka_group_name = '{{kafka_group_prefix}}.rejected',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/flows.proto:RejectedRecord',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS rejected_mv TO rejected AS
SELECT
    stage,
    reason,
    detail,
    payload,
    if(length(exporter) = 16, CAST(toFixedString(exporter, 16) AS IPv6), toIPv6('::')) AS exporter,
    if(received_ms = 0, now64(3, 'UTC'), fromUnixTimestamp64Milli(toInt64(received_ms), 'UTC')) AS received_at,
    source_topic,
    source_partition,
    source_offset
FROM rejected_queue
WHERE length(_error) = 0;

-- Records of a result topic that did not decode as their protobuf message.
CREATE MATERIALIZED VIEW IF NOT EXISTS rejected_undecodable_rejected_mv TO rejected AS
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
FROM rejected_queue
WHERE length(_error) > 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS flows_undecodable_rejected_mv TO rejected AS
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
FROM flows_queue
WHERE length(_error) > 0;
