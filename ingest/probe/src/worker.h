/* A worker lcore: takes packets (from its RSS queue, its distributor ring or
 * its in-memory share), parses them, runs the flight rule on its own cache,
 * counts the link bins and samples packets; events leave through a ring. */
#ifndef PROBE_WORKER_H
#define PROBE_WORKER_H

#include <stdatomic.h>
#include <stdint.h>

#include "flight_detector.h"
#include "link_bins.h"
#include "memory_replay.h"
#include "packet_parse.h"
#include "probe_counters.h"

struct rte_ring;

/* What the distributor leaves in each mbuf's private area. */
struct parsed_packet {
	struct packet_meta meta;
	uint8_t status; /* enum parse_status */
};

enum worker_source { SRC_QUEUE, SRC_RING, SRC_MEMORY };

struct worker {
	uint16_t id;
	enum worker_source source;
	uint16_t port_id, queue_id;
	int timestamps, ts_offset;
	uint64_t ts_flag;
	struct rte_ring *in;     /* SRC_RING: mbufs from the distributor */
	struct rte_ring *events; /* to the export thread */
	const struct memory_share *memory;
	uint32_t repeat;         /* SRC_MEMORY: passes over the share (benchmarks) */
	int blocking_export;     /* offline: wait for room rather than drop */
	uint32_t packet_sample;
	uint64_t packets_since_sample;

	struct flight_detector det;
	struct link_bins bins;
	struct worker_counters n;
	struct counter_snapshot published; /* n and det.n as of the last publish, for live readers */
	uint64_t published_ns;             /* monotonic time of that publish */

	uint64_t expect_packets; /* SRC_QUEUE offline: the pcap's record count (0: live) */
	uint64_t received;
	_Atomic int *input_done; /* set by whoever knows the input has ended */
	_Atomic int finished;    /* this worker has flushed everything */
};

/* lcore entry point; arg is a struct worker. */
int worker_main(void *arg);

/* What a polling loop does after idle_polls empty polls in a row. */
void idle_backoff(uint32_t idle_polls);

/* The event sink used by a worker's detector and bins. */
int worker_emit(void *ctx, const struct probe_event *ev);

#endif
