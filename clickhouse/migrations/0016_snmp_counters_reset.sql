-- snmp.counters.v1 gained counters_reset and sys_uptime_ticks (schemas/cheetah/v1/snmp.proto):
-- store them, so that discard rates over the last polls skip the differences across a new
-- baseline. The Kafka table lists its columns, so it is re-created with its views; the
-- consumer group stays, so consumption continues from the committed offsets.

ALTER TABLE snmp_counters ADD COLUMN IF NOT EXISTS counters_reset Bool AFTER if_high_speed_mbps;
ALTER TABLE snmp_counters ADD COLUMN IF NOT EXISTS sys_uptime_ticks UInt32 AFTER counters_reset;

DROP VIEW IF EXISTS snmp_counters_mv;
DROP VIEW IF EXISTS snmp_counters_undecodable_rejected_mv;
DROP TABLE IF EXISTS snmp_counters_queue;

CREATE TABLE IF NOT EXISTS snmp_counters_queue
(
    link_id              String,
    device               String,
    if_index             UInt32,
    polled_ms            UInt64,
    if_hc_out_octets     UInt64,
    if_hc_out_ucast_pkts UInt64,
    if_out_discards      UInt64,
    if_high_speed_mbps   UInt64,
    counters_reset       Bool,
    sys_uptime_ticks     UInt32
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'snmp.counters.v1',
    kafka_group_name = '{{kafka_group_prefix}}.snmp_counters',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/snmp.proto:SnmpCounters',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS snmp_counters_mv TO snmp_counters AS
SELECT
    link_id,
    device,
    if_index,
    fromUnixTimestamp64Milli(toInt64(polled_ms), 'UTC') AS polled_at,
    if_hc_out_octets,
    if_hc_out_ucast_pkts,
    if_out_discards,
    if_high_speed_mbps,
    counters_reset,
    sys_uptime_ticks
FROM snmp_counters_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS snmp_counters_undecodable_rejected_mv TO rejected AS
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
FROM snmp_counters_queue
WHERE length(_error) > 0;
