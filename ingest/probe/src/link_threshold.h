/* The rate threshold R of one link and its version, written by the export
 * thread (from thresholds.v1 or the command line) and read by workers on every
 * flight end. A sequence lock: readers never block and never see a rate from
 * one version with the number of another. */
#ifndef PROBE_LINK_THRESHOLD_H
#define PROBE_LINK_THRESHOLD_H

#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

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

/* What became of one thresholds.v1 record offered to a link. */
enum threshold_verdict {
	THRESHOLD_APPLIED,    /* this link's, a newer (or the same) version: R in force now */
	THRESHOLD_OTHER_LINK, /* another link's record (the topic holds every link) */
	THRESHOLD_NO_RATE,    /* this link's, but R is not a positive finite number */
	THRESHOLD_OLDER,      /* this link's, but a lower version than the one in force */
};

/* Offers one thresholds.v1 record (link id, R, version) to the link
 * `link_id`; only the single writer of t calls it. The highest version wins:
 * versions can arrive out of order (two publishers, an old record
 * republished), and a late older one must never take R back. An equal
 * version is the same record read again (compaction, a restart reading the
 * topic from the start) and is applied. The version set from the command
 * line is 0, so any version from the topic replaces it. */
static inline enum threshold_verdict link_threshold_offer(struct link_threshold *t, const char *link_id,
							  const char *record_link, double rate_bps, uint64_t version)
{
	if (!record_link || strcmp(record_link, link_id) != 0)
		return THRESHOLD_OTHER_LINK;
	if (!(rate_bps > 0) || !isfinite(rate_bps))
		return THRESHOLD_NO_RATE;
	if (version < atomic_load_explicit(&t->version, memory_order_relaxed))
		return THRESHOLD_OLDER;
	link_threshold_set(t, rate_bps, version);
	return THRESHOLD_APPLIED;
}

#endif
