#include "pcap_writer.h"

#include <stdlib.h>
#include <string.h>

#define WRITE_BUFFER (8u << 20)

int pcap_writer_open(struct pcap_writer *w, const char *path)
{
	w->f = fopen(path, "wb");
	if (!w->f)
		return -1;
	w->buf = malloc(WRITE_BUFFER);
	if (w->buf)
		setvbuf(w->f, w->buf, _IOFBF, WRITE_BUFFER);
	/* Host byte order: readers detect it from the magic. */
	struct {
		uint32_t magic;
		uint16_t major, minor;
		int32_t zone;
		uint32_t sigfigs, snaplen, linktype;
	} h = {0xa1b2c3d4u, 2, 4, 0, 0, 65535, 1};
	return fwrite(&h, sizeof h, 1, w->f) == 1 ? 0 : -1;
}

int pcap_writer_put(struct pcap_writer *w, uint64_t ts_us, const uint8_t *frame, uint32_t caplen,
		    uint32_t wire_len)
{
	uint32_t rec[4] = {(uint32_t)(ts_us / 1000000u), (uint32_t)(ts_us % 1000000u), caplen, wire_len};
	if (fwrite(rec, sizeof rec, 1, w->f) != 1)
		return -1;
	return fwrite(frame, caplen, 1, w->f) == 1 ? 0 : -1;
}

int pcap_writer_close(struct pcap_writer *w)
{
	int rc = fclose(w->f);
	free(w->buf);
	w->f = NULL;
	w->buf = NULL;
	return rc;
}
