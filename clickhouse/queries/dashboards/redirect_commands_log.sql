-- Every command the redirect job published (redirects.commands.v1), delivered at least once and
-- kept once (FINAL). Prefixes are IPv6 lengths in the table; IPv4-mapped ones are shown as IPv4.
SELECT
    command_id,
    issued_at,
    -- The minute, truncated here: a grain on issued_at itself would alias over the column.
    toStartOfMinute(issued_at) AS minute,
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
    src_port,
    dst_port,
    proto,
    reason,
    cheetah_flow_id,
    threshold_version,
    if(dry_run, 'yes', 'no') AS dry_run,
    replaces_command_id,
    toUInt64(greatest(dateDiff('millisecond', issued_at, expires_at), 0)) AS lifetime_ms
FROM redirect_commands FINAL
