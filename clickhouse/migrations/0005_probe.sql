-- Packet probe output (schemas/cheetah/v1/probe.proto; ingest/probe).

-- probe.flights.v1 -> probe_flights (Flight).

CREATE TABLE IF NOT EXISTS probe_flights
(
    flow_id           String,
    link_id           LowCardinality(String),
    probe_id          LowCardinality(String),
    src_addr          IPv6,
    dst_addr          IPv6,
    src_port          UInt32,
    dst_port          UInt32,
    proto             UInt32,
    first_at          DateTime64(9, 'UTC'),                   -- first packet of the flight
    elapsed_ns        UInt64,                                 -- first to last packet of the flight
    bytes             UInt64,
    packets           UInt64,
    rate_bps          Float64,                                -- bytes * 8 / elapsed
    cheetah           Bool,                                   -- rate passed R
    threshold_version UInt64,
    threshold_bps     Float64
)
ENGINE = MergeTree
PARTITION BY toDate(first_at)
ORDER BY (link_id, first_at)
TTL toDateTime(first_at) + INTERVAL 30 DAY;

CREATE TABLE IF NOT EXISTS probe_flights_queue
(
    flow_id           String,
    link_id           String,
    probe_id          String,
    src_addr          IPv6,
    dst_addr          IPv6,
    src_port          UInt32,
    dst_port          UInt32,
    proto             UInt32,
    first_ns          UInt64,
    elapsed_ns        UInt64,
    bytes             UInt64,
    packets           UInt64,
    rate_bps          Float64,
    cheetah           Bool,
    threshold_version UInt64,
    threshold_bps     Float64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'probe.flights.v1',
    kafka_group_name = '{{kafka_group_prefix}}.probe_flights',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/probe.proto:Flight',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_flights_mv TO probe_flights AS
SELECT
    flow_id,
    link_id,
    probe_id,
    src_addr,
    dst_addr,
    src_port,
    dst_port,
    proto,
    fromUnixTimestamp64Nano(toInt64(first_ns), 'UTC') AS first_at,
    elapsed_ns,
    bytes,
    packets,
    rate_bps,
    cheetah,
    threshold_version,
    threshold_bps
FROM probe_flights_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_flights_undecodable_rejected_mv TO rejected AS
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
FROM probe_flights_queue
WHERE length(_error) > 0;

-- probe.bins.v1 -> probe_bins (LinkBin).

CREATE TABLE IF NOT EXISTS probe_bins
(
    link_id       LowCardinality(String),
    probe_id      LowCardinality(String),
    bin_start_at  DateTime64(3, 'UTC'),
    bin_ms        UInt32,                                     -- T1
    bytes         UInt64,                                     -- all traffic of the link in the bin
    packets       UInt64,
    cheetah_bytes UInt64                                      -- bytes of flows marked cheetah (redirected): background = bytes - cheetah_bytes
)
ENGINE = MergeTree
PARTITION BY toDate(bin_start_at)
ORDER BY (link_id, bin_start_at, probe_id)
TTL toDateTime(bin_start_at) + INTERVAL 90 DAY;

CREATE TABLE IF NOT EXISTS probe_bins_queue
(
    link_id       String,
    probe_id      String,
    bin_start_ms  UInt64,
    bin_ms        UInt32,
    bytes         UInt64,
    packets       UInt64,
    cheetah_bytes UInt64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'probe.bins.v1',
    kafka_group_name = '{{kafka_group_prefix}}.probe_bins',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/probe.proto:LinkBin',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_bins_mv TO probe_bins AS
SELECT
    link_id,
    probe_id,
    fromUnixTimestamp64Milli(toInt64(bin_start_ms), 'UTC') AS bin_start_at,
    bin_ms,
    bytes,
    packets,
    cheetah_bytes
FROM probe_bins_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_bins_undecodable_rejected_mv TO rejected AS
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
FROM probe_bins_queue
WHERE length(_error) > 0;

-- probe.packets.v1 -> probe_packets (PacketSummary).

CREATE TABLE IF NOT EXISTS probe_packets
(
    flow_id       String,
    link_id       LowCardinality(String),
    ts_at         DateTime64(9, 'UTC'),
    src_addr      IPv6,
    dst_addr      IPv6,
    src_port      UInt32,
    dst_port      UInt32,
    proto         UInt32,
    length        UInt32,                                     -- IP length
    tcp_flags     UInt32,
    sampling_rate UInt32,                                     -- 1 in N
    tcp_window    UInt32
)
ENGINE = MergeTree
PARTITION BY toDate(ts_at)
ORDER BY (link_id, ts_at)
TTL toDateTime(ts_at) + INTERVAL 7 DAY;

CREATE TABLE IF NOT EXISTS probe_packets_queue
(
    flow_id       String,
    link_id       String,
    ts_ns         UInt64,
    src_addr      IPv6,
    dst_addr      IPv6,
    src_port      UInt32,
    dst_port      UInt32,
    proto         UInt32,
    length        UInt32,
    tcp_flags     UInt32,
    sampling_rate UInt32,
    tcp_window    UInt32
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'probe.packets.v1',
    kafka_group_name = '{{kafka_group_prefix}}.probe_packets',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/probe.proto:PacketSummary',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_packets_mv TO probe_packets AS
SELECT
    flow_id,
    link_id,
    fromUnixTimestamp64Nano(toInt64(ts_ns), 'UTC') AS ts_at,
    src_addr,
    dst_addr,
    src_port,
    dst_port,
    proto,
    length,
    tcp_flags,
    sampling_rate,
    tcp_window
FROM probe_packets_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_packets_undecodable_rejected_mv TO rejected AS
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
FROM probe_packets_queue
WHERE length(_error) > 0;
