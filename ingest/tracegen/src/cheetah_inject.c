#include "cheetah_inject.h"

#include <string.h>

#define CHEETAH_PACKET 1500u
#define NS_PER_S 1000000000.0

/* One in four each: well above R, far above R, below R/2, between R/2 and R. */
static double rate_multiple(struct rng *r, uint32_t i)
{
	switch (i % 4) {
	case 0: return rng_uniform(r, 1.25, 2.0);
	case 1: return rng_uniform(r, 2.0, 5.0);
	case 2: return rng_uniform(r, 0.05, 0.45);
	default: return rng_uniform(r, 0.55, 0.9);
	}
}

static void cheetah_addresses(struct packet_spec *s, uint32_t i)
{
	memset(s->src, 0, 16);
	memset(s->dst, 0, 16);
	if (i % 5 == 4) {
		s->family = 6;
		const uint8_t p[6] = {0x20, 0x01, 0x0d, 0xb8, 0xff, 0xff}; /* 2001:db8:ffff::/48 */
		memcpy(s->src, p, 6);
		memcpy(s->dst, p, 6);
		s->src[6] = 1, s->dst[6] = 2;
		s->src[14] = s->dst[14] = (uint8_t)(i >> 8);
		s->src[15] = s->dst[15] = (uint8_t)i;
	} else {
		s->family = 4;
		s->src[10] = s->src[11] = s->dst[10] = s->dst[11] = 0xff;
		s->src[12] = s->dst[12] = 198;
		s->src[13] = 18, s->dst[13] = 19;
		s->src[14] = s->dst[14] = 255; /* 198.18.255.x -> 198.19.255.x: never background */
		s->src[15] = s->dst[15] = (uint8_t)(1 + i % 250);
	}
	s->proto = 6;
	s->sport = (uint16_t)(40000 + i);
	s->dport = 5001;
}

void cheetahs_plan(struct injected_cheetah *out, struct gen_flow *flows, uint32_t n, double seconds,
		   double rate_threshold_bps, struct rng *r)
{
	for (uint32_t i = 0; i < n; i++) {
		struct injected_cheetah *c = &out[i];
		struct gen_flow *f = &flows[i];
		memset(c, 0, sizeof *c);
		memset(f, 0, sizeof *f);
		cheetah_addresses(&c->spec, i);
		double target = rate_multiple(r, i) * rate_threshold_bps;
		double rtt = rng_uniform(r, 0.010, 0.150);
		uint32_t window = (uint32_t)(target * rtt / 8 / CHEETAH_PACKET + 0.5);
		if (window < 1)
			window = 1;
		/* Round the RTT so that the rate is exactly window * size / RTT. */
		int64_t rtt_ns = (int64_t)(window * CHEETAH_PACKET * 8.0 * NS_PER_S / target);
		double duration = rng_uniform(r, 0.4, 2.0);
		if (duration > seconds * 0.4)
			duration = seconds * 0.4;
		double start = rng_uniform(r, 0.05, 0.55) * seconds;

		c->window = window;
		c->rtt_ms = (double)rtt_ns / 1e6;
		c->rate_bps = window * CHEETAH_PACKET * 8.0 * NS_PER_S / (double)rtt_ns;
		c->start_ns = (int64_t)(start * NS_PER_S);
		c->stop_ns = c->start_ns + (int64_t)(duration * NS_PER_S);

		f->spec = c->spec;
		f->spec.seq = (uint32_t)rng_next(r);
		f->kind = K_CHEETAH;
		f->cheetah = (int32_t)i;
		f->pkt_len = CHEETAH_PACKET;
		f->window = f->max_window = f->burst_left = window;
		f->rtt_ns = rtt_ns;
		f->next_ns = f->burst_start_ns = c->start_ns;
		f->stop_ns = c->stop_ns;
		f->remaining = UINT32_MAX;
	}
}
