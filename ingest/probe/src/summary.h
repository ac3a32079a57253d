/* The run's counters: DIR/summary.json (offline contract) and a stderr digest. */
#ifndef PROBE_SUMMARY_H
#define PROBE_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "export.h"
#include "kafka_export.h"
#include "worker.h"

struct run_summary {
	const struct probe_options *o;
	const struct worker *workers;
	uint32_t n_workers;
	const struct exporter *x;
	const struct kafka_counters *kafka; /* NULL without --kafka */
	const char *mode;      /* "pcap", "memory", "live" */
	const char *spread;    /* "distributor", "rss", "single" */
	double wall_s;         /* from the first packet read to the last processed */
	uint64_t port_missed, port_nombuf, distributor_dropped;
};

void summary_write_json(FILE *f, const struct run_summary *s);
void summary_print(FILE *f, const struct run_summary *s);

#endif
