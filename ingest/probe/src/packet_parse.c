#include "packet_parse.h"

#include <string.h>

const char *const parse_status_names[PARSE_STATUS_COUNT] = {
	"ok", "not_ip", "truncated_l2", "truncated_l3", "truncated_l4",
	"bad_ip_header", "bad_l4_header", "fragment", "too_many_headers",
};

#define MAX_VLAN_TAGS 2
#define MAX_IPV6_EXTENSIONS 8

static inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static enum parse_status parse_l4(const uint8_t *l4, uint32_t avail, uint32_t l4_len_from_ip,
				  struct packet_meta *m)
{
	switch (m->key.proto) {
	case 6:
		if (avail < 20)
			return PARSE_TRUNCATED_L4;
		if ((l4[12] >> 4) < 5)
			return PARSE_BAD_L4_HEADER;
		if (l4_len_from_ip < 20)
			return PARSE_BAD_IP_HEADER;
		m->key.src_port = rd16(l4);
		m->key.dst_port = rd16(l4 + 2);
		m->tcp_flags = l4[13];
		m->tcp_window = rd16(l4 + 14);
		return PARSE_OK;
	case 17:
	case 132: /* SCTP: ports in the same place */
		if (avail < 8)
			return PARSE_TRUNCATED_L4;
		if (l4_len_from_ip < 8)
			return PARSE_BAD_IP_HEADER;
		m->key.src_port = rd16(l4);
		m->key.dst_port = rd16(l4 + 2);
		return PARSE_OK;
	default:
		return PARSE_OK; /* ICMP, GRE, ESP, ...: keyed on addresses and protocol */
	}
}

static enum parse_status parse_ipv4(const uint8_t *ip, uint32_t avail, struct packet_meta *m)
{
	if (avail < 20)
		return PARSE_TRUNCATED_L3;
	uint32_t ihl = (ip[0] & 0x0fu) * 4u;
	uint32_t total = rd16(ip + 2);
	if ((ip[0] >> 4) != 4 || ihl < 20)
		return PARSE_BAD_IP_HEADER;
	if (avail < ihl)
		return PARSE_TRUNCATED_L3;
	if (total < ihl)
		return PARSE_BAD_IP_HEADER;
	m->ip_len = total;
	m->key.proto = ip[9];
	m->key.src[10] = m->key.src[11] = 0xff;
	m->key.dst[10] = m->key.dst[11] = 0xff;
	memcpy(m->key.src + 12, ip + 12, 4);
	memcpy(m->key.dst + 12, ip + 16, 4);
	uint16_t frag = rd16(ip + 6);
	if (frag & 0x1fffu)
		return PARSE_FRAGMENT;
	m->first_fragment = (frag & 0x2000u) != 0;
	return parse_l4(ip + ihl, avail - ihl, total - ihl, m);
}

static int is_ipv6_extension(uint8_t nh)
{
	return nh == 0 || nh == 43 || nh == 44 || nh == 51 || nh == 60 || nh == 135;
}

static enum parse_status parse_ipv6(const uint8_t *ip, uint32_t avail, uint32_t frame_rest,
				    struct packet_meta *m)
{
	if (avail < 40)
		return PARSE_TRUNCATED_L3;
	if ((ip[0] >> 4) != 6)
		return PARSE_BAD_IP_HEADER;
	uint32_t payload = rd16(ip + 4);
	/* Payload length 0 is a jumbogram (or a bad header): fall back on the frame. */
	m->ip_len = payload ? 40 + payload : frame_rest;
	memcpy(m->key.src, ip + 8, 16);
	memcpy(m->key.dst, ip + 24, 16);
	uint8_t nh = ip[6];
	uint32_t off = 40;
	for (int n = 0; is_ipv6_extension(nh); n++) {
		if (n == MAX_IPV6_EXTENSIONS)
			return PARSE_TOO_MANY_HEADERS;
		if (avail < off + 8)
			return PARSE_TRUNCATED_L3;
		const uint8_t *h = ip + off;
		uint32_t len;
		if (nh == 44) { /* fragment header */
			uint16_t fo = rd16(h + 2);
			if (fo & 0xfff8u) {
				m->key.proto = h[0];
				return PARSE_FRAGMENT;
			}
			m->first_fragment = (fo & 1u) != 0;
			len = 8;
		} else if (nh == 51) {
			len = (h[1] + 2u) * 4u; /* AH counts 4-byte words */
		} else {
			len = (h[1] + 1u) * 8u;
		}
		nh = h[0];
		off += len;
		if (off > m->ip_len)
			return PARSE_BAD_IP_HEADER;
	}
	if (avail < off)
		return PARSE_TRUNCATED_L3;
	m->key.proto = nh;
	return parse_l4(ip + off, avail - off, m->ip_len - off, m);
}

enum parse_status packet_parse(const uint8_t *data, uint32_t caplen, uint32_t frame_len,
			       struct packet_meta *out)
{
	memset(out, 0, sizeof *out);
	out->ip_len = frame_len;
	if (caplen < 14)
		return PARSE_TRUNCATED_L2;
	uint32_t off = 12;
	uint16_t type = rd16(data + off);
	for (int tags = 0; type == 0x8100 || type == 0x88a8 || type == 0x9100; tags++) {
		if (tags == MAX_VLAN_TAGS)
			return PARSE_TOO_MANY_HEADERS;
		off += 4;
		if (caplen < off + 2)
			return PARSE_TRUNCATED_L2;
		type = rd16(data + off);
	}
	off += 2;
	uint32_t rest = frame_len > off ? frame_len - off : 0;
	if (type == 0x0800)
		return parse_ipv4(data + off, caplen - off, out);
	if (type == 0x86dd)
		return parse_ipv6(data + off, caplen - off, rest, out);
	return PARSE_NOT_IP;
}
