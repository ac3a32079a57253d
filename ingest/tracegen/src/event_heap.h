/* A binary min-heap of (time, flow) pairs: which flow sends the next packet. */
#ifndef TRACEGEN_EVENT_HEAP_H
#define TRACEGEN_EVENT_HEAP_H

#include <stdint.h>

struct heap_item {
	int64_t t;
	uint32_t flow;
};

struct event_heap {
	struct heap_item *items;
	uint32_t size, cap;
};

/* Returns -1 when memory runs out. */
int heap_push(struct event_heap *h, int64_t t, uint32_t flow);
/* The earliest item; size must be > 0. */
static inline struct heap_item heap_top(const struct event_heap *h) { return h->items[0]; }
/* Moves the top item to time t (one sift instead of pop + push). */
void heap_retime_top(struct event_heap *h, int64_t t);
void heap_pop(struct event_heap *h);
void heap_free(struct event_heap *h);

#endif
