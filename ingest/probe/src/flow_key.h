/* The 5-tuple a flow entry is keyed on, and the symmetric hash that pins both
 * directions of a flow to the same worker (docs/ARCHITECTURE.md, "Flight-rate cheetah"). */
#ifndef PROBE_FLOW_KEY_H
#define PROBE_FLOW_KEY_H

#include <stdint.h>
#include <string.h>

struct flow_key {
	uint8_t src[16]; /* IPv4 as IPv4-mapped IPv6 (::ffff:a.b.c.d) */
	uint8_t dst[16];
	uint16_t src_port, dst_port; /* host order; ICMP: 0 */
	uint8_t proto;
	uint8_t pad[3]; /* always zero, so keys compare with memcmp */
};

static inline int flow_key_equal(const struct flow_key *a, const struct flow_key *b)
{
	return memcmp(a, b, sizeof *a) == 0;
}

static inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Hash of the flow in one direction (the cache key). */
static inline uint64_t flow_key_hash(const struct flow_key *k)
{
	uint64_t h = mix64(load64(k->src) ^ 0x9e3779b97f4a7c15ULL);
	h = mix64(h ^ load64(k->src + 8));
	h = mix64(h ^ load64(k->dst));
	h = mix64(h ^ load64(k->dst + 8));
	return mix64(h ^ ((uint64_t)k->src_port << 24 | (uint64_t)k->dst_port << 8 | k->proto));
}

/* Same value for (a -> b) and (b -> a): sums and xors commute. */
static inline uint64_t flow_key_symmetric_hash(const struct flow_key *k)
{
	uint64_t a = mix64(load64(k->src) + 1) + mix64(load64(k->src + 8) + 2);
	uint64_t b = mix64(load64(k->dst) + 1) + mix64(load64(k->dst + 8) + 2);
	uint64_t ports = (uint64_t)(k->src_port ^ k->dst_port) | (uint64_t)(k->src_port + k->dst_port) << 17;
	return mix64((a ^ b) + (a + b) * 31 + mix64(ports) + k->proto);
}

#endif
