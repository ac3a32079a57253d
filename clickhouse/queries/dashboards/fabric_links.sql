-- Each switch-to-switch link of each fabric, each round of the fabric job (fabric_links, docs/FABRIC.md,
-- "The job"): the utilisation the EFM rule used (after the lag correction), in % of the link's capacity,
-- with the threshold, the elephants and the biggest flow sampled on it. Host cables (no other path,
-- never congested by the rule) are in fabric_links but not here.
SELECT
    round_at,
    fabric,
    link_id,
    100 * utilisation AS utilisation_pct,
    100 * if(capacity_bps > 0, threshold_bps / capacity_bps, 0) AS threshold_pct,
    utilisation_bps,
    counter_bps,
    capacity_bps,
    measured,
    over_threshold,
    flows,
    elephants,
    if(flows = 0, '',
       concat(replaceOne(toString(top_src), '::ffff:', ''), ':', toString(top_src_port), ' → ',
              replaceOne(toString(top_dst), '::ffff:', ''), ':', toString(top_dst_port), '/', toString(top_proto))) AS top_flow,
    top_bps
FROM fabric_links
WHERE between_switches
