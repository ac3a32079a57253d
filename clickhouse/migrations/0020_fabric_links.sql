-- Written by `python -m cheetah_warehouse schema new-migration fabric_links` from the table declarations
-- (clickhouse/tables/*.yaml; topics and messages: schemas/topics.yaml). Once applied, this file
-- is history: change a declaration and write another migration.
--
-- fabric_links: the migrations do not create this table
-- fabric_links_queue: the migrations do not create this Kafka table
-- fabric_links_mv: the migrations do not create this view
-- fabric_links_undecodable_rejected_mv: the migrations do not create this view

CREATE TABLE IF NOT EXISTS fabric_links
(
    fabric             LowCardinality(String),
    round_at           DateTime64(3, 'UTC'),
    link_id            LowCardinality(String),
    from_node          LowCardinality(String),
    from_port          UInt32,
    to_node            LowCardinality(String),
    to_port            UInt32,
    between_switches   Bool,
    capacity_bps       Float64,
    threshold_bps      Float64,
    measured           Bool,
    counter_bps        Float64,
    utilisation_bps    Float64,
    utilisation        Float64,
    over_threshold     Bool,
    flows              UInt32,
    sampled_bps        Float64,
    elephants          UInt32,
    top_src            IPv6,
    top_dst            IPv6,
    top_src_port       UInt32,
    top_dst_port       UInt32,
    top_proto          UInt32,
    top_bps            Float64,
    reroute_command_id String,
    unresolved         String
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(round_at)
ORDER BY (fabric, link_id, round_at)
TTL toDateTime(round_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS fabric_links_queue
(
    fabric             String,
    round_ms           UInt64,
    link_id            String,
    from_node          String,
    from_port          UInt32,
    to_node            String,
    to_port            UInt32,
    between_switches   Bool,
    capacity_bps       Float64,
    threshold_bps      Float64,
    measured           Bool,
    counter_bps        Float64,
    utilisation_bps    Float64,
    over_threshold     Bool,
    flows              UInt32,
    sampled_bps        Float64,
    elephants          UInt32,
    top_src            IPv6,
    top_dst            IPv6,
    top_src_port       UInt32,
    top_dst_port       UInt32,
    top_proto          UInt32,
    top_bps            Float64,
    reroute_command_id String,
    unresolved         String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'fabric.links.v1',
    kafka_group_name = '{{kafka_group_prefix}}.fabric_links',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/fabric.proto:FabricLinkState',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS fabric_links_mv TO fabric_links AS
SELECT
    fabric,
    fromUnixTimestamp64Milli(toInt64(round_ms), 'UTC') AS round_at,
    link_id,
    from_node,
    from_port,
    to_node,
    to_port,
    between_switches,
    capacity_bps,
    threshold_bps,
    measured,
    counter_bps,
    utilisation_bps,
    if(capacity_bps > 0, utilisation_bps / capacity_bps, 0) AS utilisation,
    over_threshold,
    flows,
    sampled_bps,
    elephants,
    top_src,
    top_dst,
    top_src_port,
    top_dst_port,
    top_proto,
    top_bps,
    reroute_command_id,
    unresolved
FROM fabric_links_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS fabric_links_undecodable_rejected_mv TO rejected AS
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
FROM fabric_links_queue
WHERE length(_error) > 0;
