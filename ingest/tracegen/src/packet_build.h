/* Header-only frames, the way CAIDA-style traces store them: every header up
 * to L4 is present and correct, the payload is cut off (the pcap record keeps
 * the true wire length, the IP length field the true IP size). */
#ifndef TRACEGEN_PACKET_BUILD_H
#define TRACEGEN_PACKET_BUILD_H

#include <stdint.h>

enum frag_kind { FRAG_NONE = 0, FRAG_FIRST, FRAG_LATER };

struct packet_spec {
	uint8_t family; /* 4 or 6 */
	uint8_t proto;  /* 6 TCP, 17 UDP, 1 ICMP, 58 ICMPv6 */
	uint8_t vlans;  /* 0, 1 (802.1Q) or 2 (QinQ) */
	uint8_t tcp_flags;
	uint8_t frag;   /* enum frag_kind, IPv4 only */
	uint16_t vlan_id;
	uint16_t sport, dport;
	uint16_t ip_id;
	uint32_t ip_len; /* IPv4 total length / IPv6 40 + payload length */
	uint32_t seq;
	uint8_t src[16], dst[16]; /* IPv4 in the last four bytes */
};

/* Largest frame packet_build writes: Ethernet + 2 tags + IPv6 + TCP. */
#define PACKET_BUILD_MAX 128

/* Writes the headers into out; returns the captured length and sets *wire_len
 * to the frame's length on the wire. */
uint32_t packet_build(const struct packet_spec *p, uint8_t *out, uint32_t *wire_len);

/* The smallest IP length that still holds the headers of p's protocol. */
uint32_t packet_min_ip_len(uint8_t family, uint8_t proto);

#endif
