/* The rate threshold R of one link and its version, written by the export
 * thread (from thresholds.v1 or the command line) and read by workers on every
 * flight end. A sequence lock: readers never block and never see a rate from
 * one version with the number of another. */
#ifndef PROBE_LINK_THRESHOLD_H
#define PROBE_LINK_THRESHOLD_H

#include <stdatomic.h>
#include <stdint.h>

struct link_threshold {
	_Atomic uint64_t seq; /* odd while a write is in progress */
	_Atomic uint64_t version;
	_Atomic double rate_bps;
};

struct threshold_value {
	double rate_bps;
	uint64_t version;
};

static inline void link_threshold_set(struct link_threshold *t, double rate_bps, uint64_t version)
{
	uint64_t s = atomic_load_explicit(&t->seq, memory_order_relaxed);
	atomic_store_explicit(&t->seq, s + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&t->rate_bps, rate_bps, memory_order_relaxed);
	atomic_store_explicit(&t->version, version, memory_order_relaxed);
	atomic_store_explicit(&t->seq, s + 2, memory_order_release);
}

static inline struct threshold_value link_threshold_get(struct link_threshold *t)
{
	struct threshold_value v;
	uint64_t s0, s1;
	do {
		s0 = atomic_load_explicit(&t->seq, memory_order_acquire);
		v.rate_bps = atomic_load_explicit(&t->rate_bps, memory_order_relaxed);
		v.version = atomic_load_explicit(&t->version, memory_order_relaxed);
		atomic_thread_fence(memory_order_acquire);
		s1 = atomic_load_explicit(&t->seq, memory_order_relaxed);
	} while (s0 != s1 || (s0 & 1));
	return v;
}

#endif
