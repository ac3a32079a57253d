-- flows.v1 -> flows: canonical flow records (schemas/cheetah/v1/flows.proto FlowRecord).
-- Kafka table -> materialized view -> MergeTree (ARCHITECTURE.md "Storage").
-- Template variables ({{...}}) are substituted by the migration runner: clickhouse/README.md.

CREATE TABLE IF NOT EXISTS flows
(
    exporter           IPv6,
    observation_domain UInt32,
    source             LowCardinality(String),  -- FlowSource without its prefix, lower case: netflow_v9, ipfix, ...
    received_at        DateTime64(3, 'UTC'),
    start_at           DateTime64(3, 'UTC'),
    end_at             DateTime64(3, 'UTC'),
    src_addr           IPv6,                    -- IPv4 as IPv4-mapped IPv6, as in cheetah.v1
    dst_addr           IPv6,
    src_port           UInt32,
    dst_port           UInt32,
    proto              UInt32,
    bytes              UInt64,                  -- already scaled by sampling_rate
    packets            UInt64,
    sampling_rate      UInt64,
    src_as             UInt32,
    dst_as             UInt32,
    in_if              UInt32,
    out_if             UInt32,
    tcp_flags          UInt32,
    ip_tos             UInt32,
    etype              UInt32
)
ENGINE = MergeTree
PARTITION BY toDate(start_at)
ORDER BY (start_at, exporter, src_addr, dst_addr)
TTL toDateTime(start_at) + INTERVAL 30 DAY;

-- One bare FlowRecord per Kafka record. Columns are matched to fields by name;
-- bytes address fields are read as IPv6 (16 bytes), enums as their names.
-- kafka_handle_error_mode = 'stream': an undecodable record does not stall the
-- consumer; it is stored in `rejected` (0002_rejected.sql) with its raw bytes.
CREATE TABLE IF NOT EXISTS flows_queue
(
    exporter           IPv6,
    observation_domain UInt32,
    source             String,
    received_ms        UInt64,
    start_ms           UInt64,
    end_ms             UInt64,
    src_addr           IPv6,
    dst_addr           IPv6,
    src_port           UInt32,
    dst_port           UInt32,
    proto              UInt32,
    bytes              UInt64,
    packets            UInt64,
    sampling_rate      UInt64,
    src_as             UInt32,
    dst_as             UInt32,
    in_if              UInt32,
    out_if             UInt32,
    tcp_flags          UInt32,
    ip_tos             UInt32,
    etype              UInt32
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'flows.v1',
    kafka_group_name = '{{kafka_group_prefix}}.flows',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/flows.proto:FlowRecord',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS flows_mv TO flows AS
SELECT
    exporter,
    observation_domain,
    lower(replaceOne(source, 'FLOW_SOURCE_', '')) AS source,
    fromUnixTimestamp64Milli(toInt64(received_ms), 'UTC') AS received_at,
    fromUnixTimestamp64Milli(toInt64(start_ms), 'UTC') AS start_at,
    fromUnixTimestamp64Milli(toInt64(end_ms), 'UTC') AS end_at,
    src_addr,
    dst_addr,
    src_port,
    dst_port,
    proto,
    bytes,
    packets,
    sampling_rate,
    src_as,
    dst_as,
    in_if,
    out_if,
    tcp_flags,
    ip_tos,
    etype
FROM flows_queue
WHERE length(_error) = 0;
