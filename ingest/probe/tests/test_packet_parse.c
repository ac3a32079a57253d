/* The parser on hand-built frames: each layer, each malformation. */
#include <string.h>

#include "../src/packet_parse.h"
#include "check.h"

static uint32_t eth(uint8_t *f, uint16_t type)
{
	memset(f, 0, 12);
	f[12] = (uint8_t)(type >> 8), f[13] = (uint8_t)type;
	return 14;
}

static uint32_t vlan(uint8_t *f, uint32_t off, uint16_t tpid, uint16_t id, uint16_t inner)
{
	f[off - 2] = (uint8_t)(tpid >> 8), f[off - 1] = (uint8_t)tpid;
	f[off] = (uint8_t)(id >> 8), f[off + 1] = (uint8_t)id;
	f[off + 2] = (uint8_t)(inner >> 8), f[off + 3] = (uint8_t)inner;
	return off + 4;
}

static uint32_t ipv4(uint8_t *p, uint16_t total, uint8_t proto, uint16_t frag)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	p[2] = (uint8_t)(total >> 8), p[3] = (uint8_t)total;
	p[6] = (uint8_t)(frag >> 8), p[7] = (uint8_t)frag;
	p[8] = 64, p[9] = proto;
	p[12] = 198, p[13] = 18, p[14] = 0, p[15] = 1;
	p[16] = 198, p[17] = 19, p[18] = 0, p[19] = 2;
	return 20;
}

static uint32_t tcp(uint8_t *p, uint16_t sport, uint16_t dport, uint8_t flags)
{
	memset(p, 0, 20);
	p[0] = (uint8_t)(sport >> 8), p[1] = (uint8_t)sport;
	p[2] = (uint8_t)(dport >> 8), p[3] = (uint8_t)dport;
	p[12] = 5 << 4, p[13] = flags, p[14] = 0x12, p[15] = 0x34;
	return 20;
}

static uint32_t udp(uint8_t *p, uint16_t sport, uint16_t dport)
{
	memset(p, 0, 8);
	p[0] = (uint8_t)(sport >> 8), p[1] = (uint8_t)sport;
	p[2] = (uint8_t)(dport >> 8), p[3] = (uint8_t)dport;
	return 8;
}

static void ipv4_tcp_header_only_capture(void)
{
	uint8_t f[128];
	uint32_t n = eth(f, 0x0800);
	n += ipv4(f + n, 1500, 6, 0);
	n += tcp(f + n, 40000, 443, 0x18);
	struct packet_meta m;
	CHECK(packet_parse(f, n, 1514, &m) == PARSE_OK); /* payload cut off: fine */
	CHECK_EQ_U(m.ip_len, 1500);
	CHECK_EQ_U(m.key.src_port, 40000);
	CHECK_EQ_U(m.key.dst_port, 443);
	CHECK_EQ_U(m.key.proto, 6);
	CHECK_EQ_U(m.tcp_flags, 0x18);
	CHECK_EQ_U(m.tcp_window, 0x1234);
	const uint8_t mapped[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 18, 0, 1};
	CHECK(memcmp(m.key.src, mapped, 16) == 0);
	/* Every shorter capture is truncated at the layer it ends in. */
	for (uint32_t cut = 0; cut < n; cut++) {
		enum parse_status want = cut < 14 ? PARSE_TRUNCATED_L2 : cut < 34 ? PARSE_TRUNCATED_L3 : PARSE_TRUNCATED_L4;
		CHECK(packet_parse(f, cut, 1514, &m) == want);
	}
}

static void vlan_and_qinq(void)
{
	uint8_t f[128];
	uint32_t n = eth(f, 0x8100);
	n = vlan(f, n, 0x8100, 42, 0x0800);
	n += ipv4(f + n, 100, 17, 0);
	n += udp(f + n, 53, 5353);
	struct packet_meta m;
	CHECK(packet_parse(f, n, 118, &m) == PARSE_OK);
	CHECK_EQ_U(m.key.dst_port, 5353);
	n = eth(f, 0x88a8);
	n = vlan(f, n, 0x88a8, 100, 0x8100);
	n = vlan(f, n, 0x8100, 42, 0x0800);
	n += ipv4(f + n, 100, 17, 0);
	n += udp(f + n, 53, 5353);
	CHECK(packet_parse(f, n, 122, &m) == PARSE_OK);
	CHECK_EQ_U(m.key.src_port, 53);
	/* A third tag is more than we follow. */
	n = eth(f, 0x88a8);
	n = vlan(f, n, 0x88a8, 1, 0x8100);
	n = vlan(f, n, 0x8100, 2, 0x8100);
	n = vlan(f, n, 0x8100, 3, 0x0800);
	n += ipv4(f + n, 100, 17, 0);
	CHECK(packet_parse(f, n, 200, &m) == PARSE_TOO_MANY_HEADERS);
}

static void ipv4_malformed_and_fragments(void)
{
	uint8_t f[128];
	struct packet_meta m;
	uint32_t n = eth(f, 0x0800);
	n += ipv4(f + n, 40, 6, 0);
	n += tcp(f + n, 1, 2, 0);
	f[14] = 0x44; /* IHL 4 */
	CHECK(packet_parse(f, n, 54, &m) == PARSE_BAD_IP_HEADER);
	f[14] = 0x65; /* version 6 in an IPv4 ethertype */
	CHECK(packet_parse(f, n, 54, &m) == PARSE_BAD_IP_HEADER);
	f[14] = 0x4f; /* IHL 15 = 60 bytes, more than captured */
	CHECK(packet_parse(f, n, 54, &m) == PARSE_TRUNCATED_L3);
	f[14] = 0x45;
	f[16] = 0, f[17] = 10; /* total length 10 < header */
	CHECK(packet_parse(f, n, 54, &m) == PARSE_BAD_IP_HEADER);
	f[17] = 30; /* total 30: no room for a TCP header */
	CHECK(packet_parse(f, n, 54, &m) == PARSE_BAD_IP_HEADER);
	f[17] = 40;
	f[14 + 20 + 12] = 4 << 4; /* TCP data offset 4 */
	CHECK(packet_parse(f, n, 54, &m) == PARSE_BAD_L4_HEADER);

	n = eth(f, 0x0800);
	n += ipv4(f + n, 1500, 17, 0x2000); /* first fragment: MF, offset 0 */
	n += udp(f + n, 4789, 4789);
	CHECK(packet_parse(f, n, 1514, &m) == PARSE_OK);
	CHECK(m.first_fragment == 1);
	n = eth(f, 0x0800);
	n += ipv4(f + n, 600, 17, 185); /* later fragment */
	CHECK(packet_parse(f, n, 614, &m) == PARSE_FRAGMENT);
	CHECK_EQ_U(m.ip_len, 600); /* still counted in the link bins */
}

static uint32_t ipv6(uint8_t *p, uint16_t payload, uint8_t next)
{
	memset(p, 0, 40);
	p[0] = 0x60;
	p[4] = (uint8_t)(payload >> 8), p[5] = (uint8_t)payload;
	p[6] = next, p[7] = 64;
	p[8] = 0x20, p[9] = 0x01, p[10] = 0x0d, p[11] = 0xb8, p[23] = 1;
	p[24] = 0x20, p[25] = 0x01, p[26] = 0x0d, p[27] = 0xb8, p[39] = 2;
	return 40;
}

static void ipv6_extension_headers(void)
{
	uint8_t f[256];
	struct packet_meta m;
	/* hop-by-hop (8 B) -> routing (24 B) -> fragment (first) -> TCP */
	uint32_t n = eth(f, 0x86dd);
	n += ipv6(f + n, 1460, 0);
	memset(f + n, 0, 8), f[n] = 43, f[n + 1] = 0, n += 8;
	memset(f + n, 0, 24), f[n] = 44, f[n + 1] = 2, n += 24;
	memset(f + n, 0, 8), f[n] = 6, f[n + 3] = 1, n += 8; /* offset 0, M = 1 */
	n += tcp(f + n, 443, 50000, 0x10);
	CHECK(packet_parse(f, n, 1514, &m) == PARSE_OK);
	CHECK_EQ_U(m.ip_len, 1500);
	CHECK_EQ_U(m.key.proto, 6);
	CHECK_EQ_U(m.key.src_port, 443);
	CHECK(m.first_fragment == 1);
	CHECK_EQ_U(m.key.dst[15], 2);
	CHECK(packet_parse(f, n - 1, 1514, &m) == PARSE_TRUNCATED_L4);
	CHECK(packet_parse(f, n - 21, 1514, &m) == PARSE_TRUNCATED_L3);
	CHECK(packet_parse(f, 14 + 40 + 8 + 10, 1514, &m) == PARSE_TRUNCATED_L3);
	/* A later fragment has no ports. */
	f[14 + 40 + 8 + 24 + 2] = 0x05, f[14 + 40 + 8 + 24 + 3] = 0xa8;
	CHECK(packet_parse(f, n, 1514, &m) == PARSE_FRAGMENT);
	/* Nine hop-by-hop headers in a row: more than we follow. */
	n = eth(f, 0x86dd);
	n += ipv6(f + n, 200, 0);
	for (int i = 0; i < 9; i++)
		memset(f + n, 0, 8), f[n] = 0, n += 8;
	CHECK(packet_parse(f, n, 254, &m) == PARSE_TOO_MANY_HEADERS);
	/* An extension header longer than the payload length says. */
	n = eth(f, 0x86dd);
	n += ipv6(f + n, 8, 60);
	memset(f + n, 0, 16), f[n] = 17, f[n + 1] = 1, n += 16;
	CHECK(packet_parse(f, n, 100, &m) == PARSE_BAD_IP_HEADER);
}

static void not_ip(void)
{
	uint8_t f[64];
	struct packet_meta m;
	uint32_t n = eth(f, 0x0806);
	memset(f + n, 0, 28);
	CHECK(packet_parse(f, n + 28, 60, &m) == PARSE_NOT_IP);
	CHECK_EQ_U(m.ip_len, 60); /* the frame length is what the bins count */
}

void run_parse_tests(void);
void run_parse_tests(void)
{
	RUN("parse", ipv4_tcp_header_only_capture);
	RUN("parse", vlan_and_qinq);
	RUN("parse", ipv4_malformed_and_fragments);
	RUN("parse", ipv6_extension_headers);
	RUN("parse", not_ip);
}
