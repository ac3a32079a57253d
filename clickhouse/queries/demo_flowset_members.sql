-- Stored flowset membership in the shape of the generator's flowset_members.csv, for the demo's
-- ground-truth check: one row per member flow id of every flowset, resolved to the member's
-- addresses, ports and start through the NetFlow cheetahs (a member id with no cheetah comes out
-- as :: with zeros, and fails the check).
SELECT
    replaceRegexpOne(IPv6NumToString(c.src_addr), '^::ffff:', '') AS src,
    replaceRegexpOne(IPv6NumToString(c.dst_addr), '^::ffff:', '') AS dst,
    toUnixTimestamp64Milli(f.start_at) AS flowset_start_ms,
    c.src_port AS src_port, c.dst_port AS dst_port, c.proto AS proto,
    toUnixTimestamp64Milli(c.start_at) AS start_ms
FROM (SELECT start_at, member FROM flowsets FINAL ARRAY JOIN member_flow_ids AS member) AS f
LEFT JOIN (SELECT flow_id, src_addr, dst_addr, src_port, dst_port, proto, start_at
           FROM cheetahs FINAL WHERE source = 'netflow') AS c ON c.flow_id = f.member
ORDER BY flowset_start_ms, src, dst, start_ms, src_port
FORMAT CSV
