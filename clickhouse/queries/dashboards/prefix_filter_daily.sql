-- Per day: the alpha bytes (NetFlow cheetah flows) and the part that filters built from the
-- 30 days before would have caught (docs/ARCHITECTURE.md, "Prefix filters"). No device: the
-- device filter does not apply.
SELECT day, alpha_flows, alpha_bytes, caught_flows, caught_bytes
FROM prefix_filter_effectiveness FINAL
