/* Injected cheetahs: TCP flows with a known rate, sending one window of
 * back-to-back packets every RTT (the RTT-shaped bursts a flight measures),
 * some above R and some well below it, with their ground truth. */
#ifndef TRACEGEN_CHEETAH_INJECT_H
#define TRACEGEN_CHEETAH_INJECT_H

#include <stdint.h>

#include "flow_model.h"

struct injected_cheetah {
	struct packet_spec spec; /* addresses, ports, protocol */
	double rate_bps;         /* exact: window * packet bits / RTT */
	double rtt_ms;
	uint32_t window;         /* packets per RTT */
	int64_t start_ns, stop_ns; /* planned, relative to the trace start */
	uint64_t first_us, last_us; /* first and last packet as written (epoch µs) */
	uint64_t packets, bytes;
};

/* Plans n cheetahs over a trace of `seconds` and fills flows[i] (their
 * generator state) and out[i] (their truth). Rates are multiples of R. */
void cheetahs_plan(struct injected_cheetah *out, struct gen_flow *flows, uint32_t n, double seconds,
		   double rate_threshold_bps, struct rng *r);

#endif
