/* Per-worker bins and their merge: sums, order, gaps, the release rule. */
#include "../src/bin_merger.h"
#include "../src/link_bins.h"
#include "check.h"

#define MS 1000000ull

struct released {
	struct merged_bin b[64];
	int n;
};

static void on_ready(void *ctx, const struct merged_bin *bin)
{
	struct released *r = ctx;
	if (r->n < 64)
		r->b[r->n++] = *bin;
}

static int to_merger(void *ctx, const struct probe_event *ev)
{
	bin_merger_add(ctx, ev);
	return 0;
}

/* Two workers; worker 0 has packets in bins 0 and 3, worker 1 in bins 0 and
 * 1. Bin 0 is released only once both have moved past it; bin 2 is a zero. */
static void two_workers_merge_in_order(void)
{
	struct released r = {0};
	struct bin_merger m;
	bin_merger_init(&m, 2, 100 * MS, on_ready, &r);
	struct event_sink sink = {to_merger, &m};
	struct link_bins w0, w1;
	link_bins_init(&w0, 100 * MS, 0);
	link_bins_init(&w1, 100 * MS, 1);
	link_bins_add(&w0, 10 * MS, 1000, 0, &sink);
	link_bins_add(&w1, 20 * MS, 500, 1, &sink);
	link_bins_add(&w0, 99 * MS, 1000, 1, &sink);
	link_bins_add(&w0, 300 * MS, 7, 0, &sink); /* w0 moves to bin 3; w1 still in bin 0 */
	CHECK_EQ_U(r.n, 0);
	link_bins_add(&w1, 150 * MS, 40, 0, &sink); /* w1 moves to bin 1: bin 0 is complete */
	CHECK_EQ_U(r.n, 1);
	CHECK_EQ_U(r.b[0].start_ns, 0);
	CHECK_EQ_U(r.b[0].bytes, 2500);
	CHECK_EQ_U(r.b[0].packets, 3);
	CHECK_EQ_U(r.b[0].cheetah_bytes, 1500);
	link_bins_close(&w1, &sink);
	CHECK_EQ_U(r.n, 2); /* bin 1 (w0 is at bin 3, w1 done) */
	link_bins_close(&w0, &sink);
	CHECK_EQ_U(r.n, 4); /* bin 2 (zero), bin 3 */
	CHECK_EQ_U(r.b[1].bytes, 40);
	CHECK_EQ_U(r.b[2].start_ns, 200 * MS);
	CHECK_EQ_U(r.b[2].packets, 0);
	CHECK_EQ_U(r.b[3].bytes, 7);
	uint64_t total = 0;
	for (int i = 0; i < r.n; i++)
		total += r.b[i].bytes;
	CHECK_EQ_U(total, 2547);
}

void run_bin_tests(void);
void run_bin_tests(void) { RUN("bins", two_workers_merge_in_order); }
