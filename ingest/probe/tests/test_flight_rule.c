/* The flight-rate rule on hand-built packet sequences; every expected figure
 * is computed by hand in the comments. */
#include <math.h>
#include <stdlib.h>

#include "../src/flight_detector.h"
#include "check.h"

#define MS 1000000ull

struct collected {
	struct probe_event ev[64];
	int n;
};

static int collect(void *ctx, const struct probe_event *ev)
{
	struct collected *c = ctx;
	if (c->n == 64)
		return -1;
	c->ev[c->n++] = *ev;
	return 0;
}

struct bench {
	struct flight_detector d;
	struct link_threshold thr;
	struct collected out;
};

static void setup(struct bench *b, double r_bps, uint32_t cache_size)
{
	memset(b, 0, sizeof *b);
	struct detector_config cfg;
	detector_default_config(&cfg);
	cfg.cache_size = cache_size;
	link_threshold_set(&b->thr, r_bps, 1);
	CHECK(detector_init(&b->d, &cfg, &b->thr, (struct event_sink){collect, &b->out}) == 0);
}

static struct packet_meta pkt(uint8_t flow, uint32_t len, uint8_t proto)
{
	struct packet_meta m;
	memset(&m, 0, sizeof m);
	m.key.src[10] = m.key.src[11] = m.key.dst[10] = m.key.dst[11] = 0xff;
	m.key.src[12] = 198, m.key.src[13] = 18, m.key.src[15] = flow;
	m.key.dst[12] = 198, m.key.dst[13] = 19, m.key.dst[15] = 1;
	m.key.src_port = 40000, m.key.dst_port = 5001, m.key.proto = proto;
	m.ip_len = len;
	return m;
}

static int count_type(const struct collected *c, uint8_t type)
{
	int n = 0;
	for (int i = 0; i < c->n; i++)
		n += c->ev[i].type == type;
	return n;
}

static const struct probe_event *first_of(const struct collected *c, uint8_t type)
{
	for (int i = 0; i < c->n; i++)
		if (c->ev[i].type == type)
			return &c->ev[i];
	return NULL;
}

/* Packets at 0, 50 ms and exactly T = 100 ms belong to the first flight; the
 * one at T + 1 ns ends it: 3000 B * 8 / 0.100000001 s = 239,999.9976 b/s > R. */
static void flight_boundary_exactly_at_t(void)
{
	struct bench b;
	setup(&b, 200000, 16);
	struct packet_meta m = pkt(1, 1000, 6);
	detector_packet(&b.d, &m, 0);
	detector_packet(&b.d, &m, 50 * MS);
	CHECK(detector_packet(&b.d, &m, 100 * MS) == 0);
	CHECK_EQ_U(b.d.n.flights_ended, 0);
	CHECK(detector_packet(&b.d, &m, 100 * MS + 1) == 1);
	CHECK_EQ_U(b.d.n.flights_ended, 1);
	const struct probe_event *s = first_of(&b.out, EV_CHEETAH_START);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U(s->time_ns, 100 * MS + 1);
		CHECK(fabs(s->rate_bps - 3000 * 8 / 0.100000001) < 1e-3);
		CHECK_EQ_U(s->threshold_version, 1);
		CHECK_EQ_U(s->start_ns, 0);
	}
	/* The ending packet opens the cheetah's next flight. */
	struct flight_entry *e = flight_cache_oldest(&b.d.cache);
	CHECK(e && e->flight_start_ns == 100 * MS + 1 && e->flight_bytes == 1000);
	detector_free(&b.d);
}

/* Same packets, R = 1 Mb/s: not a cheetah, the entry goes and the ending
 * packet creates a fresh one (a new flight). */
static void flight_below_r_starts_over(void)
{
	struct bench b;
	setup(&b, 1e6, 16);
	struct packet_meta m = pkt(1, 1000, 6);
	for (uint64_t t = 0; t <= 100 * MS; t += 50 * MS)
		detector_packet(&b.d, &m, t);
	detector_packet(&b.d, &m, 100 * MS + 1);
	CHECK_EQ_U(count_type(&b.out, EV_CHEETAH_START), 0);
	CHECK_EQ_U(b.d.n.entries_created, 2);
	CHECK_EQ_U(b.d.cache.used, 1);
	struct flight_entry *e = flight_cache_oldest(&b.d.cache);
	CHECK(e && e->created_ns == 100 * MS + 1 && e->flight_packets == 1);
	detector_free(&b.d);
}

/* Flow 1 becomes a cheetah (packets at 0 and 100 ms, the flight ends at 200 ms:
 * 2000 B over 200 ms = 80 kb/s > 50 kb/s); flows 2
 * and 3 arrive in a cache of 2: flow 1 is least recently used and evicted. */
static void eviction_of_a_cheetah_ends_it(void)
{
	struct bench b;
	setup(&b, 50000, 2);
	struct packet_meta a = pkt(1, 1000, 6);
	detector_packet(&b.d, &a, 0);
	detector_packet(&b.d, &a, 100 * MS);
	detector_packet(&b.d, &a, 200 * MS);
	CHECK_EQ_U(b.d.n.cheetahs_started, 1);
	struct packet_meta p2 = pkt(2, 100, 6), p3 = pkt(3, 100, 6);
	detector_packet(&b.d, &p2, 201 * MS);
	detector_packet(&b.d, &p3, 202 * MS);
	CHECK_EQ_U(b.d.n.evictions, 1);
	CHECK_EQ_U(b.d.n.evicted_cheetahs, 1);
	const struct probe_event *end = first_of(&b.out, EV_CHEETAH_END);
	CHECK(end != NULL);
	if (end) {
		CHECK_EQ_U(end->end_reason, END_EVICTED);
		CHECK_EQ_U(end->time_ns, 200 * MS); /* its last packet */
		CHECK_EQ_U(end->bytes, 3000);
		CHECK_EQ_U(end->seq, 2);
		CHECK(end->flow_id == first_of(&b.out, EV_CHEETAH_START)->flow_id);
	}
	detector_free(&b.d);
}

/* A cheetah idle for longer than the timeout (2 s) ends: by the sweep, or
 * when its next packet comes late (then it starts afresh, not a cheetah). */
static void idle_cheetah_ends(void)
{
	struct bench b;
	setup(&b, 50000, 16);
	struct packet_meta a = pkt(1, 1000, 6), c = pkt(2, 1000, 6);
	for (uint64_t t = 0; t <= 200 * MS; t += 100 * MS) {
		detector_packet(&b.d, &a, t);
		detector_packet(&b.d, &c, t);
	}
	CHECK_EQ_U(b.d.n.cheetahs_started, 2);
	detector_expire_idle(&b.d, 2200 * MS); /* exactly the timeout: not yet */
	CHECK_EQ_U(b.d.n.cheetahs_ended, 0);
	detector_packet(&b.d, &c, 2200 * MS + 1); /* 2 s + 1 ns after its last packet */
	CHECK_EQ_U(b.d.n.cheetahs_ended, 1);
	CHECK(first_of(&b.out, EV_CHEETAH_END)->end_reason == END_IDLE);
	CHECK(flight_cache_find(&b.d.cache, &c.key, flow_key_hash(&c.key))->cheetah == 0);
	detector_expire_idle(&b.d, 2200 * MS + 2); /* flow 1 is now idle too */
	CHECK_EQ_U(b.d.n.cheetahs_ended, 2);
	CHECK_EQ_U(b.d.cache.used, 1);
	detector_free(&b.d);
}

/* R changes from 1 Gb/s (v1) to 100 kb/s (v7) while a flight is open: the
 * flight is judged with the R in force when it ends. */
static void threshold_update_mid_flight(void)
{
	struct bench b;
	setup(&b, 1e9, 16);
	struct packet_meta m = pkt(1, 1500, 6);
	detector_packet(&b.d, &m, 0);
	detector_packet(&b.d, &m, 40 * MS);
	link_threshold_set(&b.thr, 100000, 7);
	detector_packet(&b.d, &m, 120 * MS); /* 3000 B / 120 ms = 200 kb/s */
	const struct probe_event *s = first_of(&b.out, EV_CHEETAH_START);
	CHECK(s != NULL);
	if (s) {
		CHECK_EQ_U(s->threshold_version, 7);
		CHECK(s->threshold_bps == 100000);
		CHECK(fabs(s->rate_bps - 200000) < 1e-6);
	}
	detector_free(&b.d);
}

/* L and the protocol drop set decide only who creates an entry; once a flow
 * has one, every packet counts. S = 0 creates nothing. */
static void filters_apply_only_to_new_entries(void)
{
	struct bench b;
	setup(&b, 1e12, 16);
	b.d.cfg.min_length = 600;
	struct packet_meta small = pkt(1, 500, 6), big = pkt(1, 1500, 6), icmp = pkt(2, 1500, 1);
	detector_packet(&b.d, &small, 0);
	CHECK_EQ_U(b.d.n.filtered_length, 1);
	CHECK_EQ_U(b.d.cache.used, 0);
	detector_packet(&b.d, &big, 1 * MS);
	detector_packet(&b.d, &small, 2 * MS);
	struct flight_entry *e = flight_cache_oldest(&b.d.cache);
	CHECK(e && e->flight_bytes == 2000 && e->flight_packets == 2);
	detector_packet(&b.d, &icmp, 3 * MS);
	CHECK_EQ_U(b.d.n.filtered_protocol, 1);
	b.d.cfg.sampling = 0;
	struct packet_meta other = pkt(3, 1500, 17);
	detector_packet(&b.d, &other, 4 * MS);
	CHECK_EQ_U(b.d.n.sampled_out, 1);
	detector_packet(&b.d, &small, 5 * MS); /* existing entry: still counted */
	CHECK_EQ_U(e->flight_packets, 3);
	CHECK_EQ_U(b.d.cache.used, 1);
	detector_free(&b.d);
}

/* Flights at or above the floor are exported with bytes and elapsed time; a
 * cheetah stays one through a slower flight. */
static void flights_exported_above_floor(void)
{
	struct bench b;
	setup(&b, 50000, 16);
	b.d.cfg.flight_floor_bps = 10000;
	struct packet_meta m = pkt(1, 1000, 6);
	detector_packet(&b.d, &m, 0);
	detector_packet(&b.d, &m, 200 * MS);  /* flight 1: 1000 B / 200 ms = 40 kb/s < R */
	detector_packet(&b.d, &m, 300 * MS);
	detector_packet(&b.d, &m, 400 * MS + 1); /* entry re-created at 200 ms: 2000 B / 200 ms = 80 kb/s */
	detector_packet(&b.d, &m, 2000 * MS);    /* 1000 B / 1.6 s = 5 kb/s: below the floor, still a cheetah */
	CHECK_EQ_U(count_type(&b.out, EV_FLIGHT), 2);
	const struct probe_event *f = first_of(&b.out, EV_FLIGHT);
	CHECK(f && f->bytes == 1000 && f->elapsed_ns == 200 * MS && fabs(f->rate_bps - 40000) < 1e-6);
	CHECK_EQ_U(b.d.n.cheetahs_started, 1);
	CHECK(flight_cache_oldest(&b.d.cache)->cheetah == 1);
	detector_finish(&b.d, 2000 * MS);
	CHECK(b.out.ev[b.out.n - 1].type == EV_CHEETAH_END && b.out.ev[b.out.n - 1].end_reason == END_INPUT_DONE);
	detector_free(&b.d);
}

/* Comparison modes: S = 0.5 applied to every packet after the lookup, 1000
 * packets of 100 bytes; the dropped ones are counted as sampled out, and each
 * kept one adds bytes_per_kept to the flight. */
static void check_packet_sampling(uint8_t mode, uint64_t bytes_per_kept)
{
	struct bench b;
	setup(&b, 1e12, 16);
	b.d.cfg.sampling = 0.5;
	b.d.cfg.sample_every_packet = mode;
	struct packet_meta m = pkt(1, 100, 6);
	for (int i = 0; i < 1000; i++)
		detector_packet(&b.d, &m, (uint64_t)i * 1000);
	struct flight_entry *e = flight_cache_oldest(&b.d.cache);
	CHECK(e != NULL);
	CHECK(b.d.n.sampled_out > 400 && b.d.n.sampled_out < 600);
	if (e)
		CHECK_EQ_U(e->flight_bytes, (1000 - b.d.n.sampled_out) * bytes_per_kept);
	detector_free(&b.d);
}

/* Scaled by 1/S: kept packets count double. */
static void packet_sampling_scales_kept_packets(void) { check_packet_sampling(SAMPLE_PACKETS_SCALED, 200); }

/* Unscaled: only the kept packets' own bytes count, so the flight reads about
 * S times its true rate. */
static void unscaled_packet_sampling_counts_only_kept_bytes(void)
{
	check_packet_sampling(SAMPLE_PACKETS_UNSCALED, 100);
}

void run_flight_rule_tests(void);
void run_flight_rule_tests(void)
{
	RUN("flight", flight_boundary_exactly_at_t);
	RUN("flight", flight_below_r_starts_over);
	RUN("flight", eviction_of_a_cheetah_ends_it);
	RUN("flight", idle_cheetah_ends);
	RUN("flight", threshold_update_mid_flight);
	RUN("flight", filters_apply_only_to_new_entries);
	RUN("flight", flights_exported_above_floor);
	RUN("flight", packet_sampling_scales_kept_packets);
	RUN("flight", unscaled_packet_sampling_counts_only_kept_bytes);
}
