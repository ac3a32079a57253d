/* libFuzzer target: any bytes as a captured frame must parse without reading
 * out of bounds, and a parsed packet must go through the flight rule safely. */
#include <stddef.h>
#include <stdint.h>

#include "../src/flight_detector.h"
#include "../src/packet_parse.h"

static int discard(void *ctx, const struct probe_event *ev)
{
	(void)ctx;
	(void)ev;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct flight_detector det;
	static struct link_threshold thr;
	static int ready;
	static uint64_t clock_ns;
	if (!ready) {
		struct detector_config cfg;
		detector_default_config(&cfg);
		cfg.cache_size = 64; /* small: evictions happen */
		link_threshold_set(&thr, 1e6, 1);
		if (detector_init(&det, &cfg, &thr, (struct event_sink){discard, NULL}))
			return 0;
		ready = 1;
	}
	if (size < 2)
		return 0;
	/* First two bytes: the wire length and a time step, the rest is the frame. */
	uint32_t wire = (uint32_t)(size - 2) + data[0] * 8u;
	clock_ns += (uint64_t)data[1] * 1000000u;
	struct packet_meta m;
	enum parse_status st = packet_parse(data + 2, (uint32_t)(size - 2), wire, &m);
	if (st >= PARSE_STATUS_COUNT)
		__builtin_trap();
	if (st == PARSE_OK)
		detector_packet(&det, &m, clock_ns);
	return 0;
}
