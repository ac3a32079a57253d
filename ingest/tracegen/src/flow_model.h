/* The traffic model: kinds of flows seen on a backbone minute (bulk TCP, ACK
 * streams, short real-time UDP, DNS-like exchanges, ICMP, fragmented UDP) and
 * the injected cheetahs, each advancing one packet at a time. */
#ifndef TRACEGEN_FLOW_MODEL_H
#define TRACEGEN_FLOW_MODEL_H

#include <stdint.h>

#include "packet_build.h"
#include "rng.h"

enum flow_kind { K_TCP_DATA, K_TCP_ACKS, K_REALTIME, K_UDP_SHORT, K_ICMP, K_UDP_FRAG, K_CHEETAH };

struct gen_flow {
	int64_t next_ns; /* time of the next packet, relative to the trace start */
	struct packet_spec spec;
	uint32_t remaining;   /* packets still to send */
	uint32_t pkt_len;     /* IP length of a full packet */
	uint32_t window;      /* packets per RTT burst */
	uint32_t max_window;
	uint32_t burst_left;  /* packets left in the current burst */
	uint32_t burst_index; /* bursts started so far (cheetahs: for their fixed schedule) */
	uint32_t sent;        /* packets sent so far */
	int64_t rtt_ns;
	int64_t burst_start_ns;
	int64_t stop_ns;      /* cheetahs: no packet at or after this */
	int32_t cheetah;      /* index into the injected list, or -1 */
	uint8_t kind;
};

struct model_params {
	double link_bps;      /* line rate: spacing of back-to-back packets */
	double rate_threshold_bps; /* R: background flows stay below R/4 */
};

/* Fills f as a new background flow starting at t_ns. */
void model_new_background(struct gen_flow *f, struct rng *r, const struct model_params *m, int64_t t_ns);

/* Sets f->spec to the packet due at f->next_ns, then advances f to its next
 * packet. Returns 0 when that was the flow's last packet. */
int model_emit(struct gen_flow *f, struct rng *r, const struct model_params *m);

#endif
