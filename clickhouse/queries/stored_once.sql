-- Is every result stored once? Per result table, WITHOUT FINAL: rows, distinct keys, and up to
-- three keys stored more than once (the tests' and the demo's duplicate check, StoredOnce.java).
-- A key is what one version of a result is: a flow record (all its fields), a cheetah event of
-- the NetFlow job (flow_id, seq: a flow has start, update and end events), a flowset
-- (flowset_id, emitted once when it closes), a link statistics window, a threshold version, a
-- redirect decision (device, command, outcome) and command, a throughput row (host pair, instance
-- or transfer, start and end) and an alert report (alert_id, detected_at: a PRCA finding is
-- reported again with each transfer of its cluster; the alerts table keeps the latest, and rows of
-- one id within one insert are replaced already there). ReplacingMergeTree merges copies
-- away in the background (and within one insert), so callers stop merges before the results
-- arrive (stop_merges.sql); rows = keys is then what "stored once" means.
SELECT 'flows' AS result, sum(n) AS stored, count() AS keys, groupArrayIf(3)(k, n > 1) AS repeated
FROM (
    SELECT concat(IPv6NumToString(exporter), '/', toString(observation_domain), ' ',
                  IPv6NumToString(src_addr), ':', toString(src_port), '>',
                  IPv6NumToString(dst_addr), ':', toString(dst_port), '/', toString(proto), ' ',
                  toString(toUnixTimestamp64Milli(start_at)), '-', toString(toUnixTimestamp64Milli(end_at)),
                  ' ', toString(bytes), 'B ', toString(packets), 'p received ',
                  toString(toUnixTimestamp64Milli(received_at))) AS k,
           count() AS n
    FROM flows GROUP BY k)
UNION ALL
SELECT 'cheetahs', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT concat(flow_id, ' seq ', toString(seq)) AS k, count() AS n
      FROM cheetahs WHERE source = 'netflow' GROUP BY k)
UNION ALL
SELECT 'flowsets', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT flowset_id AS k, count() AS n FROM flowsets GROUP BY k)
UNION ALL
SELECT 'link_stats', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT concat(link_id, if(sliding, ' sliding ', ' '),
                    toString(toUnixTimestamp64Milli(window_start_at)), '-',
                    toString(toUnixTimestamp64Milli(window_end_at))) AS k,
             count() AS n
      FROM link_stats GROUP BY k)
UNION ALL
SELECT 'thresholds', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT concat(link_id, ' v', toString(version)) AS k, count() AS n FROM thresholds GROUP BY k)
UNION ALL
SELECT 'redirect_decisions', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT concat(device_id, ' ', command_id, ' ', outcome) AS k, count() AS n
      FROM redirect_decisions GROUP BY k)
UNION ALL
SELECT 'redirect_commands', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT command_id AS k, count() AS n FROM redirect_commands GROUP BY k)
UNION ALL
SELECT 'throughput', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT concat(src_host, '>', dst_host, if(passive, ' instance ', ' transfer '),
                    toString(toUnixTimestamp64Milli(start_at)), '-',
                    toString(toUnixTimestamp64Milli(end_at))) AS k,
             count() AS n
      FROM throughput GROUP BY k)
UNION ALL
SELECT 'alerts', sum(n), count(), groupArrayIf(3)(k, n > 1)
FROM (SELECT concat(alert_id, ' at ', toString(toUnixTimestamp64Milli(detected_at))) AS k,
             count() AS n
      FROM alerts GROUP BY k)
FORMAT TabSeparated
