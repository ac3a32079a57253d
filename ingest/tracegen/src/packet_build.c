#include "packet_build.h"

#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static uint16_t ipv4_checksum(const uint8_t *h)
{
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t l4_header_len(uint8_t proto)
{
	switch (proto) {
	case 6: return 20;
	case 17: return 8;
	default: return 8; /* ICMP / ICMPv6 type, code, checksum, rest */
	}
}

uint32_t packet_min_ip_len(uint8_t family, uint8_t proto)
{
	return (family == 6 ? 40u : 20u) + l4_header_len(proto);
}

static uint32_t write_l4(const struct packet_spec *p, uint8_t *o)
{
	uint32_t n = l4_header_len(p->proto);
	memset(o, 0, n);
	if (p->proto == 6) {
		put16(o, p->sport);
		put16(o + 2, p->dport);
		put32(o + 4, p->seq);
		o[12] = 5 << 4;
		o[13] = p->tcp_flags;
		put16(o + 14, 65535);
	} else if (p->proto == 17) {
		put16(o, p->sport);
		put16(o + 2, p->dport);
		put16(o + 4, (uint16_t)(p->ip_len - (p->family == 6 ? 40 : 20)));
	} else {
		o[0] = p->family == 6 ? 128 : 8; /* echo request */
		put16(o + 4, p->sport);
	}
	return n;
}

uint32_t packet_build(const struct packet_spec *p, uint8_t *out, uint32_t *wire_len)
{
	uint8_t *o = out;
	static const uint8_t dst_mac[6] = {0x02, 0, 0, 0, 0, 0x02};
	static const uint8_t src_mac[6] = {0x02, 0, 0, 0, 0, 0x01};
	memcpy(o, dst_mac, 6);
	memcpy(o + 6, src_mac, 6);
	o += 12;
	if (p->vlans == 2) { /* QinQ: outer 802.1ad service tag */
		put16(o, 0x88a8);
		put16(o + 2, (uint16_t)(100 + (p->vlan_id & 0xff)));
		o += 4;
	}
	if (p->vlans >= 1) {
		put16(o, 0x8100);
		put16(o + 2, p->vlan_id & 0x0fff);
		o += 4;
	}
	put16(o, p->family == 6 ? 0x86dd : 0x0800);
	o += 2;
	uint32_t l2 = (uint32_t)(o - out);

	if (p->family == 4) {
		memset(o, 0, 20);
		o[0] = 0x45;
		put16(o + 2, (uint16_t)p->ip_len);
		put16(o + 4, p->ip_id);
		if (p->frag == FRAG_FIRST)
			put16(o + 6, 0x2000); /* MF, offset 0 */
		else if (p->frag == FRAG_LATER)
			put16(o + 6, 1480 / 8);
		o[8] = 64;
		o[9] = p->proto;
		memcpy(o + 12, p->src + 12, 4);
		memcpy(o + 16, p->dst + 12, 4);
		put16(o + 10, ipv4_checksum(o));
		o += 20;
	} else {
		memset(o, 0, 40);
		o[0] = 0x60;
		put16(o + 4, (uint16_t)(p->ip_len - 40));
		o[6] = p->proto;
		o[7] = 64;
		memcpy(o + 8, p->src, 16);
		memcpy(o + 24, p->dst, 16);
		o += 40;
	}
	if (p->frag != FRAG_LATER)
		o += write_l4(p, o);
	*wire_len = l2 + p->ip_len;
	return (uint32_t)(o - out);
}
