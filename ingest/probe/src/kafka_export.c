#include "kafka_export.h"

#include <inttypes.h>
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cheetah/v1/cheetahs.pb-c.h"
#include "cheetah/v1/probe.pb-c.h"
#include "cheetah/v1/thresholds.pb-c.h"
#include "topics.h" /* generated from schemas/topics.yaml */

/* Cheetah events are what a redirect waits for: they go through a producer of
 * their own that sends each at once. Everything else (flights, bins, packet
 * summaries, counters: many records, nobody waits on one) is batched for up
 * to BULK_LINGER_MS. Two producers, because librdkafka's linger is per
 * producer. */
#define BULK_LINGER_MS "50"
#define CHEETAH_LINGER_MS "0"

struct kafka_export {
	const struct probe_options *o;
	rd_kafka_t *producer, *urgent, *consumer; /* urgent: cheetahs.v1 only */
	rd_kafka_topic_t *cheetahs, *flights, *bins, *packets, *counters;
	struct link_threshold *thr;
	struct kafka_counters n;
	int thresholds_assigned;
};

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
	(void)rk;
	struct kafka_export *k = opaque;
	if (m->err)
		k->n.failed++;
	else
		k->n.delivered++;
}

static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
	(void)rk;
	if (level <= 4) /* warnings and worse: a broker going away is worth a line */
		fprintf(stderr, "cheetah-probe: kafka %s: %s\n", fac, buf);
}

static int set(rd_kafka_conf_t *c, const char *key, const char *val)
{
	char err[256];
	if (rd_kafka_conf_set(c, key, val, err, sizeof err) != RD_KAFKA_CONF_OK) {
		fprintf(stderr, "cheetah-probe: kafka setting %s=%s refused: %s\n", key, val, err);
		return -1;
	}
	return 0;
}

/* --kafka-config: key=value lines ('#' comments, blank lines) set on c. */
static int set_file(rd_kafka_conf_t *c, const char *path)
{
	if (!path)
		return 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cheetah-probe: --kafka-config %s: cannot read it\n", path);
		return -1;
	}
	char line[1024];
	int n = 0, rc = 0;
	while (rc == 0 && fgets(line, sizeof line, f)) {
		n++;
		size_t len = strcspn(line, "\r\n");
		line[len] = '\0';
		char *key = line;
		while (*key == ' ' || *key == '\t')
			key++;
		if (*key == '\0' || *key == '#')
			continue;
		char *eq = strchr(key, '=');
		if (!eq || eq == key) {
			fprintf(stderr, "cheetah-probe: --kafka-config %s:%d: not a key=value line\n", path, n);
			rc = -1;
			break;
		}
		*eq = '\0';
		char err[256];
		if (rd_kafka_conf_set(c, key, eq + 1, err, sizeof err) != RD_KAFKA_CONF_OK) {
			/* The value may be a password: name the key only. */
			fprintf(stderr, "cheetah-probe: --kafka-config %s:%d: %s refused: %s\n", path, n, key, err);
			rc = -1;
		}
	}
	fclose(f);
	return rc;
}

static rd_kafka_t *make_producer(struct kafka_export *k, const char *linger_ms)
{
	char queue[32], err[512];
	snprintf(queue, sizeof queue, "%u", k->o->kafka_queue);
	rd_kafka_conf_t *c = rd_kafka_conf_new();
	if (set(c, "bootstrap.servers", k->o->kafka) || set(c, "compression.codec", k->o->compression) ||
	    set(c, "linger.ms", linger_ms) || set(c, "batch.num.messages", "10000") ||
	    set(c, "queue.buffering.max.messages", queue) || set(c, "message.timeout.ms", "60000") ||
	    set(c, "reconnect.backoff.ms", "100") || set(c, "reconnect.backoff.max.ms", "1000") ||
	    set(c, "acks", "all") || set(c, "client.id", k->o->probe_id) || set_file(c, k->o->kafka_config)) {
		rd_kafka_conf_destroy(c);
		return NULL;
	}
	rd_kafka_conf_set_dr_msg_cb(c, on_delivery);
	rd_kafka_conf_set_log_cb(c, on_log);
	rd_kafka_conf_set_opaque(c, k);
	rd_kafka_t *p = rd_kafka_new(RD_KAFKA_PRODUCER, c, err, sizeof err);
	if (!p)
		fprintf(stderr, "cheetah-probe: cannot create a Kafka producer for %s: %s\n", k->o->kafka, err);
	return p;
}

static rd_kafka_t *make_consumer(struct kafka_export *k)
{
	char group[256], err[512];
	snprintf(group, sizeof group, "cheetah-probe-%s", k->o->probe_id);
	rd_kafka_conf_t *c = rd_kafka_conf_new();
	if (set(c, "bootstrap.servers", k->o->kafka) || set(c, "group.id", group) ||
	    set(c, "enable.auto.commit", "false") || set(c, "reconnect.backoff.max.ms", "1000") ||
	    set_file(c, k->o->kafka_config)) {
		rd_kafka_conf_destroy(c);
		return NULL;
	}
	rd_kafka_conf_set_log_cb(c, on_log);
	rd_kafka_t *r = rd_kafka_new(RD_KAFKA_CONSUMER, c, err, sizeof err);
	if (!r)
		fprintf(stderr, "cheetah-probe: cannot create a Kafka consumer for %s: %s\n", k->o->kafka, err);
	return r;
}

/* thresholds.v1 is compacted and keyed by link: read every partition from the
 * start, no consumer group needed. Retried from poll until metadata arrives. */
static void assign_thresholds(struct kafka_export *k)
{
	const struct rd_kafka_metadata *md;
	rd_kafka_topic_t *t = rd_kafka_topic_new(k->consumer, TOPIC_THRESHOLDS, NULL);
	if (rd_kafka_metadata(k->consumer, 0, t, &md, 200) == RD_KAFKA_RESP_ERR_NO_ERROR) {
		if (md->topic_cnt == 1 && md->topics[0].err == 0 && md->topics[0].partition_cnt > 0) {
			rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(md->topics[0].partition_cnt);
			for (int i = 0; i < md->topics[0].partition_cnt; i++)
				rd_kafka_topic_partition_list_add(l, TOPIC_THRESHOLDS, md->topics[0].partitions[i].id)->offset =
					RD_KAFKA_OFFSET_BEGINNING;
			if (rd_kafka_assign(k->consumer, l) == 0)
				k->thresholds_assigned = 1;
			rd_kafka_topic_partition_list_destroy(l);
		}
		rd_kafka_metadata_destroy(md);
	}
	rd_kafka_topic_destroy(t);
}

struct kafka_export *kafka_export_open(const struct probe_options *o, struct link_threshold *thr)
{
	struct kafka_export *k = calloc(1, sizeof *k);
	if (!k)
		return NULL;
	k->o = o;
	k->thr = thr;
	k->n.threshold_version = -1;
	if (!(k->producer = make_producer(k, BULK_LINGER_MS)) || !(k->urgent = make_producer(k, CHEETAH_LINGER_MS)) ||
	    !(k->consumer = make_consumer(k))) {
		if (k->producer)
			rd_kafka_destroy(k->producer);
		if (k->urgent)
			rd_kafka_destroy(k->urgent);
		free(k);
		return NULL;
	}
	k->cheetahs = rd_kafka_topic_new(k->urgent, TOPIC_CHEETAHS, NULL);
	k->flights = rd_kafka_topic_new(k->producer, TOPIC_PROBE_FLIGHTS, NULL);
	k->bins = rd_kafka_topic_new(k->producer, TOPIC_PROBE_BINS, NULL);
	k->packets = rd_kafka_topic_new(k->producer, TOPIC_PROBE_PACKETS, NULL);
	k->counters = rd_kafka_topic_new(k->producer, TOPIC_PROBE_COUNTERS, NULL);
	assign_thresholds(k);
	return k;
}

/* Delivery reports of both producers (they count into k->n). */
static void poll_producers(struct kafka_export *k)
{
	rd_kafka_poll(k->urgent, 0);
	rd_kafka_poll(k->producer, 0);
}

static void produce(struct kafka_export *k, rd_kafka_topic_t *t, const char *key, void *buf, size_t len)
{
	if (rd_kafka_produce(t, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_FREE, buf, len, key, strlen(key), NULL) == 0) {
		k->n.produced++;
		return;
	}
	free(buf);
	k->n.queue_full++; /* bounded queue full (Kafka away too long): counted, not retried */
}

#define PACK(k, topic, key, msg, fn)                                  \
	do {                                                          \
		size_t len_ = fn##__get_packed_size(msg);             \
		uint8_t *buf_ = malloc(len_ ? len_ : 1);              \
		if (!buf_) {                                          \
			(k)->n.queue_full++;                          \
			break;                                        \
		}                                                     \
		fn##__pack(msg, buf_);                                \
		produce(k, topic, key, buf_, len_);                   \
	} while (0)

static ProtobufCBinaryData addr(const uint8_t *a) { return (ProtobufCBinaryData){16, (uint8_t *)a}; }

/* The 5-tuple fields share names in CheetahEvent, Flight and PacketSummary. */
#define SET_FIVE_TUPLE(m, ev)                          \
	do {                                           \
		(m).src_addr = addr((ev)->key.src);    \
		(m).dst_addr = addr((ev)->key.dst);    \
		(m).src_port = (ev)->key.src_port;     \
		(m).dst_port = (ev)->key.dst_port;     \
		(m).proto = (ev)->key.proto;           \
	} while (0)

static void send_cheetah(struct kafka_export *k, const struct probe_event *ev, const char *id)
{
	Cheetah__V1__CheetahEvent m = CHEETAH__V1__CHEETAH_EVENT__INIT;
	m.flow_id = (char *)id;
	m.type = ev->type == EV_CHEETAH_START ? CHEETAH__V1__CHEETAH_EVENT_TYPE__CHEETAH_EVENT_TYPE_START
					      : CHEETAH__V1__CHEETAH_EVENT_TYPE__CHEETAH_EVENT_TYPE_END;
	m.source = CHEETAH__V1__DETECTION_SOURCE__DETECTION_SOURCE_PROBE;
	m.event_ms = ev->time_ns / 1000000u;
	m.seq = ev->seq;
	m.link_id = (char *)k->o->link_id;
	SET_FIVE_TUPLE(m, ev);
	m.start_ms = ev->start_ns / 1000000u;
	m.end_ms = ev->type == EV_CHEETAH_END ? ev->time_ns / 1000000u : 0;
	m.bytes = ev->bytes;
	m.packets = ev->packets;
	m.peak_interval_bytes = ev->peak_bytes;
	m.peak_interval_start_ms = ev->peak_start_ns / 1000000u;
	m.rate_bps = ev->rate_bps;
	m.threshold_version = ev->threshold_version;
	m.threshold_bps = ev->threshold_bps;
	PACK(k, k->cheetahs, id, &m, cheetah__v1__cheetah_event);
}

static void send_flight(struct kafka_export *k, const struct probe_event *ev, const char *id)
{
	Cheetah__V1__Flight m = CHEETAH__V1__FLIGHT__INIT;
	m.flow_id = (char *)id;
	m.link_id = (char *)k->o->link_id;
	m.probe_id = (char *)k->o->probe_id;
	SET_FIVE_TUPLE(m, ev);
	m.first_ns = ev->start_ns;
	m.elapsed_ns = ev->elapsed_ns;
	m.bytes = ev->bytes;
	m.packets = ev->packets;
	m.rate_bps = ev->rate_bps;
	m.cheetah = ev->cheetah;
	m.threshold_version = ev->threshold_version;
	m.threshold_bps = ev->threshold_bps;
	PACK(k, k->flights, id, &m, cheetah__v1__flight);
}

static void send_packet(struct kafka_export *k, const struct probe_event *ev, const char *id)
{
	Cheetah__V1__PacketSummary m = CHEETAH__V1__PACKET_SUMMARY__INIT;
	m.flow_id = (char *)id;
	m.link_id = (char *)k->o->link_id;
	m.ts_ns = ev->time_ns;
	SET_FIVE_TUPLE(m, ev);
	m.length = ev->length;
	m.tcp_flags = ev->tcp_flags;
	m.tcp_window = ev->tcp_window;
	m.sampling_rate = (uint32_t)ev->packets;
	PACK(k, k->packets, id, &m, cheetah__v1__packet_summary);
}

void kafka_export_event(struct kafka_export *k, const struct probe_event *ev)
{
	char id[17];
	snprintf(id, sizeof id, "%016" PRIx64, ev->flow_id);
	switch (ev->type) {
	case EV_CHEETAH_START:
	case EV_CHEETAH_END: send_cheetah(k, ev, id); break;
	case EV_FLIGHT: send_flight(k, ev, id); break;
	case EV_PACKET: send_packet(k, ev, id); break;
	default: break;
	}
	poll_producers(k);
}

void kafka_export_bin(struct kafka_export *k, const struct merged_bin *b)
{
	Cheetah__V1__LinkBin m = CHEETAH__V1__LINK_BIN__INIT;
	m.link_id = (char *)k->o->link_id;
	m.probe_id = (char *)k->o->probe_id;
	m.bin_start_ms = b->start_ns / 1000000u;
	m.bin_ms = (uint32_t)(b->bin_ns / 1000000u);
	m.bytes = b->bytes;
	m.packets = b->packets;
	m.cheetah_bytes = b->cheetah_bytes;
	PACK(k, k->bins, k->o->link_id, &m, cheetah__v1__link_bin);
}

void kafka_export_probe_counters(struct kafka_export *k, const struct live_counters *c)
{
	const struct detector_counters *d = &c->t->d;
	const struct worker_counters *w = &c->t->w;
	struct threshold_value thr = link_threshold_get(k->thr);
	Cheetah__V1__ProbeCounters m = CHEETAH__V1__PROBE_COUNTERS__INIT;
	m.probe_id = (char *)k->o->probe_id;
	m.link_id = (char *)k->o->link_id;
	m.started_ms = c->started_ms;
	m.at_ms = c->at_ms;
	m.at_exit = c->at_exit;
	m.packets = c->t->packets;
	m.bytes = c->bytes;
	m.not_ip = w->parse[PARSE_NOT_IP];
	m.truncated_l2 = w->parse[PARSE_TRUNCATED_L2];
	m.truncated_l3 = w->parse[PARSE_TRUNCATED_L3];
	m.truncated_l4 = w->parse[PARSE_TRUNCATED_L4];
	m.bad_ip_header = w->parse[PARSE_BAD_IP_HEADER];
	m.bad_l4_header = w->parse[PARSE_BAD_L4_HEADER];
	m.fragment = w->parse[PARSE_FRAGMENT];
	m.too_many_headers = w->parse[PARSE_TOO_MANY_HEADERS];
	m.filtered_protocol = d->filtered_protocol;
	m.filtered_length = d->filtered_length;
	m.sampled_out = d->sampled_out;
	m.cache_hits = d->cache_hits;
	m.cache_misses = d->cache_misses;
	m.entries_created = d->entries_created;
	m.evictions = d->evictions;
	m.evicted_cheetahs = d->evicted_cheetahs;
	m.idle_expired = d->idle_expired;
	m.flights_ended = d->flights_ended;
	m.flights_exported = d->flights_exported;
	m.cheetahs_started = d->cheetahs_started;
	m.cheetahs_ended = d->cheetahs_ended;
	m.packets_sampled = w->packets_sampled;
	m.export_drops = w->events_dropped;
	m.distributor_drops = c->distributor_drops;
	m.port_missed = c->port_missed;
	m.port_nombuf = c->port_nombuf;
	m.kafka_produced = k->n.produced;
	m.kafka_delivered = k->n.delivered;
	m.kafka_undeliverable = k->n.failed + k->n.queue_full;
	m.threshold_version = thr.version;
	m.threshold_bps = thr.rate_bps;
	PACK(k, k->counters, k->o->probe_id, &m, cheetah__v1__probe_counters);
	poll_producers(k);
}

static void apply_threshold(struct kafka_export *k, const rd_kafka_message_t *msg)
{
	Cheetah__V1__Threshold *t = cheetah__v1__threshold__unpack(NULL, msg->len, msg->payload);
	if (!t) {
		k->n.thresholds_ignored++;
		fprintf(stderr, "cheetah-probe: " TOPIC_THRESHOLDS " offset %" PRId64 ": not a Threshold message, ignored\n",
			msg->offset);
		return;
	}
	struct threshold_value now = link_threshold_get(k->thr);
	switch (link_threshold_offer(k->thr, k->o->link_id, t->link_id, t->rate_bps, t->version)) {
	case THRESHOLD_APPLIED:
		k->n.threshold_version = (int64_t)t->version;
		k->n.thresholds_applied++;
		break;
	case THRESHOLD_OTHER_LINK: k->n.thresholds_ignored++; break;
	case THRESHOLD_OLDER:
		k->n.thresholds_refused++;
		fprintf(stderr,
			"cheetah-probe: " TOPIC_THRESHOLDS " offset %" PRId64 ": %s version %" PRIu64 " is older than version %" PRIu64
			" in force (R = %.0f b/s), ignored; publish thresholds with increasing versions\n",
			msg->offset, k->o->link_id, t->version, now.version, now.rate_bps);
		break;
	case THRESHOLD_NO_RATE:
		k->n.thresholds_refused++;
		fprintf(stderr,
			"cheetah-probe: " TOPIC_THRESHOLDS " offset %" PRId64 ": %s version %" PRIu64 " has rate_bps %g, not a positive "
			"number; ignored, R stays %.0f b/s\n",
			msg->offset, k->o->link_id, t->version, t->rate_bps, now.rate_bps);
		break;
	}
	cheetah__v1__threshold__free_unpacked(t, NULL);
}

void kafka_export_poll(struct kafka_export *k)
{
	poll_producers(k);
	if (!k->thresholds_assigned) {
		assign_thresholds(k);
		return;
	}
	rd_kafka_message_t *m;
	while ((m = rd_kafka_consumer_poll(k->consumer, 0))) {
		if (!m->err)
			apply_threshold(k, m);
		rd_kafka_message_destroy(m);
	}
}

static int caught_up(struct kafka_export *k)
{
	rd_kafka_topic_partition_list_t *l = NULL;
	if (rd_kafka_assignment(k->consumer, &l) || !l)
		return 0;
	int done = rd_kafka_position(k->consumer, l) == 0;
	for (int i = 0; done && i < l->cnt; i++) {
		int64_t lo, hi;
		if (rd_kafka_query_watermark_offsets(k->consumer, TOPIC_THRESHOLDS, l->elems[i].partition, &lo, &hi, 500))
			done = 0;
		else if (hi > lo && (l->elems[i].offset < 0 || l->elems[i].offset < hi))
			done = 0;
	}
	rd_kafka_topic_partition_list_destroy(l);
	return done;
}

int kafka_export_sync_thresholds(struct kafka_export *k, int timeout_ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		kafka_export_poll(k);
		if (k->thresholds_assigned && caught_up(k))
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > timeout_ms)
			return 0;
		rd_kafka_message_t *m = rd_kafka_consumer_poll(k->consumer, 50); /* waits for data, not a sleep */
		if (m) {
			if (!m->err)
				apply_threshold(k, m);
			rd_kafka_message_destroy(m);
		}
	}
}

const struct kafka_counters *kafka_export_counters(const struct kafka_export *k) { return &k->n; }

void kafka_export_close(struct kafka_export *k, int timeout_ms, struct kafka_counters *out)
{
	/* Both drain at once (each has its own threads); the second flush gets
	 * what is left of timeout_ms. */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rd_kafka_flush(k->urgent, timeout_ms);
	clock_gettime(CLOCK_MONOTONIC, &t);
	long spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
	rd_kafka_flush(k->producer, spent < timeout_ms ? (int)(timeout_ms - spent) : 0);
	/* Whatever is still queued now will not be delivered: purge it so its
	 * delivery reports count it as failed. */
	rd_kafka_purge(k->urgent, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
	rd_kafka_purge(k->producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
	rd_kafka_poll(k->urgent, 100);
	rd_kafka_poll(k->producer, 100);
	rd_kafka_topic_destroy(k->cheetahs);
	rd_kafka_topic_destroy(k->flights);
	rd_kafka_topic_destroy(k->bins);
	rd_kafka_topic_destroy(k->packets);
	rd_kafka_topic_destroy(k->counters);
	rd_kafka_consumer_close(k->consumer);
	rd_kafka_destroy(k->consumer);
	rd_kafka_destroy(k->urgent);
	rd_kafka_destroy(k->producer);
	if (out)
		*out = k->n;
	free(k);
}
