#include "worker.h"

#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#define BURST 64
#define IDLE_POLLS_BEFORE_YIELD 256
#define IDLE_POLLS_BEFORE_SLEEP 4096
#define PCAP_STALL_NS 5000000000ull /* offline: give up on missing records after 5 s of nothing */

static uint64_t wall_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* An empty poll: spin briefly, then yield, then nap, so that when there are
 * more stages than CPUs the stage with work (often the one draining the
 * port) gets the CPU. Costs nothing while packets flow. */
void idle_backoff(uint32_t idle_polls)
{
	if (idle_polls >= IDLE_POLLS_BEFORE_SLEEP)
		usleep(20);
	else if (idle_polls % IDLE_POLLS_BEFORE_YIELD == 0)
		sched_yield();
	else
		rte_pause();
}

int worker_emit(void *ctx, const struct probe_event *ev)
{
	struct worker *w = ctx;
	while (rte_ring_sp_enqueue_elem(w->events, (void *)(uintptr_t)ev, sizeof *ev) != 0) {
		if (!w->blocking_export) {
			w->n.events_dropped++;
			return -1;
		}
		rte_pause(); /* offline: the export thread will make room */
	}
	return 0;
}

static void sample_packet(struct worker *w, const struct packet_meta *m, uint64_t ts_ns)
{
	if (!w->packet_sample || ++w->packets_since_sample < w->packet_sample)
		return;
	w->packets_since_sample = 0;
	struct probe_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = EV_PACKET;
	ev.worker = w->id;
	ev.key = m->key;
	ev.flow_id = flow_key_hash(&m->key);
	ev.time_ns = ts_ns;
	ev.length = m->ip_len;
	ev.tcp_flags = m->tcp_flags;
	ev.tcp_window = m->tcp_window;
	ev.packets = w->packet_sample;
	if (worker_emit(w, &ev) == 0)
		w->n.packets_sampled++;
}

/* Everything one packet does, whatever its source. */
static inline void process(struct worker *w, enum parse_status st, const struct packet_meta *m, uint64_t hash,
			   uint64_t ts_ns)
{
	struct event_sink sink = {worker_emit, w};
	int cheetah = 0;
	w->n.parse[st]++;
	if (st == PARSE_OK) {
		cheetah = detector_packet_hashed(&w->det, m, hash, ts_ns);
		sample_packet(w, m, ts_ns);
	}
	link_bins_add(&w->bins, ts_ns, m->ip_len, cheetah, &sink);
}

/* Up to BURST parsed packets, in order: hashes and bucket prefetches first,
 * then entry prefetches, then the work, so cache misses overlap. */
struct batch {
	const struct packet_meta *m[BURST];
	uint64_t ts[BURST], hash[BURST];
	uint8_t st[BURST];
	unsigned n;
};

static void run_batch(struct worker *w, struct batch *b)
{
	for (unsigned i = 0; i < b->n; i++)
		if (b->st[i] == PARSE_OK) {
			b->hash[i] = flow_key_hash(&b->m[i]->key);
			detector_prefetch_bucket(&w->det, b->hash[i]);
		}
	for (unsigned i = 0; i < b->n; i++)
		if (b->st[i] == PARSE_OK)
			detector_prefetch_entry(&w->det, b->hash[i]);
	for (unsigned i = 0; i < b->n; i++)
		process(w, (enum parse_status)b->st[i], b->m[i], b->hash[i], b->ts[i]);
	b->n = 0;
}

/* Live readers (probe.counters.v1) see the counters as of the last publish:
 * at most every PUBLISH_NS while packets flow, on quiet polls, and at the end. */
#define PUBLISH_NS 10000000u

static void publish_counters(struct worker *w, uint64_t now_mono)
{
	counter_snapshot_publish(&w->published, &w->det.n, &w->n);
	w->published_ns = now_mono;
}

static void finish(struct worker *w, uint64_t last_ts)
{
	struct event_sink sink = {worker_emit, w};
	detector_finish(&w->det, last_ts);
	link_bins_close(&w->bins, &sink);
	publish_counters(w, mono_ns());
	atomic_store(&w->finished, 1);
}

/* One pass over the in-memory share; times are shifted by `shift_ns` so that
 * a repeated pass is later traffic, not time running backwards. */
static uint64_t memory_pass(struct worker *w, uint64_t shift_ns, uint64_t *last)
{
	const struct memory_share *s = w->memory;
	struct packet_meta metas[BURST];
	struct batch b = {.n = 0};
	uint64_t t0 = mono_ns(), off = 0;
	for (uint64_t i = 0; i < s->packets; i++) {
		const struct memory_record *r = (const struct memory_record *)(s->blob + off);
		unsigned k = b.n++;
		b.st[k] = (uint8_t)packet_parse((const uint8_t *)(r + 1), r->caplen, r->wire_len, &metas[k]);
		b.m[k] = &metas[k];
		b.ts[k] = *last = r->ts_ns + shift_ns;
		off += memory_record_size(r->caplen);
		if (b.n == BURST) {
			run_batch(w, &b);
			if ((i & 1023) == 1023)
				detector_expire_idle(&w->det, *last);
			if ((i & 65535) == 65535)
				publish_counters(w, 0);
		}
	}
	run_batch(w, &b);
	return mono_ns() - t0;
}

static int run_memory(struct worker *w)
{
	uint64_t last = 0, best = UINT64_MAX, span = 0;
	uint64_t first = w->memory->packets ? ((const struct memory_record *)w->memory->blob)->ts_ns : 0;
	for (uint32_t pass = 0; pass < (w->repeat ? w->repeat : 1); pass++) {
		uint64_t ns = memory_pass(w, pass * span, &last);
		if (pass == 0)
			span = last - first + 1000000000u; /* the next pass starts 1 s after this one */
		best = ns < best ? ns : best;
	}
	w->n.busy_ns = best;
	finish(w, last);
	return 0;
}

static uint64_t packet_time(const struct worker *w, struct rte_mbuf *mb, uint64_t wall)
{
	if (w->timestamps && (mb->ol_flags & w->ts_flag))
		return *RTE_MBUF_DYNFIELD(mb, w->ts_offset, uint64_t *) * 1000u; /* net_pcap: µs */
	return wall;
}

static int run_mbufs(struct worker *w)
{
	struct rte_mbuf *pkts[BURST];
	struct event_sink sink = {worker_emit, w};
	uint64_t last = 0, first_mono = 0, last_mono = 0, quiet_since = 0;
	uint32_t idle = 0;
	for (;;) {
		uint16_t n;
		if (w->source == SRC_QUEUE)
			n = rte_eth_rx_burst(w->port_id, w->queue_id, pkts, BURST);
		else
			n = (uint16_t)rte_ring_sc_dequeue_burst(w->in, (void **)pkts, BURST, NULL);
		if (n == 0) {
			if (atomic_load(w->input_done) &&
			    (w->source == SRC_QUEUE || rte_ring_empty(w->in)))
				break;
			if (w->expect_packets && idle == 0)
				quiet_since = mono_ns();
			else if (w->expect_packets && mono_ns() - quiet_since > PCAP_STALL_NS) {
				fprintf(stderr, "cheetah-probe: the pcap port delivered %llu of %llu records and then "
						"nothing for 5 s: the file may be damaged after that point; finishing\n",
					(unsigned long long)w->received, (unsigned long long)w->expect_packets);
				atomic_store(w->input_done, 1);
			}
			if (!w->timestamps && (idle & 1023) == 0) {
				/* Live and quiet: the clock still moves for bins and idle ends. */
				uint64_t now = wall_ns();
				link_bins_advance(&w->bins, now, &sink);
				detector_expire_idle(&w->det, now);
			}
			if ((idle & 1023) == 0)
				publish_counters(w, mono_ns());
			idle_backoff(++idle);
			continue;
		}
		idle = 0;
		w->received += n;
		if (w->expect_packets && w->received >= w->expect_packets)
			atomic_store(w->input_done, 1);
		uint64_t wall = w->timestamps ? 0 : wall_ns();
		last_mono = mono_ns();
		if (!first_mono)
			first_mono = last_mono;
		struct packet_meta metas[BURST];
		struct batch b = {.n = n};
		for (uint16_t i = 0; i < n; i++) {
			struct rte_mbuf *mb = pkts[i];
			b.ts[i] = packet_time(w, mb, wall);
			if (w->source == SRC_RING) {
				const struct parsed_packet *pp = rte_mbuf_to_priv(mb);
				b.st[i] = pp->status;
				b.m[i] = &pp->meta;
			} else {
				b.st[i] = (uint8_t)packet_parse(rte_pktmbuf_mtod(mb, const uint8_t *), rte_pktmbuf_data_len(mb),
								rte_pktmbuf_pkt_len(mb), &metas[i]);
				b.m[i] = &metas[i];
			}
			last = b.ts[i] > last ? b.ts[i] : last;
		}
		run_batch(w, &b);
		rte_pktmbuf_free_bulk(pkts, n);
		detector_expire_idle(&w->det, last);
		if (last_mono - w->published_ns >= PUBLISH_NS)
			publish_counters(w, last_mono);
	}
	w->n.busy_ns = last_mono - first_mono;
	finish(w, last);
	return 0;
}

int worker_main(void *arg)
{
	struct worker *w = arg;
	return w->source == SRC_MEMORY ? run_memory(w) : run_mbufs(w);
}
