-- redirects.decisions.v1 -> redirect_decisions: every decision of the redirect job
-- (published, dry-run, refused by a guardrail), for the audit (docs/REDIRECTS.md).
-- outcome: published | dry_run | refused. Delivered at least once: ReplacingMergeTree keyed by
-- (device_id, command_id, outcome) keeps one row per decision (a flow refused at its start and
-- added later has one row of each).

CREATE TABLE IF NOT EXISTS redirect_decisions
(
    command_id          String,
    outcome             LowCardinality(String),
    refusal             String,                   -- the guardrail that refused, and its limit
    issued_at           DateTime64(3, 'UTC'),
    expires_at          DateTime64(3, 'UTC'),
    device_id           LowCardinality(String),
    action              LowCardinality(String),
    src_prefix          IPv6,
    src_prefix_len      UInt32,
    dst_prefix          IPv6,
    dst_prefix_len      UInt32,
    src_port            UInt32,
    dst_port            UInt32,
    proto               UInt32,
    reason              String,
    cheetah_flow_id     String,
    threshold_version   UInt64,
    link_id             LowCardinality(String),
    replaces_command_id String
)
ENGINE = ReplacingMergeTree(issued_at)
ORDER BY (device_id, command_id, outcome)
TTL toDateTime(issued_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS redirect_decisions_queue
(
    command_id          String,
    issued_ms           UInt64,
    expires_ms          UInt64,
    device_id           String,
    src_prefix          IPv6,
    src_prefix_len      UInt32,
    dst_prefix          IPv6,
    dst_prefix_len      UInt32,
    src_port            UInt32,
    dst_port            UInt32,
    proto               UInt32,
    action              String,
    reason              String,
    cheetah_flow_id     String,
    threshold_version   UInt64,
    link_id             String,
    dry_run             Bool,
    replaces_command_id String,
    refusal             String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'redirects.decisions.v1',
    kafka_group_name = '{{kafka_group_prefix}}.redirect_decisions',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/redirects.proto:RedirectCommand',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_decisions_mv TO redirect_decisions AS
SELECT
    command_id,
    multiIf(refusal != '', 'refused', dry_run, 'dry_run', 'published') AS outcome,
    refusal,
    fromUnixTimestamp64Milli(toInt64(issued_ms), 'UTC') AS issued_at,
    fromUnixTimestamp64Milli(toInt64(expires_ms), 'UTC') AS expires_at,
    device_id,
    lower(replaceOne(action, 'REDIRECT_ACTION_', '')) AS action,
    src_prefix,
    src_prefix_len,
    dst_prefix,
    dst_prefix_len,
    src_port,
    dst_port,
    proto,
    reason,
    cheetah_flow_id,
    threshold_version,
    link_id,
    replaces_command_id
FROM redirect_decisions_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_decisions_undecodable_rejected_mv TO rejected AS
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
FROM redirect_decisions_queue
WHERE length(_error) > 0;
