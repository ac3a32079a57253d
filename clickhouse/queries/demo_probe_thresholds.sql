-- Every rate threshold R the probe reported in force (its counter snapshots, every --counters-ms
-- and at exit), per link: thresholds published while the replay runs change R mid-trace, so the
-- demo's check of the probe's cheetahs accepts either outcome for a flow between the lowest R/2
-- and the highest R.
SELECT DISTINCT link_id, threshold_bps
FROM probe_counters
ORDER BY link_id, threshold_bps
FORMAT TabSeparated
