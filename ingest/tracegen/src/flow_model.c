#include "flow_model.h"

#include <math.h>
#include <string.h>

#define NS_PER_S 1000000000.0

static void random_v4(struct rng *r, uint8_t *a, uint8_t second_octet)
{
	memset(a, 0, 16);
	a[10] = a[11] = 0xff; /* IPv4-mapped, only the last four bytes go on the wire */
	a[12] = 198;
	a[13] = second_octet;
	a[14] = (uint8_t)rng_below(r, 255); /* .255.x is kept for injected cheetahs */
	a[15] = (uint8_t)(1 + rng_below(r, 254));
}

static void random_v6(struct rng *r, uint8_t *a)
{
	uint64_t lo = rng_next(r);
	memset(a, 0, 16);
	a[0] = 0x20, a[1] = 0x01, a[2] = 0x0d, a[3] = 0xb8; /* 2001:db8::/32 */
	a[4] = (uint8_t)rng_below(r, 16);
	memcpy(a + 8, &lo, 8);
}

static uint16_t ephemeral_port(struct rng *r) { return (uint16_t)(32768 + rng_below(r, 28000)); }

static int64_t line_gap_ns(const struct model_params *m, uint32_t ip_len)
{
	return (int64_t)((ip_len + 38) * 8.0 * NS_PER_S / m->link_bps) + 1;
}

static double background_rate_bps(struct rng *r, const struct model_params *m)
{
	double cap = m->rate_threshold_bps / 4;
	double rate = rng_lognormal(r, 3e6, 1.6);
	return rate < cap ? rate : cap;
}

static int64_t background_rtt_ns(struct rng *r)
{
	double rtt = rng_lognormal(r, 0.040, 0.6);
	rtt = rtt < 0.002 ? 0.002 : rtt > 0.4 ? 0.4 : rtt;
	return (int64_t)(rtt * NS_PER_S);
}

static uint32_t heavy_tailed_packets(struct rng *r, double alpha, double xm, double cap)
{
	double n = rng_pareto(r, alpha, xm);
	return (uint32_t)(n > cap ? cap : n);
}

static void set_window(struct gen_flow *f, double rate_bps)
{
	double per_rtt = rate_bps * (double)f->rtt_ns / NS_PER_S / 8.0 / f->pkt_len;
	f->max_window = per_rtt < 1 ? 1 : (uint32_t)per_rtt;
	/* Below one packet per RTT the flow is paced by its rate, not its RTT. */
	if (per_rtt < 1)
		f->rtt_ns = (int64_t)(f->pkt_len * 8.0 * NS_PER_S / rate_bps);
}

void model_new_background(struct gen_flow *f, struct rng *r, const struct model_params *m, int64_t t_ns)
{
	memset(f, 0, sizeof *f);
	f->cheetah = -1;
	f->next_ns = f->burst_start_ns = t_ns;
	struct packet_spec *s = &f->spec;
	s->family = rng_unit(r) < 0.15 ? 6 : 4;
	if (s->family == 4) {
		random_v4(r, s->src, 18);
		random_v4(r, s->dst, 19);
	} else {
		random_v6(r, s->src);
		random_v6(r, s->dst);
	}
	double v = rng_unit(r);
	s->vlans = v < 0.02 ? 2 : v < 0.10 ? 1 : 0;
	s->vlan_id = (uint16_t)(1 + rng_below(r, 4000));
	s->sport = ephemeral_port(r);
	s->ip_id = (uint16_t)rng_next(r);
	s->seq = (uint32_t)rng_next(r);
	f->rtt_ns = background_rtt_ns(r);
	f->window = 2;

	double k = rng_unit(r);
	if (k < 0.40) {
		f->kind = K_TCP_DATA;
		s->proto = 6;
		s->dport = rng_unit(r) < 0.7 ? 443 : 80;
		f->remaining = 1 + heavy_tailed_packets(r, 1.15, 6, 400000);
		f->pkt_len = 1500;
		set_window(f, background_rate_bps(r, m));
	} else if (k < 0.68) {
		f->kind = K_TCP_ACKS;
		s->proto = 6;
		s->sport = rng_unit(r) < 0.7 ? 443 : 80;
		s->dport = ephemeral_port(r);
		f->remaining = 1 + heavy_tailed_packets(r, 1.15, 5, 200000);
		f->pkt_len = s->family == 6 ? 72 : 52; /* TCP with timestamps option */
		set_window(f, background_rate_bps(r, m) / 30);
	} else if (k < 0.80) {
		/* Short real-time media: voice (20 ms, ~200 B) or video (33 ms, ~1.1 KB). */
		f->kind = K_REALTIME;
		s->proto = 17;
		s->dport = (uint16_t)(16384 + 2 * rng_below(r, 8000));
		int video = rng_unit(r) < 0.3;
		f->pkt_len = video ? 900 + rng_below(r, 400) : 200;
		f->rtt_ns = video ? 33333333 : 20000000;
		f->remaining = 1 + (uint32_t)(rng_exponential(r, 0.8) * NS_PER_S / (double)f->rtt_ns);
		f->max_window = f->window = 1;
	} else if (k < 0.975) {
		f->kind = K_UDP_SHORT;
		s->proto = 17;
		s->dport = rng_unit(r) < 0.8 ? 53 : 123;
		f->pkt_len = 60 + rng_below(r, 450);
		f->remaining = 1 + rng_below(r, 3);
		f->max_window = f->window = 1;
	} else if (k < 0.995) {
		f->kind = K_ICMP;
		s->proto = s->family == 6 ? 58 : 1;
		f->pkt_len = 84;
		f->remaining = 1 + rng_below(r, 4);
		f->rtt_ns = 1000000000;
		f->max_window = f->window = 1;
	} else {
		/* A datagram bigger than the MTU: a first fragment, then a later one. */
		f->kind = K_UDP_FRAG;
		s->family = 4;
		random_v4(r, s->src, 18);
		random_v4(r, s->dst, 19);
		s->proto = 17;
		s->dport = 4789;
		f->pkt_len = 1500;
		f->remaining = 2;
		f->max_window = f->window = 2;
	}
	if (f->window > f->max_window)
		f->window = f->max_window;
	f->burst_left = f->window;
}

static uint32_t packet_len_now(struct gen_flow *f, struct rng *r)
{
	uint32_t min = packet_min_ip_len(f->spec.family, f->spec.proto);
	uint32_t len = f->pkt_len;
	if (f->kind == K_TCP_DATA && f->remaining == 1)
		len = min + rng_below(r, 1500 - min); /* the tail of the object */
	if (f->kind == K_UDP_FRAG && f->remaining == 1)
		len = 200 + rng_below(r, 800);
	return len < min ? min : len;
}

static void set_flags(struct gen_flow *f, uint32_t sent_before)
{
	struct packet_spec *s = &f->spec;
	s->frag = FRAG_NONE;
	if (s->proto == 6) {
		if (sent_before == 0)
			s->tcp_flags = 0x02; /* SYN */
		else if (f->remaining == 1)
			s->tcp_flags = 0x11; /* FIN ACK */
		else
			s->tcp_flags = f->kind == K_TCP_ACKS ? 0x10 : 0x18; /* ACK / PSH ACK */
	}
	if (f->kind == K_UDP_FRAG)
		s->frag = f->remaining == 2 ? FRAG_FIRST : FRAG_LATER;
}

int model_emit(struct gen_flow *f, struct rng *r, const struct model_params *m)
{
	set_flags(f, f->sent++);
	f->spec.ip_len = packet_len_now(f, r);
	f->spec.seq += f->spec.ip_len;
	if (f->kind != K_UDP_FRAG)
		f->spec.ip_id++;
	if (--f->remaining == 0)
		return 0;

	if (--f->burst_left > 0) {
		f->next_ns += line_gap_ns(m, f->spec.ip_len);
		return f->next_ns < f->stop_ns || f->cheetah < 0 ? 1 : 0;
	}
	/* Burst done: the next window leaves one RTT after this one started. */
	f->burst_index++;
	if (f->cheetah >= 0) {
		/* Fixed schedule with a little jitter that does not accumulate, so the
		 * rate over any whole number of RTTs is the nominal one. */
		double jitter = rng_uniform(r, -0.01, 0.01) * (double)f->rtt_ns;
		int64_t nominal = f->burst_start_ns + (int64_t)f->burst_index * f->rtt_ns;
		f->next_ns = nominal + (int64_t)jitter;
		f->burst_left = f->window;
		return f->next_ns < f->stop_ns;
	}
	f->burst_start_ns += f->rtt_ns;
	if (f->burst_start_ns <= f->next_ns)
		f->burst_start_ns = f->next_ns + line_gap_ns(m, f->spec.ip_len);
	f->next_ns = f->burst_start_ns;
	if (f->window < f->max_window) /* slow start */
		f->window = f->window * 2 < f->max_window ? f->window * 2 : f->max_window;
	f->burst_left = f->window;
	return 1;
}
