-- probe.counters.v1 -> probe_counters (ProbeCounters, schemas/cheetah/v1/probe.proto): the
-- probe's cumulative counters, every --counters-ms and at exit. Counters restart from 0 with
-- each probe process (started_at), so increments are taken within (probe_id, started_at):
-- the view probe_counter_increments.

CREATE TABLE IF NOT EXISTS probe_counters
(
    probe_id            LowCardinality(String),
    link_id             LowCardinality(String),
    started_at          DateTime64(3, 'UTC'),                 -- the probe process's start: counters count from here
    at                  DateTime64(3, 'UTC'),                 -- this snapshot
    at_exit             Bool,                                 -- the last snapshot of the process
    packets             UInt64,
    bytes               UInt64,
    not_ip              UInt64,
    truncated_l2        UInt64,
    truncated_l3        UInt64,
    truncated_l4        UInt64,
    bad_ip_header       UInt64,
    bad_l4_header       UInt64,
    fragment            UInt64,
    too_many_headers    UInt64,
    filtered_protocol   UInt64,
    filtered_length     UInt64,
    sampled_out         UInt64,
    cache_hits          UInt64,
    cache_misses        UInt64,
    entries_created     UInt64,
    evictions           UInt64,
    evicted_cheetahs    UInt64,
    idle_expired        UInt64,
    flights_ended       UInt64,
    flights_exported    UInt64,
    cheetahs_started    UInt64,
    cheetahs_ended      UInt64,
    packets_sampled     UInt64,
    export_drops        UInt64,                               -- a full worker event ring (live only)
    distributor_drops   UInt64,                               -- a full distributor ring
    port_missed         UInt64,                               -- the port's rx missed
    port_nombuf         UInt64,                               -- the port had no mbuf
    kafka_produced      UInt64,
    kafka_delivered     UInt64,
    kafka_undeliverable UInt64,                               -- queue full or delivery timed out
    threshold_version   UInt64,
    threshold_bps       Float64
)
ENGINE = MergeTree
PARTITION BY toDate(at)
ORDER BY (probe_id, started_at, at)
TTL toDateTime(at) + INTERVAL 90 DAY;

CREATE TABLE IF NOT EXISTS probe_counters_queue
(
    probe_id            String,
    link_id             String,
    started_ms          UInt64,
    at_ms               UInt64,
    at_exit             Bool,
    packets             UInt64,
    bytes               UInt64,
    not_ip              UInt64,
    truncated_l2        UInt64,
    truncated_l3        UInt64,
    truncated_l4        UInt64,
    bad_ip_header       UInt64,
    bad_l4_header       UInt64,
    fragment            UInt64,
    too_many_headers    UInt64,
    filtered_protocol   UInt64,
    filtered_length     UInt64,
    sampled_out         UInt64,
    cache_hits          UInt64,
    cache_misses        UInt64,
    entries_created     UInt64,
    evictions           UInt64,
    evicted_cheetahs    UInt64,
    idle_expired        UInt64,
    flights_ended       UInt64,
    flights_exported    UInt64,
    cheetahs_started    UInt64,
    cheetahs_ended      UInt64,
    packets_sampled     UInt64,
    export_drops        UInt64,
    distributor_drops   UInt64,
    port_missed         UInt64,
    port_nombuf         UInt64,
    kafka_produced      UInt64,
    kafka_delivered     UInt64,
    kafka_undeliverable UInt64,
    threshold_version   UInt64,
    threshold_bps       Float64
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'probe.counters.v1',
    kafka_group_name = '{{kafka_group_prefix}}.probe_counters',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/probe.proto:ProbeCounters',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_counters_mv TO probe_counters AS
SELECT
    probe_id,
    link_id,
    fromUnixTimestamp64Milli(toInt64(started_ms), 'UTC') AS started_at,
    fromUnixTimestamp64Milli(toInt64(at_ms), 'UTC') AS at,
    at_exit,
    packets, bytes,
    not_ip, truncated_l2, truncated_l3, truncated_l4, bad_ip_header, bad_l4_header, fragment, too_many_headers,
    filtered_protocol, filtered_length, sampled_out,
    cache_hits, cache_misses, entries_created, evictions, evicted_cheetahs, idle_expired,
    flights_ended, flights_exported, cheetahs_started, cheetahs_ended, packets_sampled,
    export_drops, distributor_drops, port_missed, port_nombuf,
    kafka_produced, kafka_delivered, kafka_undeliverable,
    threshold_version, threshold_bps
FROM probe_counters_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS probe_counters_undecodable_rejected_mv TO rejected AS
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
FROM probe_counters_queue
WHERE length(_error) > 0;

-- What each snapshot added to the previous one of the same process: losses (port and distributor
-- drops are packets, export drops and undeliverable are records) and packets that are not flow packets
-- per interval, summable over any time bucket. The first snapshot of a process counts in full
-- (its counters started at 0).
CREATE VIEW IF NOT EXISTS probe_counter_increments AS
SELECT
    probe_id,
    link_id,
    started_at,
    at,
    packets - lagInFrame(packets, 1, 0) OVER w AS packets,
    bytes - lagInFrame(bytes, 1, 0) OVER w AS bytes,
    export_drops - lagInFrame(export_drops, 1, 0) OVER w AS export_drops,
    distributor_drops - lagInFrame(distributor_drops, 1, 0) OVER w AS distributor_drops,
    port_missed + port_nombuf - lagInFrame(port_missed + port_nombuf, 1, 0) OVER w AS port_drops,
    kafka_undeliverable - lagInFrame(kafka_undeliverable, 1, 0) OVER w AS kafka_undeliverable,
    (not_ip + truncated_l2 + truncated_l3 + truncated_l4 + bad_ip_header + bad_l4_header + fragment + too_many_headers)
        - lagInFrame(not_ip + truncated_l2 + truncated_l3 + truncated_l4 + bad_ip_header + bad_l4_header + fragment
                     + too_many_headers, 1, 0) OVER w AS not_flow_packets,
    evictions - lagInFrame(evictions, 1, 0) OVER w AS evictions,
    cheetahs_started - lagInFrame(cheetahs_started, 1, 0) OVER w AS cheetahs_started
FROM probe_counters
WINDOW w AS (PARTITION BY probe_id, started_at ORDER BY at ROWS BETWEEN 1 PRECEDING AND CURRENT ROW);
