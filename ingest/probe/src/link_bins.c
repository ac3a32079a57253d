#include "link_bins.h"

#include <string.h>

void link_bins_init(struct link_bins *b, uint64_t bin_ns, uint16_t worker)
{
	memset(b, 0, sizeof *b);
	b->bin_ns = bin_ns;
	b->worker = worker;
}

static void emit_bin(struct link_bins *b, uint64_t next_bin_ns, struct event_sink *sink)
{
	struct probe_event ev;
	memset(&ev, 0, sizeof ev);
	ev.type = EV_BIN;
	ev.worker = b->worker;
	ev.start_ns = b->start_ns;
	ev.elapsed_ns = b->bin_ns;
	ev.bytes = b->bytes;
	ev.packets = b->packets;
	ev.cheetah_bytes = b->cheetah_bytes;
	ev.next_bin_ns = next_bin_ns;
	/* A refused bin cannot be recounted; the export side counts the gap. */
	(void)sink->emit(sink->ctx, &ev);
	b->bytes = b->packets = b->cheetah_bytes = 0;
}

void link_bins_advance(struct link_bins *b, uint64_t now_ns, struct event_sink *sink)
{
	uint64_t start = now_ns - now_ns % b->bin_ns;
	if (!b->open) {
		b->open = 1;
		b->start_ns = start;
		return;
	}
	if (start > b->start_ns) {
		emit_bin(b, start, sink);
		b->start_ns = start;
	}
}

void link_bins_add(struct link_bins *b, uint64_t ts_ns, uint32_t bytes, int cheetah, struct event_sink *sink)
{
	if (!b->open || ts_ns >= b->start_ns + b->bin_ns)
		link_bins_advance(b, ts_ns, sink);
	b->bytes += bytes;
	b->packets++;
	if (cheetah)
		b->cheetah_bytes += bytes;
}

void link_bins_close(struct link_bins *b, struct event_sink *sink)
{
	if (b->open)
		emit_bin(b, UINT64_MAX, sink);
	else {
		b->start_ns = 0;
		emit_bin(b, UINT64_MAX, sink); /* an empty share that only says "done" */
	}
	b->open = 0;
}
