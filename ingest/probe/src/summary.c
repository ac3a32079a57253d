#include "summary.h"

#include <string.h>

/* At exit the workers have stopped: their own counters are final. */
static void totals(const struct run_summary *s, struct detector_counters *d, struct worker_counters *w)
{
	struct probe_totals t;
	probe_totals_clear(&t);
	for (uint32_t i = 0; i < s->n_workers; i++)
		probe_totals_add(&t, &s->workers[i].det.n, &s->workers[i].n);
	*d = t.d;
	*w = t.w;
}

static uint64_t all_packets(const struct worker_counters *w)
{
	uint64_t n = 0;
	for (int r = 0; r < PARSE_STATUS_COUNT; r++)
		n += w->parse[r];
	return n;
}

#define U(x) ((unsigned long long)(x))

void summary_write_json(FILE *f, const struct run_summary *s)
{
	struct detector_counters d;
	struct worker_counters w;
	totals(s, &d, &w);
	uint64_t packets = all_packets(&w);
	double pps = s->wall_s > 0 ? (double)packets / s->wall_s : 0;
	fprintf(f, "{\n  \"packets\": %llu,\n  \"bytes\": %llu,\n", U(packets), U(s->x->bin_bytes));
	fprintf(f, "  \"seconds\": %.6f,\n  \"packets_per_second\": %.0f,\n", s->wall_s, pps);
	fprintf(f, "  \"mode\": \"%s\",\n  \"spread\": \"%s\",\n  \"workers\": %u,\n", s->mode, s->spread, s->n_workers);
	fprintf(f, "  \"config\": {\"rate_threshold_bps\": %.1f, \"flight_ms\": %u, \"min_length\": %u, "
		   "\"sampling\": %g, \"sampling_mode\": \"%s\", \"cache_size\": %u, \"idle_timeout_ms\": %u, \"bin_ms\": %u, "
		   "\"flight_floor_bps\": %.1f, \"cache_entry_bytes\": %zu},\n",
		s->o->rate_threshold_bps, s->o->flight_ms, s->o->min_length, s->o->sampling,
		s->o->sample_every_packet == SAMPLE_PACKETS_SCALED     ? "packet"
		: s->o->sample_every_packet == SAMPLE_PACKETS_UNSCALED ? "packet-unscaled"
								       : "create", s->o->cache_size,
		s->o->idle_timeout_ms, s->o->bin_ms, s->o->flight_floor_bps, sizeof(struct flight_entry));
	fprintf(f, "  \"counters\": {\n    \"parsed\": {");
	for (int r = 0; r < PARSE_STATUS_COUNT; r++)
		fprintf(f, "%s\"%s\": %llu", r ? ", " : "", parse_status_names[r], U(w.parse[r]));
	fprintf(f, "},\n");
	fprintf(f, "    \"flow_packets\": %llu, \"cache_hits\": %llu, \"cache_misses\": %llu, "
		   "\"entries_created\": %llu,\n",
		U(d.packets), U(d.cache_hits), U(d.cache_misses), U(d.entries_created));
	fprintf(f, "    \"filtered_protocol\": %llu, \"filtered_length\": %llu, \"sampled_out\": %llu,\n",
		U(d.filtered_protocol), U(d.filtered_length), U(d.sampled_out));
	fprintf(f, "    \"evictions\": %llu, \"evicted_cheetahs\": %llu, \"idle_expired\": %llu,\n", U(d.evictions),
		U(d.evicted_cheetahs), U(d.idle_expired));
	fprintf(f, "    \"flights_ended\": %llu, \"flights_exported\": %llu, \"cheetahs\": %llu, "
		   "\"cheetahs_ended\": %llu,\n",
		U(d.flights_ended), U(d.flights_exported), U(d.cheetahs_started), U(d.cheetahs_ended));
	fprintf(f, "    \"packets_sampled\": %llu, \"export_drops\": %llu, \"distributor_drops\": %llu, "
		   "\"port_missed\": %llu, \"port_nombuf\": %llu,\n",
		U(w.packets_sampled), U(w.events_dropped), U(s->distributor_dropped), U(s->port_missed),
		U(s->port_nombuf));
	fprintf(f, "    \"bins\": %llu, \"bins_forced\": %llu", U(s->x->bins_released), U(s->x->merger.forced));
	if (s->kafka)
		fprintf(f, ",\n    \"kafka\": {\"produced\": %llu, \"delivered\": %llu, \"undeliverable\": %llu, "
			   "\"queue_full\": %llu, \"thresholds_applied\": %llu, \"thresholds_refused\": %llu, "
			   "\"thresholds_ignored\": %llu, \"threshold_version\": %lld}",
			U(s->kafka->produced), U(s->kafka->delivered), U(s->kafka->failed + s->kafka->queue_full),
			U(s->kafka->queue_full), U(s->kafka->thresholds_applied), U(s->kafka->thresholds_refused),
			U(s->kafka->thresholds_ignored), (long long)s->kafka->threshold_version);
	fprintf(f, "\n  },\n  \"per_worker\": [");
	for (uint32_t i = 0; i < s->n_workers; i++) {
		const struct worker *wk = &s->workers[i];
		uint64_t p = all_packets(&wk->n);
		if (s->o->memory && s->o->repeat > 1)
			p /= s->o->repeat; /* busy_ns is the fastest single pass */
		double secs = (double)wk->n.busy_ns / 1e9;
		fprintf(f, "%s{\"packets\": %llu, \"busy_seconds\": %.6f, \"packets_per_second\": %.0f, \"cheetahs\": %llu}",
			i ? ", " : "", U(p), secs, secs > 0 ? (double)p / secs : 0, U(wk->det.n.cheetahs_started));
	}
	fprintf(f, "]\n}\n");
}

void summary_print(FILE *f, const struct run_summary *s)
{
	struct detector_counters d;
	struct worker_counters w;
	totals(s, &d, &w);
	uint64_t packets = all_packets(&w);
	fprintf(f, "cheetah-probe: %llu packets, %llu bytes in %.3f s (%.2f M packets/s, %u worker%s, %s)\n", U(packets),
		U(s->x->bin_bytes), s->wall_s, s->wall_s > 0 ? (double)packets / s->wall_s / 1e6 : 0, s->n_workers,
		s->n_workers == 1 ? "" : "s", s->spread);
	fprintf(f, "  cheetahs %llu (ended %llu, evicted %llu), flights %llu, cache hits %llu, entries %llu, "
		   "evictions %llu, idle %llu\n",
		U(d.cheetahs_started), U(d.cheetahs_ended), U(d.evicted_cheetahs), U(d.flights_ended), U(d.cache_hits),
		U(d.entries_created), U(d.evictions), U(d.idle_expired));
	fprintf(f, "  filtered: protocol %llu, length %llu, sampled out %llu; not a flow packet:", U(d.filtered_protocol),
		U(d.filtered_length), U(d.sampled_out));
	for (int r = 1; r < PARSE_STATUS_COUNT; r++)
		if (w.parse[r])
			fprintf(f, " %s %llu", parse_status_names[r], U(w.parse[r]));
	fprintf(f, "\n  export drops %llu, distributor drops %llu, port missed %llu", U(w.events_dropped),
		U(s->distributor_dropped), U(s->port_missed));
	if (s->kafka)
		fprintf(f, ", kafka produced %llu delivered %llu undeliverable %llu", U(s->kafka->produced),
			U(s->kafka->delivered), U(s->kafka->failed + s->kafka->queue_full));
	fprintf(f, "\n");
}
