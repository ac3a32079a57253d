-- Link statistics as published: aligned T2 windows and the sliding updates between them.
SELECT
    link_id,
    window_end_at,
    window_start_at,
    if(sliding, 'sliding', 'aligned') AS window,
    mean_bg_bps,
    burstiness,
    utilization * 100 AS utilization_pct,
    capacity_bps
FROM link_stats FINAL
