-- Report "Records": flow records stored and records rejected (any stage).
SELECT
    (SELECT count() FROM flows)    AS flows,
    (SELECT count() FROM rejected) AS rejected
