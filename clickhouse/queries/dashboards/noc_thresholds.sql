-- Every published version of R per link, with the inputs and the reason it changed.
SELECT
    link_id,
    computed_at,
    version,
    mode,
    rate_bps,
    mean_bg_bps,
    burstiness,
    reason
FROM thresholds FINAL
