#include "flight_cache.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Zeroed memory for the cache arrays, asking for transparent huge pages: a
 * large cache is read at random, and 4 KB pages would add a TLB miss to
 * nearly every lookup (no hugetlbfs needed; THP is in madvise mode here). */
static void *table_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, size, MADV_HUGEPAGE);
	return p;
}

int flight_cache_init(struct flight_cache *c, uint32_t capacity)
{
	memset(c, 0, sizeof *c);
	if (capacity == 0 || capacity > (1u << 30))
		return -1;
	uint32_t buckets = 1;
	while (buckets < capacity * 2u) /* load factor <= 1/2: short chains */
		buckets <<= 1;
	c->capacity = capacity;
	c->bucket_mask = buckets - 1; /* set first: flight_cache_free needs the sizes */
	c->entries = table_alloc((size_t)capacity * sizeof *c->entries);
	c->buckets = table_alloc((size_t)buckets * sizeof *c->buckets);
	if (!c->entries || !c->buckets) {
		flight_cache_free(c);
		return -1;
	}
	memset(c->buckets, 0xff, buckets * sizeof *c->buckets);
	c->lru_head = c->lru_tail = CACHE_NIL;
	for (uint32_t i = 0; i < capacity; i++)
		c->entries[i].lru_next = i + 1 < capacity ? i + 1 : CACHE_NIL;
	c->free_head = 0;
	return 0;
}

void flight_cache_free(struct flight_cache *c)
{
	if (c->entries)
		munmap(c->entries, (size_t)c->capacity * sizeof *c->entries);
	if (c->buckets)
		munmap(c->buckets, ((size_t)c->bucket_mask + 1) * sizeof *c->buckets);
	memset(c, 0, sizeof *c);
}

struct flight_entry *flight_cache_find(struct flight_cache *c, const struct flow_key *k, uint64_t hash)
{
	for (uint32_t i = c->buckets[hash & c->bucket_mask]; i != CACHE_NIL; i = c->entries[i].bucket_next) {
		struct flight_entry *e = &c->entries[i];
		if (e->hash == hash && flow_key_equal(&e->key, k))
			return e;
	}
	return 0;
}

static void lru_unlink(struct flight_cache *c, struct flight_entry *e)
{
	if (e->lru_prev != CACHE_NIL)
		c->entries[e->lru_prev].lru_next = e->lru_next;
	else
		c->lru_head = e->lru_next;
	if (e->lru_next != CACHE_NIL)
		c->entries[e->lru_next].lru_prev = e->lru_prev;
	else
		c->lru_tail = e->lru_prev;
}

static void lru_push_head(struct flight_cache *c, struct flight_entry *e, uint32_t idx)
{
	e->lru_prev = CACHE_NIL;
	e->lru_next = c->lru_head;
	if (c->lru_head != CACHE_NIL)
		c->entries[c->lru_head].lru_prev = idx;
	else
		c->lru_tail = idx;
	c->lru_head = idx;
}

void flight_cache_touch(struct flight_cache *c, struct flight_entry *e)
{
	uint32_t idx = (uint32_t)(e - c->entries);
	if (c->lru_head == idx)
		return;
	lru_unlink(c, e);
	lru_push_head(c, e, idx);
}

struct flight_entry *flight_cache_insert(struct flight_cache *c, const struct flow_key *k, uint64_t hash)
{
	uint32_t idx = c->free_head;
	if (idx == CACHE_NIL)
		return 0;
	struct flight_entry *e = &c->entries[idx];
	c->free_head = e->lru_next;
	memset(e, 0, sizeof *e);
	e->key = *k;
	e->hash = hash;
	e->in_use = 1;
	uint32_t *bucket = &c->buckets[hash & c->bucket_mask];
	e->bucket_next = *bucket;
	*bucket = idx;
	lru_push_head(c, e, idx);
	c->used++;
	return e;
}

void flight_cache_remove(struct flight_cache *c, struct flight_entry *e)
{
	uint32_t idx = (uint32_t)(e - c->entries);
	uint32_t *link = &c->buckets[e->hash & c->bucket_mask];
	while (*link != idx)
		link = &c->entries[*link].bucket_next;
	*link = e->bucket_next;
	lru_unlink(c, e);
	e->in_use = 0;
	e->lru_next = c->free_head;
	c->free_head = idx;
	c->used--;
}
