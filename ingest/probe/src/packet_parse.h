/* Bounds-checked parsing of Ethernet, 802.1Q/QinQ, IPv4, IPv6 (extension
 * headers), TCP and UDP headers. Never reads past caplen; every packet that is
 * not a flow packet gets a reason that is counted. */
#ifndef PROBE_PACKET_PARSE_H
#define PROBE_PACKET_PARSE_H

#include <stdint.h>

#include "flow_key.h"

enum parse_status {
	PARSE_OK = 0,
	PARSE_NOT_IP,          /* ARP, LLDP, ...: counted in the link bins only */
	PARSE_TRUNCATED_L2,    /* frame ends inside the Ethernet/VLAN headers */
	PARSE_TRUNCATED_L3,    /* ... inside the IP header or an extension header */
	PARSE_TRUNCATED_L4,    /* ... inside the TCP/UDP header */
	PARSE_BAD_IP_HEADER,   /* wrong version, IHL < 5, total length < header */
	PARSE_BAD_L4_HEADER,   /* TCP data offset < 5 */
	PARSE_FRAGMENT,        /* a non-first fragment: no ports to key it on */
	PARSE_TOO_MANY_HEADERS, /* VLAN or IPv6 extension chain longer than we follow */
	PARSE_STATUS_COUNT
};

extern const char *const parse_status_names[PARSE_STATUS_COUNT];

struct packet_meta {
	struct flow_key key;
	uint32_t ip_len;    /* bytes counted for the packet: the IP length (frame length if not IP) */
	uint16_t tcp_window;
	uint8_t tcp_flags;
	uint8_t first_fragment; /* a first fragment: ports known, more to come */
};

/* frame_len is the frame's length on the wire (used when there is no IP
 * header to read a length from). */
enum parse_status packet_parse(const uint8_t *data, uint32_t caplen, uint32_t frame_len,
			       struct packet_meta *out);

#endif
