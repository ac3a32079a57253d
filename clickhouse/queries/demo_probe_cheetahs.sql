-- The probe's cheetah flows as stored (latest event of each), for the demo's check against the
-- trace generator's truth: link, 5-tuple, the last event's type, and the threshold R it was judged
-- with.
SELECT
    link_id,
    replaceRegexpOne(IPv6NumToString(src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(IPv6NumToString(dst_addr), '^::ffff:', '') AS dst,
    src_port, dst_port, proto, type, threshold_bps, flow_id
FROM cheetahs FINAL
WHERE source = 'probe'
ORDER BY link_id, src, dst, src_port, dst_port
FORMAT TabSeparated
