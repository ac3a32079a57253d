/* Adds the workers' shares of each T1 bin and releases a bin once every
 * worker has moved past it, in time order, with empty bins in gaps filled in
 * (a bin without packets is a zero, not a missing value, for burstiness). */
#ifndef PROBE_BIN_MERGER_H
#define PROBE_BIN_MERGER_H

#include <stdint.h>

#include "probe_event.h"

#define BIN_MERGER_OPEN 1024
#define BIN_MERGER_MAX_WORKERS 64
#define BIN_MERGER_MAX_GAP 36000 /* zero bins filled in at most (1 h of 100 ms bins) */

struct merged_bin {
	uint64_t start_ns, bin_ns, bytes, packets, cheetah_bytes;
};

typedef void (*bin_ready_fn)(void *ctx, const struct merged_bin *bin);

struct bin_merger {
	struct merged_bin open[BIN_MERGER_OPEN]; /* sorted by start_ns */
	uint32_t n_open, workers;
	uint64_t progress[BIN_MERGER_MAX_WORKERS]; /* each worker is at or past this bin */
	uint64_t bin_ns, next_start;               /* next bin to release (0: none yet) */
	uint64_t forced;                           /* bins released early because too many were open */
	bin_ready_fn ready;
	void *ctx;
};

void bin_merger_init(struct bin_merger *m, uint32_t workers, uint64_t bin_ns, bin_ready_fn ready, void *ctx);
void bin_merger_add(struct bin_merger *m, const struct probe_event *share);
/* Releases everything still open (end of input). */
void bin_merger_flush(struct bin_merger *m);

#endif
