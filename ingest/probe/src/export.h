/* The export thread's side: drains the workers' event rings, merges bins,
 * writes the offline files and hands records to Kafka. */
#ifndef PROBE_EXPORT_H
#define PROBE_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "bin_merger.h"
#include "kafka_export.h"
#include "probe_event.h"

struct exporter {
	const struct probe_options *o;
	FILE *cheetahs_csv, *bins_csv;
	struct bin_merger merger;
	struct kafka_export *kafka;
	uint64_t cheetah_rows, bins_released, bin_bytes, bin_packets, events;
};

/* Opens DIR/cheetahs.csv and DIR/bins.csv (with --out) and Kafka (with
 * --kafka). Returns 0 or -1 with a message. */
int exporter_open(struct exporter *x, const struct probe_options *o, uint32_t workers, struct link_threshold *thr);
void exporter_event(struct exporter *x, const struct probe_event *ev);
void exporter_close(struct exporter *x);

/* "198.18.0.1" for an IPv4-mapped address, else IPv6 text. */
void format_address(const uint8_t a[16], char *out, unsigned size);

#endif
