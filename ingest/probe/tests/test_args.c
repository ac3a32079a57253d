/* cheetah-probe's options: every default of the flight-rate rule is the one
 * detector_default_config sets (one place, flight_detector.c), and an option
 * overrides it. */
#include <getopt.h>
#include <string.h>

#include "../src/args.h"
#include "../src/flight_detector.h"
#include "check.h"

static int parse(struct probe_options *o, int argc, char **argv)
{
	optind = 0; /* GNU getopt: start over (each test parses its own argv) */
	return probe_parse_args(argc, argv, o);
}

static void rule_defaults_are_the_detector_config(void)
{
	char *argv[] = {"cheetah-probe", "--pcap", "x.pcap", NULL};
	struct probe_options o;
	struct detector_config d;
	detector_default_config(&d);
	CHECK_EQ_U(parse(&o, 3, argv), 0);
	CHECK_EQ_U(o.cache_size, d.cache_size);
	CHECK_EQ_U((uint64_t)o.flight_ms * 1000000u, d.flight_ns);
	CHECK_EQ_U((uint64_t)o.idle_timeout_ms * 1000000u, d.idle_ns);
	CHECK_EQ_U(o.min_length, d.min_length);
	CHECK(o.sampling == d.sampling);
	CHECK(memcmp(o.drop_proto, d.drop_proto, sizeof o.drop_proto) == 0);
}

/* The values docs/PROBE.md and docs/ARCHITECTURE.md ("Flight-rate cheetah") state: 256 K entries per
 * worker, T = 100 ms, a cheetah idle 2 s ends, L = 0, S = 1, ICMP and ICMPv6
 * create no entry. */
static void defaults_are_the_documented_values(void)
{
	char *argv[] = {"cheetah-probe", "--pcap", "x.pcap", NULL};
	struct probe_options o;
	CHECK_EQ_U(parse(&o, 3, argv), 0);
	CHECK_EQ_U(o.cache_size, 262144);
	CHECK_EQ_U(o.flight_ms, 100);
	CHECK_EQ_U(o.idle_timeout_ms, 2000);
	CHECK_EQ_U(o.min_length, 0);
	CHECK(o.sampling == 1.0);
	for (int p = 0; p < 256; p++)
		CHECK_EQ_U(o.drop_proto[p], p == 1 || p == 58);
}

static void options_override_the_defaults(void)
{
	char *argv[] = {"cheetah-probe", "--pcap", "x.pcap", "--cache-size", "1000", "--flight-ms", "50",
			"--drop-proto", "none", NULL};
	struct probe_options o;
	CHECK_EQ_U(parse(&o, 9, argv), 0);
	CHECK_EQ_U(o.cache_size, 1000);
	CHECK_EQ_U(o.flight_ms, 50);
	CHECK_EQ_U(o.drop_proto[1] + o.drop_proto[58], 0);
}

void run_args_tests(void)
{
	RUN("args", rule_defaults_are_the_detector_config);
	RUN("args", defaults_are_the_documented_values);
	RUN("args", options_override_the_defaults);
}
