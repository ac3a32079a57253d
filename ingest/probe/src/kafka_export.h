/* Kafka side of the probe (librdkafka): cheetahs.v1, probe.flights.v1,
 * probe.bins.v1 and probe.packets.v1 as protobuf (schemas/cheetah/v1), in
 * compressed batches through a bounded queue (cheetah events through a
 * producer of their own, sent at once); R per link from thresholds.v1.
 * When Kafka is away the queue fills, the overflow is counted as
 * undeliverable, and librdkafka keeps reconnecting. */
#ifndef PROBE_KAFKA_EXPORT_H
#define PROBE_KAFKA_EXPORT_H

#include <stdint.h>

#include "args.h"
#include "bin_merger.h"
#include "link_threshold.h"
#include "probe_counters.h"
#include "probe_event.h"

struct kafka_counters {
	uint64_t produced;      /* accepted into the producer queue */
	uint64_t delivered;     /* acknowledged by the broker */
	uint64_t failed;        /* delivery failed (e.g. timed out while Kafka was away) */
	uint64_t queue_full;    /* refused: the bounded queue was full */
	uint64_t thresholds_applied;
	uint64_t thresholds_ignored; /* another link's, or not a Threshold message */
	uint64_t thresholds_refused;   /* this link's but older than the version in force, or no valid R */
	int64_t threshold_version;   /* the last version applied from thresholds.v1; -1: none */
};

struct kafka_export;

/* Returns NULL after printing why. */
struct kafka_export *kafka_export_open(const struct probe_options *o, struct link_threshold *thr);
void kafka_export_event(struct kafka_export *k, const struct probe_event *ev);
void kafka_export_bin(struct kafka_export *k, const struct merged_bin *b);
/* One probe.counters.v1 snapshot: the totals over workers plus what only the
 * main thread knows. The kafka_* fields are this producer's counts right now. */
struct live_counters {
	uint64_t started_ms, at_ms;
	int at_exit;
	const struct probe_totals *t;
	uint64_t bytes; /* IP bytes of every packet (the link bins) */
	uint64_t distributor_drops, port_missed, port_nombuf;
};
void kafka_export_probe_counters(struct kafka_export *k, const struct live_counters *c);
/* Reads thresholds.v1 up to its current end (at most timeout_ms), so that a
 * run starts with the R in force. Returns 1 when caught up, 0 on timeout. */
int kafka_export_sync_thresholds(struct kafka_export *k, int timeout_ms);
/* Serves delivery reports and reads thresholds.v1; never blocks. */
void kafka_export_poll(struct kafka_export *k);
/* Waits up to timeout_ms for the queue to drain, then closes. */
void kafka_export_close(struct kafka_export *k, int timeout_ms, struct kafka_counters *out);
const struct kafka_counters *kafka_export_counters(const struct kafka_export *k);

#endif
