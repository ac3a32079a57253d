#include "bin_merger.h"

#include <string.h>

void bin_merger_init(struct bin_merger *m, uint32_t workers, uint64_t bin_ns, bin_ready_fn ready, void *ctx)
{
	memset(m, 0, sizeof *m);
	m->workers = workers < BIN_MERGER_MAX_WORKERS ? workers : BIN_MERGER_MAX_WORKERS;
	m->bin_ns = bin_ns;
	m->ready = ready;
	m->ctx = ctx;
}

static void release(struct bin_merger *m, const struct merged_bin *b)
{
	/* Fill a gap since the last released bin with zeros. */
	if (m->next_start && b->start_ns > m->next_start &&
	    (b->start_ns - m->next_start) / m->bin_ns <= BIN_MERGER_MAX_GAP) {
		for (uint64_t t = m->next_start; t < b->start_ns; t += m->bin_ns) {
			struct merged_bin zero = {t, m->bin_ns, 0, 0, 0};
			m->ready(m->ctx, &zero);
		}
	}
	m->ready(m->ctx, b);
	m->next_start = b->start_ns + m->bin_ns;
}

static void release_first(struct bin_merger *m)
{
	release(m, &m->open[0]);
	memmove(&m->open[0], &m->open[1], (m->n_open - 1) * sizeof m->open[0]);
	m->n_open--;
}

static uint64_t slowest_worker(const struct bin_merger *m)
{
	uint64_t min = UINT64_MAX;
	for (uint32_t w = 0; w < m->workers; w++)
		if (m->progress[w] < min)
			min = m->progress[w];
	return min;
}

void bin_merger_add(struct bin_merger *m, const struct probe_event *s)
{
	if (s->worker < m->workers && s->next_bin_ns > m->progress[s->worker])
		m->progress[s->worker] = s->next_bin_ns;
	if (s->packets) {
		uint32_t i = 0;
		while (i < m->n_open && m->open[i].start_ns < s->start_ns)
			i++;
		if (i == m->n_open || m->open[i].start_ns != s->start_ns) {
			if (m->n_open == BIN_MERGER_OPEN) {
				m->forced++;
				release_first(m);
				if (i > 0)
					i--;
			}
			memmove(&m->open[i + 1], &m->open[i], (m->n_open - i) * sizeof m->open[0]);
			m->open[i] = (struct merged_bin){s->start_ns, s->elapsed_ns, 0, 0, 0};
			m->n_open++;
		}
		m->open[i].bytes += s->bytes;
		m->open[i].packets += s->packets;
		m->open[i].cheetah_bytes += s->cheetah_bytes;
	}
	uint64_t done = slowest_worker(m);
	while (m->n_open && m->open[0].start_ns + m->bin_ns <= done)
		release_first(m);
}

void bin_merger_flush(struct bin_merger *m)
{
	while (m->n_open)
		release_first(m);
}
