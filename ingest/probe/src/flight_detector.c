#include "flight_detector.h"

#include <string.h>

/* The rule's defaults (docs/ARCHITECTURE.md, "Flight-rate cheetah"): the one place they are set;
 * cheetah-probe's options and --help read them (args.c). */
void detector_default_config(struct detector_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->flight_ns = 100000000ull; /* T = 100 ms */
	cfg->idle_ns = 2000000000ull;
	cfg->min_length = 0;
	cfg->sampling = 1.0;
	cfg->flight_floor_bps = 0;
	cfg->drop_proto[1] = cfg->drop_proto[58] = 1;
	cfg->cache_size = 262144; /* entries per worker: no eviction below ~64 K concurrent flows (docs/PROBE.md) */
	cfg->seed = 1;
}

int detector_init(struct flight_detector *d, const struct detector_config *cfg, struct link_threshold *thr,
		  struct event_sink sink)
{
	memset(d, 0, sizeof *d);
	d->cfg = *cfg;
	d->threshold = thr;
	d->sink = sink;
	d->rng = cfg->seed * 0x9e3779b97f4a7c15ULL + cfg->worker + 1;
	return flight_cache_init(&d->cache, cfg->cache_size);
}

void detector_free(struct flight_detector *d) { flight_cache_free(&d->cache); }

static double next_unit(struct flight_detector *d)
{
	d->rng ^= d->rng << 13;
	d->rng ^= d->rng >> 7;
	d->rng ^= d->rng << 17;
	return (double)(d->rng >> 11) * 0x1.0p-53;
}

static void emit(struct flight_detector *d, const struct probe_event *ev)
{
	if (d->sink.emit(d->sink.ctx, ev))
		d->n.export_failed++;
}

static uint64_t flow_id(const struct flight_entry *e) { return mix64(e->hash ^ mix64(e->created_ns)); }

static void fill_flow_event(struct probe_event *ev, const struct flight_detector *d, const struct flight_entry *e,
			    uint8_t type)
{
	memset(ev, 0, sizeof *ev);
	ev->type = type;
	ev->worker = d->cfg.worker;
	ev->key = e->key;
	ev->flow_id = flow_id(e);
	ev->start_ns = e->created_ns;
	ev->bytes = e->bytes;
	ev->packets = e->packets;
	ev->peak_bytes = e->peak_flight_bytes;
	ev->peak_start_ns = e->peak_flight_start_ns;
	ev->rate_bps = e->rate_bps;
	ev->threshold_bps = e->threshold_bps;
	ev->threshold_version = e->threshold_version;
	ev->cheetah = e->cheetah;
}

static void end_cheetah(struct flight_detector *d, struct flight_entry *e, uint8_t reason)
{
	struct probe_event ev;
	fill_flow_event(&ev, d, e, EV_CHEETAH_END);
	ev.time_ns = e->last_ns;
	ev.end_reason = reason;
	ev.seq = ++e->seq;
	emit(d, &ev);
	d->n.cheetahs_ended++;
}

static void drop_entry(struct flight_detector *d, struct flight_entry *e, uint8_t reason)
{
	if (e->cheetah)
		end_cheetah(d, e, reason);
	flight_cache_remove(&d->cache, e);
}

/* The flight of e ended with a packet at ts_ns. Returns 1 if e stays (cheetah). */
static int end_flight(struct flight_detector *d, struct flight_entry *e, uint64_t ts_ns)
{
	uint64_t elapsed = ts_ns - e->flight_start_ns;
	double rate = (double)e->flight_bytes * 8e9 / (double)elapsed;
	struct threshold_value r = link_threshold_get(d->threshold);
	d->n.flights_ended++;
	e->rate_bps = rate;
	if (e->flight_bytes > e->peak_flight_bytes) {
		e->peak_flight_bytes = e->flight_bytes;
		e->peak_flight_start_ns = e->flight_start_ns;
	}
	int becomes = !e->cheetah && rate > r.rate_bps;
	if (becomes) {
		e->cheetah = 1;
		e->detected_ns = ts_ns;
		e->threshold_bps = r.rate_bps;
		e->threshold_version = r.version;
	}
	if (rate >= d->cfg.flight_floor_bps && d->cfg.flight_floor_bps > 0) {
		struct probe_event ev;
		fill_flow_event(&ev, d, e, EV_FLIGHT);
		ev.time_ns = ts_ns;
		ev.start_ns = e->flight_start_ns;
		ev.elapsed_ns = elapsed;
		ev.bytes = e->flight_bytes;
		ev.packets = e->flight_packets;
		ev.threshold_bps = r.rate_bps;
		ev.threshold_version = r.version;
		emit(d, &ev);
		d->n.flights_exported++;
	}
	if (becomes) {
		struct probe_event ev;
		fill_flow_event(&ev, d, e, EV_CHEETAH_START);
		ev.time_ns = ts_ns;
		ev.seq = ++e->seq;
		emit(d, &ev);
		d->n.cheetahs_started++;
	}
	return e->cheetah;
}

static void start_flight(struct flight_entry *e, uint64_t ts_ns, uint32_t len)
{
	e->flight_start_ns = ts_ns;
	e->flight_bytes = len;
	e->flight_packets = 1;
}

static struct flight_entry *create_entry(struct flight_detector *d, const struct packet_meta *m, uint64_t hash,
					 uint64_t ts_ns)
{
	if (d->cfg.drop_proto[m->key.proto]) {
		d->n.filtered_protocol++;
		return 0;
	}
	if (m->ip_len < d->cfg.min_length) {
		d->n.filtered_length++;
		return 0;
	}
	if (!d->cfg.sample_every_packet && d->cfg.sampling < 1.0 && next_unit(d) >= d->cfg.sampling) {
		d->n.sampled_out++;
		return 0;
	}
	if (flight_cache_full(&d->cache)) {
		struct flight_entry *old = flight_cache_oldest(&d->cache);
		d->n.evictions++;
		if (old->cheetah)
			d->n.evicted_cheetahs++;
		drop_entry(d, old, END_EVICTED);
	}
	struct flight_entry *e = flight_cache_insert(&d->cache, &m->key, hash);
	e->created_ns = ts_ns;
	d->n.entries_created++;
	return e;
}

int detector_packet(struct flight_detector *d, const struct packet_meta *m, uint64_t ts_ns)
{
	return detector_packet_hashed(d, m, flow_key_hash(&m->key), ts_ns);
}

int detector_packet_hashed(struct flight_detector *d, const struct packet_meta *m_in, uint64_t hash, uint64_t ts_ns)
{
	const struct packet_meta *m = m_in;
	struct packet_meta scaled;
	if (d->cfg.sample_every_packet && d->cfg.sampling < 1.0) {
		if (next_unit(d) >= d->cfg.sampling) {
			d->n.sampled_out++;
			return 0;
		}
		if (d->cfg.sample_every_packet == SAMPLE_PACKETS_SCALED) {
			scaled = *m_in;
			scaled.ip_len = (uint32_t)(m_in->ip_len / d->cfg.sampling);
			m = &scaled;
		}
	}
	struct flight_entry *e = flight_cache_find(&d->cache, &m->key, hash);
	d->n.packets++;
	d->n.bytes += m->ip_len;
	if (e) {
		d->n.cache_hits++;
		if (e->cheetah && ts_ns - e->last_ns > d->cfg.idle_ns) {
			drop_entry(d, e, END_IDLE); /* the packet then starts afresh */
			d->n.idle_expired++;
			e = 0;
		} else if (ts_ns - e->flight_start_ns > d->cfg.flight_ns) {
			if (!end_flight(d, e, ts_ns)) {
				flight_cache_remove(&d->cache, e); /* not a cheetah: next flight starts anew */
				e = 0;
			} else {
				start_flight(e, ts_ns, m->ip_len);
				goto counted;
			}
		} else {
			e->flight_bytes += m->ip_len;
			e->flight_packets++;
			goto counted;
		}
	} else {
		d->n.cache_misses++;
	}
	e = create_entry(d, m, hash, ts_ns);
	if (!e)
		return 0;
	start_flight(e, ts_ns, m->ip_len);
counted:
	e->bytes += m->ip_len;
	e->packets++;
	e->last_ns = ts_ns;
	flight_cache_touch(&d->cache, e);
	return e->cheetah;
}

void detector_expire_idle(struct flight_detector *d, uint64_t now_ns)
{
	struct flight_entry *e;
	while ((e = flight_cache_oldest(&d->cache)) && now_ns > e->last_ns + d->cfg.idle_ns) {
		drop_entry(d, e, END_IDLE);
		d->n.idle_expired++;
	}
}

void detector_finish(struct flight_detector *d, uint64_t now_ns)
{
	(void)now_ns;
	struct flight_entry *e;
	while ((e = flight_cache_oldest(&d->cache)))
		drop_entry(d, e, END_INPUT_DONE);
}
