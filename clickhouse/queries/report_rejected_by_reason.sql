-- Report "Rejected by stage and reason".
SELECT stage, reason, count() AS records
FROM rejected
GROUP BY stage, reason
ORDER BY records DESC, stage, reason
