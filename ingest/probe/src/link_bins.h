/* Exact bytes and packets of all traffic per T1 bin (probe.bins.v1): each
 * worker counts its share; bin_merger.c adds the shares of all workers. */
#ifndef PROBE_LINK_BINS_H
#define PROBE_LINK_BINS_H

#include <stdint.h>

#include "probe_event.h"

struct link_bins {
	uint64_t bin_ns;
	uint64_t start_ns; /* of the current bin */
	uint64_t bytes, packets, cheetah_bytes;
	uint16_t worker;
	uint8_t open;
};

void link_bins_init(struct link_bins *b, uint64_t bin_ns, uint16_t worker);

/* Counts a packet; emits the previous bin when ts_ns is past it. */
void link_bins_add(struct link_bins *b, uint64_t ts_ns, uint32_t bytes, int cheetah, struct event_sink *sink);

/* Moves the clock to now_ns without a packet (an idle worker). */
void link_bins_advance(struct link_bins *b, uint64_t now_ns, struct event_sink *sink);

/* Emits the current bin and marks the worker finished (next_bin_ns = UINT64_MAX). */
void link_bins_close(struct link_bins *b, struct event_sink *sink);

#endif
