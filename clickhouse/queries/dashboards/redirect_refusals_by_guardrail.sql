-- One row per guardrail kind, zero-filled: a guardrail that refused nothing shows 0 instead of
-- disappearing. The time range and device filters apply inside (Jinja), so the zero rows stay.
SELECT guardrail, sum(refused) AS refusals
FROM
(
    SELECT arrayJoin(['protected prefix', 'K rules per device', 'rate limit']) AS guardrail, 0 AS refused
    UNION ALL
    SELECT
        multiIf(startsWith(refusal, 'protected prefix'), 'protected prefix',
                match(refusal, '^device .* has K = [0-9]+ active rules'), 'K rules per device',
                startsWith(refusal, 'rate limit'), 'rate limit',
                'other') AS guardrail,
        1 AS refused
    FROM redirect_decisions FINAL
    WHERE outcome = 'refused'
    {% if from_dttm %}AND issued_at >= parseDateTime64BestEffort('{{ from_dttm }}', 3, 'UTC'){% endif %}
    {% if to_dttm %}AND issued_at < parseDateTime64BestEffort('{{ to_dttm }}', 3, 'UTC'){% endif %}
    {% if filter_values('device_id', remove_filter=True) %}AND device_id IN {{ filter_values('device_id', remove_filter=True) | where_in }}{% endif %}
)
GROUP BY guardrail
