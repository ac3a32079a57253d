-- Report "Cheetahs": cheetah flows (latest event per flow_id) and their bytes,
-- per detection source; the row with source = '' (ROLLUP) is the total.
SELECT source, count() AS flows, sum(bytes) AS bytes
FROM cheetahs FINAL
GROUP BY source WITH ROLLUP
ORDER BY source = '', source
