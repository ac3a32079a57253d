-- Every redirect decision (published, dry-run, refused), in issue order, with the start of the
-- NetFlow cheetah it is about (0 for a prefix filter): the demo's guardrail check.
SELECT
    d.device_id, d.outcome, d.refusal, d.action,
    IPv6NumToString(d.src_prefix), d.src_prefix_len,
    IPv6NumToString(d.dst_prefix), d.dst_prefix_len,
    d.src_port, d.dst_port, d.proto,
    toUnixTimestamp64Milli(d.issued_at) AS issued_ms,
    d.command_id, d.replaces_command_id,
    ifNull(toUnixTimestamp64Milli(c.start_at), 0) AS start_ms
FROM (SELECT * FROM redirect_decisions FINAL) AS d
LEFT JOIN (SELECT flow_id, start_at FROM cheetahs FINAL WHERE source = 'netflow') AS c
    ON c.flow_id = d.cheetah_flow_id AND d.cheetah_flow_id != ''
ORDER BY issued_ms, d.command_id
FORMAT TabSeparated
