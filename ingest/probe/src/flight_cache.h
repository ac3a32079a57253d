/* One worker's flow cache: a fixed array of entries allocated once, a chained
 * hash index for O(1) lookup, and an intrusive LRU list (indices, not
 * pointers) whose tail is evicted when the cache is full. No locks and no
 * allocation after flight_cache_init: one worker owns it. */
#ifndef PROBE_FLIGHT_CACHE_H
#define PROBE_FLIGHT_CACHE_H

#include <stdint.h>

#include "flow_key.h"

#define CACHE_NIL UINT32_MAX

struct flight_entry {
	struct flow_key key;
	uint64_t hash;
	uint32_t bucket_next, lru_prev, lru_next;
	uint8_t cheetah;
	uint8_t in_use;
	uint16_t seq;          /* events sent for this cheetah */
	uint64_t created_ns;   /* first packet of the entry */
	uint64_t last_ns;      /* latest packet */
	uint64_t flight_start_ns;
	uint64_t flight_bytes;
	uint32_t flight_packets;
	uint32_t pad;
	uint64_t bytes, packets; /* since the entry was created */
	uint64_t detected_ns;    /* cheetah: end of the flight that made it one */
	uint64_t peak_flight_bytes, peak_flight_start_ns;
	double rate_bps;         /* rate of the latest completed flight */
	double threshold_bps;    /* R when it became a cheetah */
	uint64_t threshold_version;
};

struct flight_cache {
	struct flight_entry *entries;
	uint32_t *buckets;
	uint32_t capacity, bucket_mask, used;
	uint32_t lru_head, lru_tail; /* head: most recently used */
	uint32_t free_head;          /* free entries chained through lru_next */
};

/* Allocates everything the cache will ever use. Returns 0, or -1 if out of memory. */
int flight_cache_init(struct flight_cache *c, uint32_t capacity);
void flight_cache_free(struct flight_cache *c);

struct flight_entry *flight_cache_find(struct flight_cache *c, const struct flow_key *k, uint64_t hash);

/* Marks e most recently used. */
void flight_cache_touch(struct flight_cache *c, struct flight_entry *e);

/* The least recently used entry, or NULL when empty. */
static inline struct flight_entry *flight_cache_oldest(struct flight_cache *c)
{
	return c->lru_tail == CACHE_NIL ? 0 : &c->entries[c->lru_tail];
}

static inline int flight_cache_full(const struct flight_cache *c) { return c->used == c->capacity; }

/* Adds a zeroed entry for k as most recently used. The cache must not be full
 * (evict flight_cache_oldest first). */
struct flight_entry *flight_cache_insert(struct flight_cache *c, const struct flow_key *k, uint64_t hash);

void flight_cache_remove(struct flight_cache *c, struct flight_entry *e);

#endif
