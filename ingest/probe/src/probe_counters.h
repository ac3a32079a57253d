/* The probe's counters, summed over workers, for summary.json and for the
 * live probe.counters.v1 snapshots. Workers own their counters and update them
 * with plain increments on the packet path; the export thread never reads
 * those. Instead each worker publishes a copy now and then through a seqlock
 * (counter_snapshot), and readers take a consistent copy of that. */
#ifndef PROBE_COUNTERS_H
#define PROBE_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

#include "flight_detector.h"
#include "packet_parse.h"

struct worker_counters {
	uint64_t parse[PARSE_STATUS_COUNT];
	uint64_t packets_sampled; /* sent to probe.packets.v1 */
	uint64_t events_dropped;  /* event ring full (live input only) */
	uint64_t busy_ns;         /* time spent from the first packet to the last (memory: the fastest pass) */
};

/* One worker's published copy. Every field is a uint64_t, copied word by word
 * with atomic loads and stores, so a reader never races a writer; the
 * sequence number (odd while a copy is being written) tells it whether the
 * words it read belong together. */
struct counter_snapshot {
	_Atomic uint32_t seq;
	struct detector_counters d;
	struct worker_counters w;
};

/* Writer side (the worker that owns the counters). */
void counter_snapshot_publish(struct counter_snapshot *s, const struct detector_counters *d,
			      const struct worker_counters *w);
/* Reader side (any thread): a consistent copy of the last published one. */
void counter_snapshot_read(struct counter_snapshot *s, struct detector_counters *d, struct worker_counters *w);

struct probe_totals {
	struct detector_counters d;
	struct worker_counters w; /* busy_ns: the largest of the workers' */
	uint64_t packets;         /* every packet received: the sum over parse results */
};

void probe_totals_clear(struct probe_totals *t);
void probe_totals_add(struct probe_totals *t, const struct detector_counters *d, const struct worker_counters *w);

#endif
