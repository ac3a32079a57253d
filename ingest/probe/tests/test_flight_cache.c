/* The cache: lookup, LRU order, eviction order, removal from chains. */
#include <stdlib.h>

#include "../src/flight_cache.h"
#include "check.h"

static struct flow_key key_n(uint32_t n)
{
	struct flow_key k;
	memset(&k, 0, sizeof k);
	k.src[10] = k.src[11] = 0xff;
	memcpy(k.src + 12, &n, 4);
	k.src_port = (uint16_t)n;
	k.dst_port = 80;
	k.proto = 6;
	return k;
}

static struct flight_entry *add(struct flight_cache *c, uint32_t n)
{
	struct flow_key k = key_n(n);
	return flight_cache_insert(c, &k, flow_key_hash(&k));
}

static struct flight_entry *find(struct flight_cache *c, uint32_t n)
{
	struct flow_key k = key_n(n);
	return flight_cache_find(c, &k, flow_key_hash(&k));
}

static void find_after_insert_and_remove(void)
{
	struct flight_cache c;
	CHECK(flight_cache_init(&c, 1000) == 0);
	for (uint32_t i = 0; i < 1000; i++)
		CHECK(add(&c, i) != NULL);
	CHECK(flight_cache_full(&c));
	for (uint32_t i = 0; i < 1000; i++) {
		struct flight_entry *e = find(&c, i);
		CHECK(e && e->key.src_port == (uint16_t)i);
	}
	CHECK(find(&c, 5000) == NULL);
	for (uint32_t i = 0; i < 1000; i += 2)
		flight_cache_remove(&c, find(&c, i));
	CHECK_EQ_U(c.used, 500);
	for (uint32_t i = 0; i < 1000; i++)
		CHECK((find(&c, i) != NULL) == (i % 2 == 1));
	flight_cache_free(&c);
}

static void lru_tail_is_least_recently_used(void)
{
	struct flight_cache c;
	CHECK(flight_cache_init(&c, 4) == 0);
	for (uint32_t i = 1; i <= 4; i++)
		add(&c, i);
	CHECK(flight_cache_oldest(&c) == find(&c, 1));
	flight_cache_touch(&c, find(&c, 1)); /* order now 2,3,4,1 */
	CHECK(flight_cache_oldest(&c) == find(&c, 2));
	flight_cache_remove(&c, find(&c, 2));
	CHECK(flight_cache_oldest(&c) == find(&c, 3));
	flight_cache_touch(&c, find(&c, 3));
	flight_cache_touch(&c, find(&c, 4));
	CHECK(flight_cache_oldest(&c) == find(&c, 1));
	flight_cache_free(&c);
}

static void full_cache_reuses_the_freed_slot(void)
{
	struct flight_cache c;
	CHECK(flight_cache_init(&c, 2) == 0);
	add(&c, 1);
	add(&c, 2);
	CHECK(flight_cache_full(&c));
	struct flow_key k = key_n(3);
	CHECK(flight_cache_insert(&c, &k, flow_key_hash(&k)) == NULL); /* caller must evict first */
	flight_cache_remove(&c, flight_cache_oldest(&c));
	CHECK(add(&c, 3) != NULL);
	CHECK(find(&c, 1) == NULL && find(&c, 2) && find(&c, 3));
	flight_cache_free(&c);
}

static void symmetric_hash_matches_both_directions(void)
{
	struct flow_key a = key_n(7), b;
	memcpy(a.dst, a.src, 16);
	a.dst[15] ^= 0x55;
	b = a;
	memcpy(b.src, a.dst, 16);
	memcpy(b.dst, a.src, 16);
	b.src_port = a.dst_port;
	b.dst_port = a.src_port;
	CHECK(flow_key_symmetric_hash(&a) == flow_key_symmetric_hash(&b));
	CHECK(flow_key_hash(&a) != flow_key_hash(&b));
	struct flow_key c = a;
	c.src_port++;
	CHECK(flow_key_symmetric_hash(&a) != flow_key_symmetric_hash(&c));
}

void run_cache_tests(void);
void run_cache_tests(void)
{
	RUN("cache", find_after_insert_and_remove);
	RUN("cache", lru_tail_is_least_recently_used);
	RUN("cache", full_cache_reuses_the_freed_slot);
	RUN("cache", symmetric_hash_matches_both_directions);
}
