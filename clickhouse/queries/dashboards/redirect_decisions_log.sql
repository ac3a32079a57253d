-- One row per decision (redirects.decisions.v1). guardrail names the kind of refusal from the
-- text FlowIsolation writes: 'protected prefix <p>', 'device <d> has K = <k> active rules',
-- 'rate limit of <n> new rules per minute'.
SELECT
    command_id,
    outcome,
    refusal,
    multiIf(outcome != 'refused', '',
            startsWith(refusal, 'protected prefix'), 'protected prefix',
            match(refusal, '^device .* has K = [0-9]+ active rules'), 'K rules per device',
            startsWith(refusal, 'rate limit'), 'rate limit',
            'other') AS guardrail,
    issued_at,
    -- The minute, truncated here: a grain on issued_at itself would alias over the column.
    toStartOfMinute(issued_at) AS minute,
    device_id,
    link_id,
    action,
    reason,
    cheetah_flow_id,
    threshold_version
FROM redirect_decisions FINAL
