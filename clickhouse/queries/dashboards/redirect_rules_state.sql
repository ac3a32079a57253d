-- A rule is named by its add command; a remove ends it (clickhouse/README.md). rule_state:
-- in force (active, not dry-run, not expired now), expired, dry run, removed. An Enum, so
-- that ordering by it puts the rules in force first.
SELECT
    rule_id,
    CAST(multiIf(state = 'removed', 'removed', dry_run, 'dry run', expires_at <= now64(3), 'expired', 'in force'),
         'Enum8(\'in force\' = 1, \'expired\' = 2, \'dry run\' = 3, \'removed\' = 4)') AS rule_state,
    changed_at,
    expires_at,
    device_id,
    link_id,
    action,
    if(startsWith(toString(src_prefix), '::ffff:') AND src_prefix_len >= 96,
       concat(substring(toString(src_prefix), 8), '/', toString(src_prefix_len - 96)),
       concat(toString(src_prefix), '/', toString(src_prefix_len))) AS src_net,
    if(startsWith(toString(dst_prefix), '::ffff:') AND dst_prefix_len >= 96,
       concat(substring(toString(dst_prefix), 8), '/', toString(dst_prefix_len - 96)),
       concat(toString(dst_prefix), '/', toString(dst_prefix_len))) AS dst_net,
    proto,
    reason,
    cheetah_flow_id,
    threshold_version
FROM redirect_rules FINAL
