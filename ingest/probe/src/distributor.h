/* For ports with one receive queue: one lcore reads it, parses each packet
 * once (the result rides in the mbuf's private area) and hands it to the
 * worker its symmetric flow hash picks, through a ring per worker. */
#ifndef PROBE_DISTRIBUTOR_H
#define PROBE_DISTRIBUTOR_H

#include <stdatomic.h>
#include <stdint.h>

struct rte_ring;

struct distributor {
	uint16_t port_id;
	uint32_t workers;
	struct rte_ring **rings;
	int blocking;            /* offline: wait for room; live: drop and count */
	uint64_t expect_packets; /* offline: the pcap's record count */
	uint64_t received, dropped;
	_Atomic int *input_done;
	_Atomic int *stop;       /* live: stop reading */
};

int distributor_main(void *arg);

#endif
