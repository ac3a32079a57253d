/* cheetah-probe: flight-rate cheetah detection on a DPDK port (docs/PROBE.md).
 * main: options, EAL, port, one distributor lcore when the port has a single
 * queue, N worker lcores, and the export loop on the main lcore. */
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "args.h"
#include "distributor.h"
#include "export.h"
#include "memory_replay.h"
#include "port.h"
#include "summary.h"
#include "topics.h" /* generated from schemas/topics.yaml */
#include "worker.h"

#define EVENT_RING 65536
#define WORKER_RING 4096
#define DRAIN 256

static _Atomic int stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop_requested, 1);
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct probe {
	struct probe_options o;
	struct capture_port port;
	struct worker *workers;
	struct memory_share *shares;
	struct distributor dist;
	int use_distributor;
	struct link_threshold threshold;
	struct exporter x;
	_Atomic int input_done;
	const char *mode, *spread;
	uint64_t started_ms; /* wall clock: the counters count from here */
};

static int setup_workers(struct probe *p)
{
	p->workers = calloc(p->o.workers, sizeof *p->workers);
	if (!p->workers)
		return -1;
	struct detector_config cfg;
	detector_default_config(&cfg);
	cfg.flight_ns = (uint64_t)p->o.flight_ms * 1000000u;
	cfg.idle_ns = (uint64_t)p->o.idle_timeout_ms * 1000000u;
	cfg.min_length = p->o.min_length;
	cfg.sampling = p->o.sampling;
	cfg.sample_every_packet = (uint8_t)p->o.sample_every_packet;
	cfg.flight_floor_bps = p->o.flight_floor_bps;
	memcpy(cfg.drop_proto, p->o.drop_proto, sizeof cfg.drop_proto);
	cfg.cache_size = p->o.cache_size;
	for (uint32_t i = 0; i < p->o.workers; i++) {
		struct worker *w = &p->workers[i];
		char name[32];
		w->id = (uint16_t)i;
		w->packet_sample = p->o.packet_sample;
		w->blocking_export = p->o.pcap != NULL; /* offline: lose nothing, wait instead */
		w->input_done = &p->input_done;
		snprintf(name, sizeof name, "events%u", i);
		w->events = rte_ring_create_elem(name, sizeof(struct probe_event), EVENT_RING, SOCKET_ID_ANY,
						 RING_F_SP_ENQ | RING_F_SC_DEQ);
		cfg.worker = (uint16_t)i;
		cfg.seed = 1;
		if (!w->events || detector_init(&w->det, &cfg, &p->threshold, (struct event_sink){worker_emit, w})) {
			fprintf(stderr, "cheetah-probe: cannot allocate worker %u (cache of %u entries, %zu MB): lower "
					"--cache-size\n", i, cfg.cache_size,
				(size_t)cfg.cache_size * sizeof(struct flight_entry) >> 20);
			return -1;
		}
		link_bins_init(&w->bins, (uint64_t)p->o.bin_ms * 1000000u, (uint16_t)i);
		if (p->shares) {
			w->source = SRC_MEMORY;
			w->memory = &p->shares[i];
			w->repeat = p->o.repeat;
			continue;
		}
		w->port_id = p->port.port_id;
		w->timestamps = p->port.timestamps;
		w->ts_offset = p->port.ts_offset;
		w->ts_flag = p->port.ts_flag;
		if (p->use_distributor) {
			snprintf(name, sizeof name, "in%u", i);
			w->source = SRC_RING;
			w->in = rte_ring_create(name, WORKER_RING, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (!w->in)
				return -1;
		} else {
			w->source = SRC_QUEUE;
			w->queue_id = (uint16_t)i;
		}
	}
	return 0;
}

static int open_input(struct probe *p, int64_t *expect)
{
	*expect = 0;
	if (p->o.memory) {
		p->shares = calloc(p->o.workers, sizeof *p->shares);
		if (!p->shares || memory_replay_load(p->o.pcap, p->o.workers, p->shares) < 0)
			return -1;
		p->mode = "memory";
		p->spread = p->o.workers > 1 ? "flow-hash split at load" : "single";
		return 0;
	}
	if (p->o.pcap && (*expect = pcap_count_records(p->o.pcap)) < 0)
		return -1;
	if (capture_port_open(&p->o, &p->port, sizeof(struct parsed_packet)))
		return -1;
	p->mode = p->o.pcap ? "pcap" : "live";
	p->use_distributor = p->o.workers > 1 && p->port.rx_queues == 1;
	p->spread = p->o.workers == 1 ? "single" : p->use_distributor ? "distributor" : "rss";
	return 0;
}

static int launch(struct probe *p, int64_t expect)
{
	unsigned lcore = rte_get_next_lcore(-1, 1, 0);
	if (p->use_distributor) {
		struct distributor *d = &p->dist;
		d->port_id = p->port.port_id;
		d->workers = p->o.workers;
		d->rings = calloc(p->o.workers, sizeof *d->rings);
		for (uint32_t i = 0; i < p->o.workers; i++)
			d->rings[i] = p->workers[i].in;
		d->blocking = p->o.pcap != NULL;
		d->expect_packets = (uint64_t)expect;
		d->input_done = &p->input_done;
		d->stop = &stop_requested;
		if (rte_eal_remote_launch(distributor_main, d, lcore))
			return -1;
		lcore = rte_get_next_lcore(lcore, 1, 0);
	} else if (p->o.workers == 1 && !p->shares) {
		p->workers[0].expect_packets = (uint64_t)expect;
	}
	for (uint32_t i = 0; i < p->o.workers; i++, lcore = rte_get_next_lcore(lcore, 1, 0))
		if (lcore >= RTE_MAX_LCORE || rte_eal_remote_launch(worker_main, &p->workers[i], lcore))
			return -1;
	/* Memory replay: the shares are the whole input. An empty pcap: nothing will come. */
	if (p->shares || (p->o.pcap && expect == 0))
		atomic_store(&p->input_done, 1);
	return 0;
}

static uint64_t wall_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* One probe.counters.v1 snapshot. While workers run, their published copies;
 * at exit (they have stopped) their own counters, which are final. */
static void send_counters(struct probe *p, int at_exit)
{
	struct probe_totals t;
	probe_totals_clear(&t);
	for (uint32_t i = 0; i < p->o.workers; i++) {
		struct worker *w = &p->workers[i];
		struct detector_counters d;
		struct worker_counters n;
		if (at_exit) {
			d = w->det.n;
			n = w->n;
		} else {
			counter_snapshot_read(&w->published, &d, &n);
		}
		probe_totals_add(&t, &d, &n);
	}
	struct live_counters c = {.started_ms = p->started_ms, .at_ms = wall_ms(), .at_exit = at_exit, .t = &t,
				  .bytes = p->x.bin_bytes,
				  .distributor_drops = __atomic_load_n(&p->dist.dropped, __ATOMIC_RELAXED)};
	struct rte_eth_stats st;
	if (!p->shares && rte_eth_stats_get(p->port.port_id, &st) == 0) {
		c.port_missed = st.imissed;
		c.port_nombuf = st.rx_nombuf;
	}
	kafka_export_probe_counters(p->x.kafka, &c);
}

/* The main lcore: drain events, poll Kafka, send the counters, watch for the end. */
static void export_loop(struct probe *p, double t0, double *t_end)
{
	struct probe_event evs[DRAIN];
	int all_finished = 0;
	double next_counters = t0 + p->o.counters_ms / 1000.0;
	*t_end = 0;
	for (;;) {
		unsigned drained = 0;
		int finished = 1;
		for (uint32_t i = 0; i < p->o.workers; i++) {
			struct worker *w = &p->workers[i];
			int done = atomic_load(&w->finished); /* read before draining: nothing comes after */
			unsigned n = rte_ring_sc_dequeue_burst_elem(w->events, evs, sizeof evs[0], DRAIN, NULL);
			for (unsigned k = 0; k < n; k++)
				exporter_event(&p->x, &evs[k]);
			drained += n;
			finished &= done && n == 0;
		}
		if (p->x.kafka) {
			kafka_export_poll(p->x.kafka);
			if (p->o.counters_ms && mono_s() >= next_counters) {
				send_counters(p, 0);
				next_counters = mono_s() + p->o.counters_ms / 1000.0;
			}
		}
		if (finished && !all_finished) {
			all_finished = 1;
			*t_end = mono_s();
		}
		if (all_finished)
			break;
		int live = p->o.pcap == NULL;
		if (live && (atomic_load(&stop_requested) ||
			     (p->o.duration_s > 0 && mono_s() - t0 >= p->o.duration_s))) {
			atomic_store(&stop_requested, 1);
			atomic_store(&p->input_done, 1);
		}
		if (!drained)
			usleep(200); /* nothing queued: give the CPU to the workers */
	}
}

int main(int argc, char **argv)
{
	static struct probe p;
	int rc = probe_parse_args(argc, argv, &p.o);
	if (rc)
		return rc > 0 ? 0 : 2;
	uint32_t lcores = 1 + p.o.workers + (p.o.workers > 1 && !p.o.memory ? 1 : 0);
	if (probe_eal_init(&p.o, argv[0], lcores))
		return 1;
	p.started_ms = wall_ms();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	link_threshold_set(&p.threshold, p.o.rate_threshold_bps, 0);
	int64_t expect;
	if (open_input(&p, &expect) || setup_workers(&p) || exporter_open(&p.x, &p.o, p.o.workers, &p.threshold)) {
		rte_eal_cleanup();
		return 1;
	}
	if (p.x.kafka && !kafka_export_sync_thresholds(p.x.kafka, 5000))
		fprintf(stderr, "cheetah-probe: " TOPIC_THRESHOLDS " not read within 5 s (Kafka at %s away?): starting with "
				"R = %.0f b/s, later updates still apply\n", p.o.kafka, p.o.rate_threshold_bps);
	double t0 = mono_s(), t_end;
	if (launch(&p, expect)) {
		fprintf(stderr, "cheetah-probe: could not start %u lcores\n", lcores);
		return 1;
	}
	if (!p.o.pcap) /* live: tell whoever started us that packets are now being read */
		fprintf(stderr, "cheetah-probe: ready, capturing on %s with %u worker%s (%s)\n",
			p.o.iface ? p.o.iface : p.o.vdev, p.o.workers, p.o.workers == 1 ? "" : "s", p.spread);
	export_loop(&p, t0, &t_end);
	rte_eal_mp_wait_lcore();
	exporter_close(&p.x);
	if (p.x.kafka)
		send_counters(&p, 1); /* before the producer is flushed and closed, so it is delivered */

	struct kafka_counters kc;
	if (p.x.kafka)
		kafka_export_close(p.x.kafka, 30000, &kc);
	struct run_summary s = {&p.o, p.workers, p.o.workers, &p.x, p.x.kafka ? &kc : NULL, p.mode, p.spread,
				t_end - t0, 0, 0, p.dist.dropped};
	if (p.shares) { /* memory replay: the slowest worker's busy time */
		uint64_t busy = 0;
		for (uint32_t i = 0; i < p.o.workers; i++)
			busy = p.workers[i].n.busy_ns > busy ? p.workers[i].n.busy_ns : busy;
		s.wall_s = (double)busy / 1e9 * (p.o.repeat > 1 ? p.o.repeat : 1); /* packets / wall: one pass, the fastest */
	} else {
		struct rte_eth_stats st;
		if (rte_eth_stats_get(p.port.port_id, &st) == 0) {
			s.port_missed = st.imissed;
			s.port_nombuf = st.rx_nombuf;
		}
		capture_port_close(&p.port);
	}
	if (p.o.out_dir) {
		char path[4096];
		snprintf(path, sizeof path, "%s/summary.json", p.o.out_dir);
		FILE *f = fopen(path, "w");
		if (!f) {
			fprintf(stderr, "cheetah-probe: cannot write %s\n", path);
			return 1;
		}
		summary_write_json(f, &s);
		fclose(f);
	}
	if (!p.o.quiet)
		summary_print(stderr, &s);
	for (uint32_t i = 0; i < p.o.workers; i++)
		detector_free(&p.workers[i].det);
	rte_eal_cleanup();
	return 0;
}
