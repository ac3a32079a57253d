-- Redirect audit: commands and acks (schemas/cheetah/v1/redirects.proto; ARCHITECTURE.md
-- "Redirect commands"). Commands are delivered at least once: ReplacingMergeTree keyed by
-- command_id keeps one row per command.

-- redirects.commands.v1 -> redirect_commands (RedirectCommand).

CREATE TABLE IF NOT EXISTS redirect_commands
(
    command_id          String,
    issued_at           DateTime64(3, 'UTC'),
    expires_at          DateTime64(3, 'UTC'),
    device_id           LowCardinality(String),
    src_prefix          IPv6,
    src_prefix_len      UInt32,                               -- IPv6 length: an IPv4 /24 is /120
    dst_prefix          IPv6,
    dst_prefix_len      UInt32,
    src_port            UInt32,
    dst_port            UInt32,
    proto               UInt32,
    action              LowCardinality(String),               -- scavenger, dscp_mark, redirect_path, redirect_vrf, rate_limit, rwnd_cap, remove
    dscp                UInt32,
    path                String,
    rate_limit_bps      Float64,
    rwnd_bytes          UInt64,
    reason              String,
    cheetah_flow_id     String,
    flowset_id          String,
    threshold_version   UInt64,
    link_id             LowCardinality(String),
    dry_run             Bool,
    replaces_command_id String,                               -- the add command a remove ends
    key_id              LowCardinality(String),
    hmac_hex            String                                -- HMAC of the command, hex
)
ENGINE = ReplacingMergeTree(issued_at)
ORDER BY command_id
TTL toDateTime(issued_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS redirect_commands_queue
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
    dscp                UInt32,
    path                String,
    rate_limit_bps      Float64,
    rwnd_bytes          UInt64,
    reason              String,
    cheetah_flow_id     String,
    flowset_id          String,
    threshold_version   UInt64,
    link_id             String,
    dry_run             Bool,
    replaces_command_id String,
    key_id              String,
    hmac                String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'redirects.commands.v1',
    kafka_group_name = '{{kafka_group_prefix}}.redirect_commands',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/redirects.proto:RedirectCommand',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_commands_mv TO redirect_commands AS
SELECT
    command_id,
    fromUnixTimestamp64Milli(toInt64(issued_ms), 'UTC') AS issued_at,
    fromUnixTimestamp64Milli(toInt64(expires_ms), 'UTC') AS expires_at,
    device_id,
    src_prefix,
    src_prefix_len,
    dst_prefix,
    dst_prefix_len,
    src_port,
    dst_port,
    proto,
    lower(replaceOne(action, 'REDIRECT_ACTION_', '')) AS action,
    dscp,
    path,
    rate_limit_bps,
    rwnd_bytes,
    reason,
    cheetah_flow_id,
    flowset_id,
    threshold_version,
    link_id,
    dry_run,
    replaces_command_id,
    key_id,
    hex(hmac) AS hmac_hex
FROM redirect_commands_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_commands_undecodable_rejected_mv TO rejected AS
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
FROM redirect_commands_queue
WHERE length(_error) > 0;

-- redirects.acks.v1 -> redirect_acks (RedirectAck).

CREATE TABLE IF NOT EXISTS redirect_acks
(
    command_id String,
    device_id  LowCardinality(String),
    status     LowCardinality(String),                        -- applied, rejected, failed, duplicate
    detail     String,
    acked_at   DateTime64(3, 'UTC'),
    adapter    LowCardinality(String)
)
ENGINE = ReplacingMergeTree(acked_at)
ORDER BY (device_id, command_id, status, adapter)
TTL toDateTime(acked_at) + INTERVAL 400 DAY;

CREATE TABLE IF NOT EXISTS redirect_acks_queue
(
    command_id String,
    device_id  String,
    status     String,
    detail     String,
    acked_ms   UInt64,
    adapter    String
)
ENGINE = Kafka
SETTINGS
    kafka_broker_list = '{{kafka_brokers}}',
    kafka_topic_list = 'redirects.acks.v1',
    kafka_group_name = '{{kafka_group_prefix}}.redirect_acks',
    kafka_format = 'ProtobufSingle',
    kafka_schema = 'cheetah/v1/redirects.proto:RedirectAck',
    kafka_handle_error_mode = 'stream',
    kafka_flush_interval_ms = {{kafka_flush_interval_ms}},
    kafka_num_consumers = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_acks_mv TO redirect_acks AS
SELECT
    command_id,
    device_id,
    lower(replaceOne(status, 'ACK_STATUS_', '')) AS status,
    detail,
    fromUnixTimestamp64Milli(toInt64(acked_ms), 'UTC') AS acked_at,
    adapter
FROM redirect_acks_queue
WHERE length(_error) = 0;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_acks_undecodable_rejected_mv TO rejected AS
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
FROM redirect_acks_queue
WHERE length(_error) > 0;

-- redirect_rules: one row per rule with its latest state, for "rules in force". A rule is
-- named by the command that added it; a remove names that command in replaces_command_id.
-- In force: SELECT ... FROM redirect_rules FINAL WHERE state = 'active' AND NOT dry_run
-- AND expires_at > now64(3).

CREATE TABLE IF NOT EXISTS redirect_rules
(
    rule_id           String,                  -- command_id of the add
    last_command_id   String,
    state             LowCardinality(String),  -- active, removed
    changed_at        DateTime64(3, 'UTC'),    -- issued_at of the last command
    expires_at        DateTime64(3, 'UTC'),
    device_id         LowCardinality(String),
    link_id           LowCardinality(String),
    action            LowCardinality(String),
    src_prefix        IPv6,
    src_prefix_len    UInt32,
    dst_prefix        IPv6,
    dst_prefix_len    UInt32,
    src_port          UInt32,
    dst_port          UInt32,
    proto             UInt32,
    reason            String,
    cheetah_flow_id   String,
    flowset_id        String,
    threshold_version UInt64,
    dry_run           Bool
)
ENGINE = ReplacingMergeTree(changed_at)
ORDER BY rule_id
TTL toDateTime(changed_at) + INTERVAL 400 DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS redirect_rules_mv TO redirect_rules AS
SELECT
    if(action = 'remove' AND replaces_command_id != '', replaces_command_id, command_id) AS rule_id,
    command_id AS last_command_id,
    if(action = 'remove', 'removed', 'active') AS state,
    issued_at AS changed_at,
    expires_at,
    device_id,
    link_id,
    action,
    src_prefix,
    src_prefix_len,
    dst_prefix,
    dst_prefix_len,
    src_port,
    dst_port,
    proto,
    reason,
    cheetah_flow_id,
    flowset_id,
    threshold_version,
    dry_run
FROM redirect_commands;
