-- Per probe snapshot: losses and packets that were not flow packets since the previous one.
SELECT
    probe_id,
    link_id,
    at,
    packets,
    port_drops,
    distributor_drops,
    export_drops,
    kafka_undeliverable,
    not_flow_packets
FROM probe_counter_increments
