/* The flight-rate cheetah rule (docs/ARCHITECTURE.md, "Flight-rate cheetah") over
 * one worker's flight cache. Pure logic: no DPDK, no Kafka; events go to a sink. */
#ifndef PROBE_FLIGHT_DETECTOR_H
#define PROBE_FLIGHT_DETECTOR_H

#include <stdint.h>

#include "flight_cache.h"
#include "link_threshold.h"
#include "packet_parse.h"
#include "probe_event.h"

struct detector_config {
	uint64_t flight_ns;      /* T */
	uint64_t idle_ns;        /* a cheetah idle this long ends; idle entries are dropped */
	uint32_t min_length;     /* L: packets shorter than this create no entry */
	double sampling;         /* S: probability a packet may create an entry */
	uint8_t sample_every_packet; /* enum sampling_mode: comparison modes apply S to every
				      * packet (classic packet sampling), bytes scaled by 1/S or not */
	double flight_floor_bps; /* flights at or above this rate are exported */
	uint8_t drop_proto[256]; /* protocols that create no entry (default ICMP, ICMPv6) */
	uint32_t cache_size;
	uint16_t worker;
	uint64_t seed;           /* sampling draws */
};

enum sampling_mode {
	SAMPLE_ENTRY_CREATION = 0, /* the definition's S: it only decides who gets an entry */
	SAMPLE_PACKETS_SCALED,     /* every packet sampled, bytes scaled by 1/S */
	SAMPLE_PACKETS_UNSCALED,   /* every packet sampled, only sampled bytes count */
};

struct detector_counters {
	uint64_t packets, bytes;
	uint64_t cache_hits, cache_misses, entries_created;
	uint64_t filtered_protocol, filtered_length, sampled_out;
	uint64_t evictions, evicted_cheetahs, idle_expired;
	uint64_t flights_ended, flights_exported;
	uint64_t cheetahs_started, cheetahs_ended;
	uint64_t export_failed; /* the sink refused an event */
};

struct flight_detector {
	struct detector_config cfg;
	struct flight_cache cache;
	struct link_threshold *threshold;
	struct event_sink sink;
	struct detector_counters n;
	uint64_t rng;
};

/* Returns 0, or -1 if the cache cannot be allocated. */
int detector_init(struct flight_detector *d, const struct detector_config *cfg, struct link_threshold *thr,
		  struct event_sink sink);
void detector_free(struct flight_detector *d);

/* One parsed packet at ts_ns. Returns 1 if it belongs to a cheetah. */
int detector_packet(struct flight_detector *d, const struct packet_meta *m, uint64_t ts_ns);

/* The same with the key's hash already computed (see detector_prefetch). */
int detector_packet_hashed(struct flight_detector *d, const struct packet_meta *m, uint64_t hash, uint64_t ts_ns);

/* Batching helpers: start loading the hash bucket, then the first entry of
 * its chain, a few packets ahead of detector_packet_hashed, so the cache
 * misses of a large flow cache overlap instead of queueing. */
static inline void detector_prefetch_bucket(const struct flight_detector *d, uint64_t hash)
{
	__builtin_prefetch(&d->cache.buckets[hash & d->cache.bucket_mask]);
}

static inline void detector_prefetch_entry(const struct flight_detector *d, uint64_t hash)
{
	uint32_t i = d->cache.buckets[hash & d->cache.bucket_mask];
	if (i != CACHE_NIL)
		__builtin_prefetch(&d->cache.entries[i]);
}

/* Drops entries idle for longer than idle_ns at now_ns, ending cheetahs. */
void detector_expire_idle(struct flight_detector *d, uint64_t now_ns);

/* End of input: ends every cheetah still in the cache. */
void detector_finish(struct flight_detector *d, uint64_t now_ns);

void detector_default_config(struct detector_config *cfg);

#endif
