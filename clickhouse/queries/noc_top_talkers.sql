-- NOC: the 20 source addresses that moved most bytes in cheetah flows in the last 24 hours.
SELECT
    toString(src_addr) AS src,
    dictGet('sites', 'site', src_addr) AS site,
    uniqExact(flow_id) AS cheetah_flows,
    formatReadableSize(sum(bytes)) AS volume,
    concat(formatReadableQuantity(max(rate_bps)), 'bit/s') AS peak_rate
FROM cheetahs FINAL
WHERE end_at >= now64(3) - INTERVAL 24 HOUR
GROUP BY src_addr
ORDER BY sum(bytes) DESC
LIMIT 20
