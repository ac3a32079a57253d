/* The ground-truth file: totals, per-bin byte counts and every injected flow. */
#ifndef TRACEGEN_TRUTH_WRITER_H
#define TRACEGEN_TRUTH_WRITER_H

#include <stdint.h>

#include "cheetah_inject.h"

struct trace_truth {
	uint64_t seed;
	double scale, seconds, rate_threshold_bps, link_bps;
	uint64_t start_epoch_s;
	uint64_t packets, ip_bytes, wire_bytes, flows;
	uint32_t bin_ms, bins;
	uint64_t *bin_bytes, *bin_packets; /* IP bytes and packets per bin */
	uint32_t n_cheetahs;
	const struct injected_cheetah *cheetahs;
};

/* Returns 0, or -1 with errno set. */
int truth_write_json(const char *path, const struct trace_truth *t);

/* "198.18.255.1" or "2001:db8::1" for a 16-byte address (IPv4-mapped or IPv6). */
void address_text(const uint8_t a[16], uint8_t family, char *out, unsigned size);

#endif
