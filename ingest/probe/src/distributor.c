#include "distributor.h"

#include <stdio.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "worker.h"

#define BURST 64
#define MAX_WORKERS 64

static void hand_over(struct distributor *d, struct rte_ring *ring, struct rte_mbuf **pkts, unsigned n)
{
	unsigned done = rte_ring_sp_enqueue_burst(ring, (void **)pkts, n, NULL);
	while (done < n && d->blocking) {
		rte_pause();
		done += rte_ring_sp_enqueue_burst(ring, (void **)(pkts + done), n - done, NULL);
	}
	if (done < n) {
		/* Read live by the export thread (probe.counters.v1): an atomic store, this thread alone writes. */
		__atomic_store_n(&d->dropped, d->dropped + (n - done), __ATOMIC_RELAXED);
		rte_pktmbuf_free_bulk(pkts + done, n - done);
	}
}

int distributor_main(void *arg)
{
	struct distributor *d = arg;
	struct rte_mbuf *pkts[BURST];
	struct rte_mbuf *per[MAX_WORKERS][BURST];
	unsigned count[MAX_WORKERS];
	uint32_t idle = 0;
	uint64_t quiet_since = 0;
	while (!atomic_load(d->stop)) {
		uint16_t n = rte_eth_rx_burst(d->port_id, 0, pkts, BURST);
		if (n == 0) {
			if (idle == 0)
				quiet_since = rte_get_timer_cycles();
			else if (d->expect_packets && rte_get_timer_cycles() - quiet_since > 5 * rte_get_timer_hz()) {
				fprintf(stderr, "cheetah-probe: the pcap port delivered %llu of %llu records and then "
						"nothing for 5 s: the file may be damaged after that point; finishing\n",
					(unsigned long long)d->received, (unsigned long long)d->expect_packets);
				break;
			}
			idle_backoff(++idle);
			continue;
		}
		idle = 0;
		memset(count, 0, d->workers * sizeof count[0]);
		for (uint16_t i = 0; i < n; i++) {
			struct parsed_packet *pp = rte_mbuf_to_priv(pkts[i]);
			pp->status = (uint8_t)packet_parse(rte_pktmbuf_mtod(pkts[i], const uint8_t *),
							   rte_pktmbuf_data_len(pkts[i]), rte_pktmbuf_pkt_len(pkts[i]),
							   &pp->meta);
			uint32_t w = pp->status == PARSE_OK ? (uint32_t)(flow_key_symmetric_hash(&pp->meta.key) % d->workers) : 0;
			per[w][count[w]++] = pkts[i];
		}
		for (uint32_t w = 0; w < d->workers; w++)
			if (count[w])
				hand_over(d, d->rings[w], per[w], count[w]);
		d->received += n;
		if (d->expect_packets && d->received >= d->expect_packets)
			break;
	}
	atomic_store(d->input_done, 1);
	return 0;
}
