#include "memory_replay.h"

#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "packet_parse.h"

static int append(struct memory_share *s, uint64_t ts_ns, const uint8_t *data, uint32_t caplen, uint32_t wire)
{
	uint32_t need = memory_record_size(caplen);
	if (s->used + need > s->cap) {
		uint64_t cap = s->cap ? s->cap * 2 : (64u << 20);
		uint8_t *b = realloc(s->blob, cap);
		if (!b)
			return -1;
		s->blob = b;
		s->cap = cap;
	}
	struct memory_record *r = (struct memory_record *)(s->blob + s->used);
	r->ts_ns = ts_ns;
	r->caplen = caplen;
	r->wire_len = wire;
	memcpy(r + 1, data, caplen);
	s->used += need;
	s->packets++;
	return 0;
}

int64_t memory_replay_load(const char *path, uint32_t workers, struct memory_share *shares)
{
	char err[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, err);
	if (!p) {
		fprintf(stderr, "cheetah-probe: cannot read --pcap %s: %s\n", path, err);
		return -1;
	}
	memset(shares, 0, workers * sizeof *shares);
	struct pcap_pkthdr *h;
	const u_char *data;
	int64_t n = 0;
	int rc;
	while ((rc = pcap_next_ex(p, &h, &data)) == 1) {
		struct packet_meta m;
		uint32_t w = 0;
		if (packet_parse(data, h->caplen, h->len, &m) == PARSE_OK)
			w = (uint32_t)(flow_key_symmetric_hash(&m.key) % workers);
		uint64_t ts = (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec;
		if (append(&shares[w], ts, data, h->caplen, h->len)) {
			fprintf(stderr, "cheetah-probe: out of memory loading %s after %lld packets\n", path, (long long)n);
			pcap_close(p);
			return -1;
		}
		n++;
	}
	if (rc == -1)
		fprintf(stderr, "cheetah-probe: %s: read error after %lld packets: %s (replaying what was read)\n",
			path, (long long)n, pcap_geterr(p));
	pcap_close(p);
	return n;
}

void memory_replay_free(struct memory_share *s)
{
	free(s->blob);
	memset(s, 0, sizeof *s);
}
