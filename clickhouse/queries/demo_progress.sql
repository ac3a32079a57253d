-- What the demo waits on: flow records stored, cheetah flows ended, flowsets closed.
SELECT
    (SELECT count() FROM flows) AS flows,
    (SELECT count() FROM cheetahs FINAL WHERE type = 'end' AND source = 'netflow') AS cheetahs,
    (SELECT count() FROM flowsets FINAL) AS flowsets,
    (SELECT count() FROM rejected) AS rejected
FORMAT TabSeparated
