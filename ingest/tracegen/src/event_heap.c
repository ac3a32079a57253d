#include "event_heap.h"

#include <stdlib.h>

static void sift_down(struct event_heap *h, uint32_t i)
{
	struct heap_item x = h->items[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= h->size)
			break;
		if (c + 1 < h->size && h->items[c + 1].t < h->items[c].t)
			c++;
		if (h->items[c].t >= x.t)
			break;
		h->items[i] = h->items[c];
		i = c;
	}
	h->items[i] = x;
}

int heap_push(struct event_heap *h, int64_t t, uint32_t flow)
{
	if (h->size == h->cap) {
		uint32_t cap = h->cap ? h->cap * 2 : 1024;
		struct heap_item *n = realloc(h->items, cap * sizeof *n);
		if (!n)
			return -1;
		h->items = n;
		h->cap = cap;
	}
	uint32_t i = h->size++;
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (h->items[p].t <= t)
			break;
		h->items[i] = h->items[p];
		i = p;
	}
	h->items[i] = (struct heap_item){t, flow};
	return 0;
}

void heap_retime_top(struct event_heap *h, int64_t t)
{
	h->items[0].t = t;
	sift_down(h, 0);
}

void heap_pop(struct event_heap *h)
{
	h->items[0] = h->items[--h->size];
	if (h->size)
		sift_down(h, 0);
}

void heap_free(struct event_heap *h)
{
	free(h->items);
	h->items = NULL;
	h->size = h->cap = 0;
}
