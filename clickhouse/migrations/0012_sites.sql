-- Sites: which address prefixes belong to which site (planners' per-site views and the
-- per-site flowset rollup). Loaded by `cheetah_warehouse sites load FILE` (the same JSON
-- sites file the report takes); an address belongs to the most specific matching prefix.
-- Prefixes are IPv6 CIDRs (an IPv4 /24 is stored as ::ffff:a.b.c.0/120).

CREATE TABLE IF NOT EXISTS site_prefixes
(
    prefix    String,                  -- IPv6 CIDR
    site      LowCardinality(String),
    loaded_at DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(loaded_at)
ORDER BY prefix
TTL toDateTime(loaded_at) + INTERVAL 10 YEAR;  -- reference data: reloading refreshes it

-- dictGet('{{database}}.sites', 'site', addr): the site of an address, '' when none.
CREATE DICTIONARY IF NOT EXISTS sites
(
    prefix String,
    site   String DEFAULT ''
)
PRIMARY KEY prefix
SOURCE(CLICKHOUSE(QUERY 'SELECT prefix, site FROM {{database}}.site_prefixes FINAL'))
LAYOUT(IP_TRIE)
LIFETIME(MIN 0 MAX 60);
