/* Classic pcap (libpcap 2.4, microsecond timestamps, LINKTYPE_ETHERNET):
 * what softflowd, nfpcapd, tcpreplay and DPDK's net_pcap all read. */
#ifndef TRACEGEN_PCAP_WRITER_H
#define TRACEGEN_PCAP_WRITER_H

#include <stdint.h>
#include <stdio.h>

struct pcap_writer {
	FILE *f;
	char *buf;
};

/* Returns 0, or -1 with errno set. */
int pcap_writer_open(struct pcap_writer *w, const char *path);
/* ts_us: microseconds since the epoch. Returns 0, or -1 on a write error. */
int pcap_writer_put(struct pcap_writer *w, uint64_t ts_us, const uint8_t *frame, uint32_t caplen,
		    uint32_t wire_len);
int pcap_writer_close(struct pcap_writer *w);

#endif
