-- What the demo waits on for its probe link: bins stored, link statistics and thresholds derived
-- (one of them from a simulated loss table), and the probe's counters up to its last snapshot
-- (at exit: every threshold it had in force is then stored).
SELECT
    (SELECT count() FROM probe_bins) AS bins,
    (SELECT count() FROM link_stats) AS link_stats,
    (SELECT count() FROM thresholds) AS thresholds,
    (SELECT count() FROM probe_counters) AS counter_snapshots,
    (SELECT count() FROM thresholds WHERE mode = 'table') AS table_thresholds,
    (SELECT count() FROM probe_counters WHERE at_exit) AS exit_snapshots
FORMAT TabSeparated
