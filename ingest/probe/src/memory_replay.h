/* Benchmark input: a pcap loaded into memory once, split by the symmetric
 * flow hash into one share per worker (what RSS would do), so that replay
 * measures the probe, not the disk or the PMD. */
#ifndef PROBE_MEMORY_REPLAY_H
#define PROBE_MEMORY_REPLAY_H

#include <stdint.h>

struct memory_record {
	uint64_t ts_ns;
	uint32_t caplen, wire_len;
	/* caplen bytes follow, padded to 8 */
};

struct memory_share {
	uint8_t *blob;
	uint64_t used, cap;
	uint64_t packets;
};

/* Loads path into shares[0..workers). Returns total packets, or -1 with a message. */
int64_t memory_replay_load(const char *path, uint32_t workers, struct memory_share *shares);
void memory_replay_free(struct memory_share *s);

static inline uint32_t memory_record_size(uint32_t caplen)
{
	return (uint32_t)sizeof(struct memory_record) + ((caplen + 7u) & ~7u);
}

#endif
