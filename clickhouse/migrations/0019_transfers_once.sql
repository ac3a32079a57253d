-- transfers.v1 is delivered at least once now that the shippers publish it (schemas/topics.yaml):
-- shipping a log again sends its transfers again. The table becomes a ReplacingMergeTree by its
-- sorting key (src_host, dst_host, start_at), so that a transfer is one row (the embedded
-- warehouse skips a record whose key the table holds; a ClickHouse server's merges replace it).
-- An engine cannot be altered: the rows move into a new table, created under another name (so that
-- in replicated mode its ZooKeeper path is not the old table's) and renamed once the old one is
-- gone. The Kafka table and its views are created again around it (the consumer group stays, so
-- consumption continues from its offsets). Replicated mode: the new table's ZooKeeper path is
-- .../transfers_replacing for good; each replica copies its own rows, and a row copied by two
-- replicas is one key, replaced by the next merge (FINAL at once).

DROP VIEW IF EXISTS transfers_mv;
DROP VIEW IF EXISTS transfers_undecodable_rejected_mv;
DROP TABLE IF EXISTS transfers_queue;

CREATE TABLE IF NOT EXISTS transfers_replacing
(
    src_host           String,
    dst_host           String,
    tool               LowCardinality(String),
    streams            UInt32,
    bytes              UInt64,
    seconds            Float64,
    start_at           DateTime64(3, 'UTC'),
    end_at             DateTime64(3, 'UTC'),
    tcp_buffer_bytes   UInt64,
    congestion_control LowCardinality(String),
    mtu                UInt32,
    stream_rates_bps   Array(Float64),
    stream_seconds     Array(Float64)
)
ENGINE = ReplacingMergeTree
PARTITION BY toYYYYMM(start_at)
ORDER BY (src_host, dst_host, start_at)
TTL toDateTime(start_at) + INTERVAL 400 DAY;

INSERT INTO transfers_replacing SELECT * FROM transfers;

DROP TABLE transfers SYNC;

RENAME TABLE transfers_replacing TO transfers;

CREATE TABLE IF NOT EXISTS transfers_queue
(
    src_host           String,
    dst_host           String,
    tool               String,
    streams            UInt32,
    bytes              UInt64,
    seconds            Float64,
    start_ms           UInt64,
    end_ms             UInt64,
    tcp_buffer_bytes   UInt64,
    congestion_control String,
    mtu                UInt32,
    stream_rates_bps   Array(Float64),
    stream_seconds     Array(Float64)
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'transfers.v1',
    kafka_group_name = '{{kafka_group_prefix}}.transfers',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/transfers.proto:Transfer',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS transfers_mv TO transfers AS
SELECT
    src_host,
    dst_host,
    tool,
    streams,
    bytes,
    seconds,
    fromUnixTimestamp64Milli(toInt64(start_ms), 'UTC') AS start_at,
    fromUnixTimestamp64Milli(toInt64(end_ms), 'UTC') AS end_at,
    tcp_buffer_bytes,
    congestion_control,
    mtu,
    stream_rates_bps,
    stream_seconds
FROM transfers_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS transfers_undecodable_rejected_mv TO rejected AS
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
FROM transfers_queue
WHERE length(_error) > 0;
