/* EAL start-up and the one capture port: net_pcap, net_af_packet or any
 * devargs; RSS queues where the port has them, one queue otherwise. */
#ifndef PROBE_PORT_H
#define PROBE_PORT_H

#include <stdint.h>

#include "args.h"

struct rte_mempool;

struct capture_port {
	uint16_t port_id;
	uint16_t rx_queues;        /* == workers (RSS), or 1 (a distributor spreads flows) */
	int timestamps;            /* the PMD stamps packets with pcap times (net_pcap, in µs) */
	int ts_offset;             /* mbuf dynfield offset of the timestamp */
	uint64_t ts_flag;
	struct rte_mempool *pool;
	uint32_t lcores;           /* EAL lcores started */
};

/* Starts the EAL with --no-huge -m 256 --no-shconf and an lcore per stage
 * (main, distributor if needed, workers), spread over the CPUs we may use.
 * Returns 0 or -1 with a message. */
int probe_eal_init(const struct probe_options *o, const char *prog, uint32_t lcores_needed);

/* Configures and starts the port of o. priv_size bytes per mbuf are left for
 * the parse result. Returns 0 or -1 with a message. */
int capture_port_open(const struct probe_options *o, struct capture_port *p, uint16_t priv_size);

void capture_port_close(struct capture_port *p);

/* Number of packet records in a classic pcap file, or -1 with a message. */
int64_t pcap_count_records(const char *path);

#endif
