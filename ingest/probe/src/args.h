/* Command-line options of cheetah-probe: one typed config, with defaults from
 * docs/ARCHITECTURE.md ("Flight-rate cheetah"). */
#ifndef PROBE_ARGS_H
#define PROBE_ARGS_H

#include <stdint.h>

struct probe_options {
	/* input: exactly one of these */
	const char *pcap;    /* replay a pcap through net_pcap */
	const char *iface;   /* live capture on an interface through net_af_packet */
	const char *vdev;    /* any DPDK port, as EAL devargs (e.g. "net_pcap0,rx_pcap=F") */
	int memory;          /* --pcap, loaded into memory first (benchmark mode) */
	uint32_t repeat;     /* --memory: replay the loaded trace this many times */
	const char *out_dir; /* offline outputs: cheetahs.csv, summary.json, bins.csv */

	double rate_threshold_bps; /* R until thresholds.v1 says otherwise */
	uint32_t flight_ms;        /* T */
	uint32_t min_length;       /* L */
	double sampling;           /* S */
	int sample_every_packet;   /* --sampling-mode: enum sampling_mode (flight_detector.h) */
	uint32_t workers;
	uint32_t cache_size;       /* entries per worker */
	uint32_t idle_timeout_ms;
	uint32_t bin_ms;           /* T1 */
	double flight_floor_bps;   /* < 0: half of R */
	uint32_t packet_sample;    /* 1 in N packets to probe.packets.v1; 0: none */
	uint8_t drop_proto[256];
	double duration_s;         /* live: stop after this long (0: until SIGINT/SIGTERM) */

	const char *kafka;         /* bootstrap servers; NULL: no Kafka */
	const char *link_id, *probe_id;
	const char *compression;
	uint32_t kafka_queue;      /* bounded producer queue (messages) */
	const char *kafka_config;  /* librdkafka key=value file (credentials); NULL: none */
	uint32_t counters_ms;      /* probe.counters.v1 every this long (0: only at exit) */
	const char *eal_extra;     /* extra EAL arguments, space separated */
	int quiet;
};

/* Fills o from argv. Returns 0, 1 after --help (exit 0), or -1 after
 * printing what was wrong (exit 2). */
int probe_parse_args(int argc, char **argv, struct probe_options *o);

#endif
