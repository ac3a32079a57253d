-- What the demo waits on for its probe link: bins stored, link statistics and thresholds derived
-- (one of them from a simulated loss table), and the probe's counters.
SELECT
    (SELECT count() FROM probe_bins) AS bins,
    (SELECT count() FROM link_stats) AS link_stats,
    (SELECT count() FROM thresholds) AS thresholds,
    (SELECT count() FROM probe_counters) AS counter_snapshots,
    (SELECT count() FROM thresholds WHERE mode = 'table') AS table_thresholds
FORMAT TabSeparated
