/* Counter totals and the seqlock snapshot the export thread reads live. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "../src/probe_counters.h"
#include "check.h"

static void totals_sum_workers_and_count_every_parse_result(void)
{
	struct detector_counters d1 = {0}, d2 = {0};
	struct worker_counters w1 = {0}, w2 = {0};
	d1.cache_hits = 5;
	d2.cache_hits = 7;
	d1.cheetahs_started = 1;
	d2.export_failed = 3;
	w1.parse[PARSE_OK] = 100;
	w1.parse[PARSE_FRAGMENT] = 2;
	w2.parse[PARSE_OK] = 50;
	w2.parse[PARSE_TRUNCATED_L3] = 1;
	w1.events_dropped = 4;
	w2.packets_sampled = 9;
	w1.busy_ns = 10;
	w2.busy_ns = 30;
	struct probe_totals t;
	probe_totals_clear(&t);
	probe_totals_add(&t, &d1, &w1);
	probe_totals_add(&t, &d2, &w2);
	CHECK_EQ_U(t.d.cache_hits, 12);
	CHECK_EQ_U(t.d.cheetahs_started, 1);
	CHECK_EQ_U(t.d.export_failed, 3);
	CHECK_EQ_U(t.w.parse[PARSE_OK], 150);
	CHECK_EQ_U(t.w.parse[PARSE_FRAGMENT], 2);
	CHECK_EQ_U(t.w.parse[PARSE_TRUNCATED_L3], 1);
	CHECK_EQ_U(t.packets, 153);
	CHECK_EQ_U(t.w.events_dropped, 4);
	CHECK_EQ_U(t.w.packets_sampled, 9);
	CHECK_EQ_U(t.w.busy_ns, 30); /* the slowest worker, not a sum */
}

static void a_snapshot_reads_back_what_was_published(void)
{
	static struct counter_snapshot s;
	struct detector_counters d = {0}, rd;
	struct worker_counters w = {0}, rw;
	d.evictions = 42;
	d.bytes = 1u << 30;
	w.parse[PARSE_NOT_IP] = 3;
	counter_snapshot_publish(&s, &d, &w);
	counter_snapshot_read(&s, &rd, &rw);
	CHECK(memcmp(&rd, &d, sizeof d) == 0);
	CHECK(memcmp(&rw, &w, sizeof w) == 0);
	CHECK_EQ_U(atomic_load(&s.seq) & 1, 0);
}

/* A writer publishes copies in which every word holds the same number n, for
 * n = 1, 2, ...; a reader must never see words from two different copies. */
#define ROUNDS 200000u

static struct counter_snapshot shared;
static _Atomic int writer_done;

static void fill(struct detector_counters *d, struct worker_counters *w, uint64_t n)
{
	uint64_t *a = (uint64_t *)d, *b = (uint64_t *)w;
	for (size_t i = 0; i < sizeof *d / 8; i++)
		a[i] = n;
	for (size_t i = 0; i < sizeof *w / 8; i++)
		b[i] = n;
}

static void *writer(void *arg)
{
	(void)arg;
	struct detector_counters d;
	struct worker_counters w;
	for (uint64_t n = 1; n <= ROUNDS; n++) {
		fill(&d, &w, n);
		counter_snapshot_publish(&shared, &d, &w);
	}
	atomic_store(&writer_done, 1);
	return NULL;
}

static void a_reader_never_sees_a_torn_copy(void)
{
	pthread_t t;
	CHECK(pthread_create(&t, NULL, writer, NULL) == 0);
	uint64_t torn = 0, reads = 0, last = 0, backwards = 0;
	while (!atomic_load(&writer_done) || reads == 0) {
		struct detector_counters d;
		struct worker_counters w;
		counter_snapshot_read(&shared, &d, &w);
		uint64_t *a = (uint64_t *)&d, *b = (uint64_t *)&w, n = a[0];
		for (size_t i = 0; i < sizeof d / 8; i++)
			torn += a[i] != n;
		for (size_t i = 0; i < sizeof w / 8; i++)
			torn += b[i] != n;
		backwards += n < last;
		last = n;
		reads++;
	}
	pthread_join(t, NULL);
	CHECK_EQ_U(torn, 0);
	CHECK_EQ_U(backwards, 0);
	struct detector_counters d;
	struct worker_counters w;
	counter_snapshot_read(&shared, &d, &w);
	CHECK_EQ_U(d.packets, ROUNDS);
	CHECK_EQ_U(w.busy_ns, ROUNDS);
}

void run_counter_tests(void)
{
	RUN("counters", totals_sum_workers_and_count_every_parse_result);
	RUN("counters", a_snapshot_reads_back_what_was_published);
	RUN("counters", a_reader_never_sees_a_torn_copy);
}
