/* What workers hand to the export thread: fixed-size records copied through
 * a ring, so the packet path never allocates. */
#ifndef PROBE_PROBE_EVENT_H
#define PROBE_PROBE_EVENT_H

#include <stdint.h>

#include "flow_key.h"

enum probe_event_type {
	EV_CHEETAH_START = 1, /* cheetahs.v1 START, and a row of cheetahs.csv */
	EV_CHEETAH_END,       /* cheetahs.v1 END */
	EV_FLIGHT,            /* probe.flights.v1: a flight whose rate passed the floor */
	EV_BIN,               /* one worker's share of a T1 bin (merged before probe.bins.v1) */
	EV_PACKET,            /* probe.packets.v1: a 1-in-N sampled packet */
};

enum cheetah_end_reason { END_NONE = 0, END_EVICTED, END_IDLE, END_INPUT_DONE };

struct probe_event {
	uint8_t type;
	uint8_t end_reason;
	uint8_t cheetah; /* flights: the flow is a cheetah */
	uint8_t tcp_flags;
	uint16_t worker;
	uint16_t seq;
	struct flow_key key;
	uint64_t flow_id;
	uint64_t time_ns;      /* when it happened (packet time) */
	uint64_t start_ns;     /* flow entry start / flight start / bin start */
	uint64_t elapsed_ns;   /* flights; bins: the bin length */
	uint64_t bytes, packets;
	uint64_t peak_bytes, peak_start_ns; /* cheetahs: largest flight */
	uint64_t cheetah_bytes;  /* bins */
	uint64_t next_bin_ns;    /* bins: the worker has moved on to this bin */
	double rate_bps;
	double threshold_bps;
	uint64_t threshold_version;
	uint32_t length;       /* packets: IP length */
	uint16_t tcp_window;
	uint16_t pad;
};

struct event_sink {
	/* Returns 0, or -1 if the event could not be queued (counted by the caller). */
	int (*emit)(void *ctx, const struct probe_event *ev);
	void *ctx;
};

#endif
