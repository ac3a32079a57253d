-- Each reroute the fabric job decided (fabric_links.reroute_command_id, docs/FABRIC.md "The job") and
-- its effect on the congested link that caused it: the link's utilisation (% of capacity, as the rule
-- used it) in the round of the decision, and its mean over the next 5 rounds. The decision's outcome
-- (published, dry_run, refused) and reason come from redirect_decisions ('not stored' when the
-- warehouse holds no decision of that id).
SELECT
    r.round_at AS round_at,
    r.fabric AS fabric,
    r.link_id AS link_id,
    r.reroute_command_id AS command_id,
    if(d.command_id = '', 'not stored', d.outcome) AS outcome,
    d.reason AS reason,
    r.before_pct AS before_pct,
    r.after_pct AS after_pct,
    r.after_pct - r.before_pct AS change_pct
FROM
(
    SELECT
        round_at,
        fabric,
        link_id,
        reroute_command_id,
        100 * utilisation AS before_pct,
        100 * avg(utilisation) OVER (PARTITION BY fabric, link_id ORDER BY round_at ROWS BETWEEN 1 FOLLOWING AND 5 FOLLOWING) AS after_pct
    FROM fabric_links
) AS r
LEFT JOIN
(
    SELECT command_id, any(outcome) AS outcome, any(reason) AS reason
    FROM redirect_decisions
    GROUP BY command_id
) AS d ON d.command_id = r.reroute_command_id
WHERE r.reroute_command_id != ''
