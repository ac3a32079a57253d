/* cheetah-tracegen: a seeded, CAIDA-like backbone trace with injected
 * cheetahs and a ground-truth file (docs/PROBE.md, "Trace generator"). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cheetah_inject.h"
#include "event_heap.h"
#include "flow_model.h"
#include "pcap_writer.h"
#include "truth_writer.h"

#define FULL_SCALE_FLOWS_PER_S 25000.0 /* ~1.5 M flows a minute */
#define WARMUP_S 5.0                   /* flows already running when the trace starts */

struct options {
	const char *out, *truth;
	uint64_t seed, start_epoch;
	double scale, seconds, rate_threshold, link_bps;
	uint32_t cheetahs;
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cheetah-tracegen --out FILE.pcap --truth FILE.json [options]\n"
		"Writes a seeded CAIDA-like backbone trace (header-only packets with their true\n"
		"lengths) plus injected cheetahs, and a ground-truth JSON file.\n\n"
		"  --out FILE          pcap to write (classic libpcap, microseconds, Ethernet)\n"
		"  --truth FILE        ground truth: totals, bytes per 100 ms bin, injected flows\n"
		"  --seed N            random seed (default 1): same seed and options, same bytes\n"
		"  --scale X           fraction of the full load: 1 = ~1.5 M flows and ~38 M\n"
		"                      packets a minute (default 1; tests use 0.01)\n"
		"  --seconds S         trace length (default 60)\n"
		"  --rate-threshold B  R in bits/s the cheetahs are placed around (default 1e9)\n"
		"  --cheetahs N        injected flows: 1/2 above R, 1/4 below R/2, 1/4 in\n"
		"                      between (default 20)\n"
		"  --link-bps B        line rate for back-to-back packets (default 10e9)\n"
		"  --start-epoch S     time of the first packet, epoch seconds (default 1767225600)\n"
		"  --help              this text\n");
}

static int parse_number(const char *name, const char *text, double min, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || *end || v < min) {
		fprintf(stderr, "cheetah-tracegen: --%s %s: expected a number >= %g\n", name, text, min);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longs[] = {
		{"out", 1, 0, 'o'},	 {"truth", 1, 0, 't'},		{"seed", 1, 0, 's'},
		{"scale", 1, 0, 'x'},	 {"seconds", 1, 0, 'd'},	{"rate-threshold", 1, 0, 'r'},
		{"cheetahs", 1, 0, 'c'}, {"link-bps", 1, 0, 'l'},	{"start-epoch", 1, 0, 'e'},
		{"help", 0, 0, 'h'},	 {0, 0, 0, 0}};
	*o = (struct options){NULL, NULL, 1, 1767225600, 1.0, 60, 1e9, 10e9, 20};
	int c;
	double v;
	while ((c = getopt_long(argc, argv, "h", longs, NULL)) != -1) {
		const char *name = c == '?' ? "" : longs[0].name;
		for (const struct option *l = longs; l->name; l++)
			if (l->val == c)
				name = l->name;
		switch (c) {
		case 'o': o->out = optarg; break;
		case 't': o->truth = optarg; break;
		case 'h': usage(stdout); exit(0);
		case 's': if (parse_number(name, optarg, 0, &v)) return -1; o->seed = (uint64_t)v; break;
		case 'x': if (parse_number(name, optarg, 0, &o->scale)) return -1; break;
		case 'd': if (parse_number(name, optarg, 0.1, &o->seconds)) return -1; break;
		case 'r': if (parse_number(name, optarg, 1, &o->rate_threshold)) return -1; break;
		case 'c': if (parse_number(name, optarg, 0, &v)) return -1; o->cheetahs = (uint32_t)v; break;
		case 'l': if (parse_number(name, optarg, 1e6, &o->link_bps)) return -1; break;
		case 'e': if (parse_number(name, optarg, 0, &v)) return -1; o->start_epoch = (uint64_t)v; break;
		default: usage(stderr); return -1;
		}
	}
	if (!o->out || !o->truth || optind < argc) {
		fprintf(stderr, "cheetah-tracegen: --out and --truth are required%s (see --help)\n",
			optind < argc ? ", and no positional arguments" : "");
		return -1;
	}
	return 0;
}

struct flow_pool {
	struct gen_flow *flows;
	uint8_t *seen; /* sent a packet inside the trace window */
	uint32_t *free_list;
	uint32_t size, cap, n_free;
};

static int64_t pool_take(struct flow_pool *p)
{
	if (p->n_free)
		return p->free_list[--p->n_free];
	if (p->size == p->cap) {
		uint32_t cap = p->cap ? p->cap * 2 : 4096;
		struct gen_flow *f = realloc(p->flows, cap * sizeof *f);
		uint8_t *s = realloc(p->seen, cap);
		uint32_t *l = realloc(p->free_list, cap * sizeof *l);
		if (f) p->flows = f;
		if (s) p->seen = s;
		if (l) p->free_list = l;
		if (!f || !s || !l)
			return -1;
		p->cap = cap;
	}
	return p->size++;
}

struct run {
	struct options o;
	struct model_params m;
	struct rng rng;
	struct pcap_writer pcap;
	struct trace_truth truth;
	struct injected_cheetah *cheetahs;
};

/* Writes the packet the flow has ready at time t_ns, and counts it. */
static int write_packet(struct run *run, struct flow_pool *pool, uint32_t idx, int64_t t_ns)
{
	const struct gen_flow *f = &pool->flows[idx];
	uint8_t frame[PACKET_BUILD_MAX];
	uint32_t wire;
	uint32_t caplen = packet_build(&f->spec, frame, &wire);
	uint64_t rel_us = (uint64_t)t_ns / 1000;
	uint64_t ts_us = run->o.start_epoch * 1000000u + rel_us;
	if (pcap_writer_put(&run->pcap, ts_us, frame, caplen, wire))
		return -1;
	struct trace_truth *t = &run->truth;
	uint32_t bin = (uint32_t)(rel_us / (t->bin_ms * 1000u));
	if (bin < t->bins) {
		t->bin_bytes[bin] += f->spec.ip_len;
		t->bin_packets[bin]++;
	}
	t->packets++;
	t->ip_bytes += f->spec.ip_len;
	t->wire_bytes += wire;
	if (!pool->seen[idx]) {
		pool->seen[idx] = 1;
		t->flows++;
	}
	if (f->cheetah >= 0) {
		struct injected_cheetah *c = &run->cheetahs[f->cheetah];
		if (!c->packets)
			c->first_us = ts_us;
		c->last_us = ts_us;
		c->packets++;
		c->bytes += f->spec.ip_len;
	}
	return 0;
}

static int generate(struct run *run)
{
	struct flow_pool pool = {0};
	struct event_heap heap = {0};
	int64_t end_ns = (int64_t)(run->o.seconds * 1e9);
	for (uint32_t i = 0; i < run->o.cheetahs; i++)
		if (pool_take(&pool) < 0)
			return -1;
	cheetahs_plan(run->cheetahs, pool.flows, run->o.cheetahs, run->o.seconds, run->o.rate_threshold, &run->rng);
	for (uint32_t i = 0; i < run->o.cheetahs; i++) {
		pool.seen[i] = 0;
		if (heap_push(&heap, pool.flows[i].next_ns, i))
			return -1;
	}
	double arrival_mean_ns = run->o.scale > 0 ? 1e9 / (FULL_SCALE_FLOWS_PER_S * run->o.scale) : 0;
	int64_t next_arrival = arrival_mean_ns > 0 ? (int64_t)(-WARMUP_S * 1e9) : end_ns;

	while (heap.size || next_arrival < end_ns) {
		if (next_arrival < end_ns && (!heap.size || next_arrival <= heap_top(&heap).t)) {
			int64_t idx = pool_take(&pool);
			if (idx < 0 || heap_push(&heap, next_arrival, (uint32_t)idx))
				return -1;
			model_new_background(&pool.flows[idx], &run->rng, &run->m, next_arrival);
			pool.seen[idx] = 0;
			next_arrival += (int64_t)rng_exponential(&run->rng, arrival_mean_ns) + 1;
			continue;
		}
		struct heap_item top = heap_top(&heap);
		struct gen_flow *f = &pool.flows[top.flow];
		int more = model_emit(f, &run->rng, &run->m);
		if (top.t >= 0 && write_packet(run, &pool, top.flow, top.t))
			return -1;
		if (more && f->next_ns < end_ns) {
			heap_retime_top(&heap, f->next_ns);
		} else {
			heap_pop(&heap);
			pool.free_list[pool.n_free++] = top.flow;
		}
	}
	heap_free(&heap);
	free(pool.flows);
	free(pool.seen);
	free(pool.free_list);
	return 0;
}

int main(int argc, char **argv)
{
	struct run run;
	memset(&run, 0, sizeof run);
	if (parse_options(argc, argv, &run.o))
		return 2;
	run.m = (struct model_params){run.o.link_bps, run.o.rate_threshold};
	rng_seed(&run.rng, run.o.seed);
	struct trace_truth *t = &run.truth;
	*t = (struct trace_truth){.seed = run.o.seed, .scale = run.o.scale, .seconds = run.o.seconds,
				  .rate_threshold_bps = run.o.rate_threshold, .link_bps = run.o.link_bps,
				  .start_epoch_s = run.o.start_epoch, .bin_ms = 100};
	t->bins = (uint32_t)(run.o.seconds * 1000 / t->bin_ms + 0.999);
	t->bin_bytes = calloc(t->bins, sizeof(uint64_t));
	t->bin_packets = calloc(t->bins, sizeof(uint64_t));
	run.cheetahs = calloc(run.o.cheetahs ? run.o.cheetahs : 1, sizeof *run.cheetahs);
	if (!t->bin_bytes || !t->bin_packets || !run.cheetahs) {
		fprintf(stderr, "cheetah-tracegen: out of memory\n");
		return 1;
	}
	if (pcap_writer_open(&run.pcap, run.o.out)) {
		fprintf(stderr, "cheetah-tracegen: cannot write %s: %s\n", run.o.out, strerror(errno));
		return 1;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (generate(&run) || pcap_writer_close(&run.pcap)) {
		fprintf(stderr, "cheetah-tracegen: writing %s failed: %s (disk full?)\n", run.o.out,
			strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	t->n_cheetahs = run.o.cheetahs;
	t->cheetahs = run.cheetahs;
	if (truth_write_json(run.o.truth, t)) {
		fprintf(stderr, "cheetah-tracegen: cannot write %s: %s\n", run.o.truth, strerror(errno));
		return 1;
	}
	double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(stderr,
		"cheetah-tracegen: %llu packets, %llu flows, %.3f GB (IP), mean %.2f Gb/s over %g s, "
		"%u injected; written in %.1f s (%.2f M packets/s)\n",
		(unsigned long long)t->packets, (unsigned long long)t->flows, (double)t->ip_bytes / 1e9,
		(double)t->ip_bytes * 8 / run.o.seconds / 1e9, run.o.seconds, run.o.cheetahs, secs,
		(double)t->packets / secs / 1e6);
	free(t->bin_bytes);
	free(t->bin_packets);
	free(run.cheetahs);
	return 0;
}
