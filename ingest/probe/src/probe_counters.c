#include "probe_counters.h"

#include <string.h>

_Static_assert(sizeof(struct detector_counters) % sizeof(uint64_t) == 0, "detector_counters: uint64_t words only");
_Static_assert(sizeof(struct worker_counters) % sizeof(uint64_t) == 0, "worker_counters: uint64_t words only");

#define WORDS(x) (sizeof(x) / sizeof(uint64_t))

static void store_words(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		__atomic_store_n(&dst[i], src[i], __ATOMIC_RELAXED);
}

static void load_words(uint64_t *dst, const uint64_t *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

void counter_snapshot_publish(struct counter_snapshot *s, const struct detector_counters *d,
			      const struct worker_counters *w)
{
	uint32_t seq = atomic_load_explicit(&s->seq, memory_order_relaxed);
	atomic_store_explicit(&s->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release); /* the odd number is seen before any new word */
	store_words((uint64_t *)&s->d, (const uint64_t *)d, WORDS(*d));
	store_words((uint64_t *)&s->w, (const uint64_t *)w, WORDS(*w));
	atomic_store_explicit(&s->seq, seq + 2, memory_order_release);
}

void counter_snapshot_read(struct counter_snapshot *s, struct detector_counters *d, struct worker_counters *w)
{
	for (;;) {
		uint32_t before = atomic_load_explicit(&s->seq, memory_order_acquire);
		if (before & 1)
			continue; /* a copy is being written: it takes nanoseconds */
		load_words((uint64_t *)d, (const uint64_t *)&s->d, WORDS(*d));
		load_words((uint64_t *)w, (const uint64_t *)&s->w, WORDS(*w));
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&s->seq, memory_order_relaxed) == before)
			return;
	}
}

void probe_totals_clear(struct probe_totals *t) { memset(t, 0, sizeof *t); }

void probe_totals_add(struct probe_totals *t, const struct detector_counters *d, const struct worker_counters *w)
{
	uint64_t *td = (uint64_t *)&t->d;
	const uint64_t *sd = (const uint64_t *)d;
	for (size_t k = 0; k < WORDS(*d); k++)
		td[k] += sd[k];
	for (int r = 0; r < PARSE_STATUS_COUNT; r++) {
		t->w.parse[r] += w->parse[r];
		t->packets += w->parse[r];
	}
	t->w.packets_sampled += w->packets_sampled;
	t->w.events_dropped += w->events_dropped;
	if (w->busy_ns > t->w.busy_ns)
		t->w.busy_ns = w->busy_ns;
}
