#include "args.h"
#include "flight_detector.h"
#include "topics.h" /* generated from schemas/topics.yaml */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every default of the probe, in one place: the flight-rate rule's come from
 * detector_default_config (flight_detector.c), the others are set here; --help
 * prints them from here. */
static void default_options(struct probe_options *o)
{
	struct detector_config d;
	detector_default_config(&d);
	memset(o, 0, sizeof *o);
	o->rate_threshold_bps = 1e9;
	o->flight_ms = (uint32_t)(d.flight_ns / 1000000u);
	o->idle_timeout_ms = (uint32_t)(d.idle_ns / 1000000u);
	o->min_length = d.min_length;
	o->sampling = d.sampling;
	o->cache_size = d.cache_size;
	memcpy(o->drop_proto, d.drop_proto, sizeof o->drop_proto);
	o->workers = 1;
	o->bin_ms = 100;
	o->flight_floor_bps = -1;
	o->packet_sample = 1000;
	o->counters_ms = 1000;
	o->link_id = "link0";
	o->probe_id = "probe0";
	o->compression = "lz4";
	o->kafka_queue = 200000;
}

static void usage(FILE *f)
{
	struct probe_options d;
	default_options(&d);
	char drop[1024] = "";
	size_t n = 0;
	for (int p = 0; p < 256; p++)
		if (d.drop_proto[p])
			n += (size_t)snprintf(drop + n, sizeof drop - n, "%s%d", n ? "," : "", p);
	fprintf(f,
"Usage: cheetah-probe (--pcap FILE | --iface IF | --vdev DEVARGS) [options]\n"
"Finds cheetahs (flows faster than R within one flight of T) among all flows of\n"
"a link, per docs/ARCHITECTURE.md, \"Flight-rate cheetah\", and exports them.\n"
"\n"
"Input (one):\n"
"  --pcap FILE            replay FILE as fast as possible (DPDK net_pcap); times\n"
"                         come from the pcap\n"
"  --memory               with --pcap: load it into memory first, split by flow\n"
"                         across workers, and replay from there (benchmarks)\n"
"  --repeat N             with --memory: replay it N times, later passes shifted in\n"
"                         time; packets/s is that of the fastest pass (default 1)\n"
"  --iface IF             capture live on interface IF (DPDK net_af_packet)\n"
"  --vdev DEVARGS         any DPDK virtual port, e.g. net_pcap0,rx_iface=eth1\n"
"Offline output:\n"
"  --out DIR              write DIR/cheetahs.csv (src,dst,src_port,dst_port,proto,\n"
"                         detected_ms,flight_rate_bps), DIR/summary.json and\n"
"                         DIR/bins.csv (bin_start_ms,bytes,packets,cheetah_bytes)\n"
"Detection (docs/ARCHITECTURE.md, \"Flight-rate cheetah\"):\n"
"  --rate-threshold BPS   R in bits/s (default %.0f); " TOPIC_THRESHOLDS " updates it live\n"
"  --flight-ms MS         T, the flight length (default %u)\n"
"  --min-length L         packets shorter than L bytes (IP length) create no\n"
"                         flow entry (default %u)\n"
"  --sampling S           probability that a packet may create an entry (default %g)\n"
"  --sampling-mode M      create (default, the definition's S: it only decides who gets\n"
"                         an entry); for comparison, packet (every packet is\n"
"                         sampled, bytes scaled by 1/S) or packet-unscaled (every\n"
"                         packet sampled, only sampled bytes count)\n"
"  --drop-proto LIST      protocols that create no entry (default %s)\n"
"  --cache-size N         flow entries per worker (default %u)\n"
"  --idle-timeout-ms MS   a cheetah idle this long ends (default %u)\n"
"  --workers N            worker cores (default %u); flows are pinned to workers by\n"
"                         a symmetric 5-tuple hash (NIC RSS or a distributor core)\n"
"Kafka (optional):\n"
"  --kafka HOST:PORT      export " TOPIC_CHEETAHS ", " TOPIC_PROBE_FLIGHTS ", " TOPIC_PROBE_BINS ",\n"
"                         " TOPIC_PROBE_PACKETS " and the counters (" TOPIC_PROBE_COUNTERS ");\n"
"                         read R live from " TOPIC_THRESHOLDS "\n"
"  --link-id ID           link these packets are from (default %s)\n"
"  --probe-id ID          this probe's name (default %s)\n"
"  --bin-ms MS            T1 of " TOPIC_PROBE_BINS " (default %u)\n"
"  --flight-floor BPS     export flights at or above this rate (default R/2)\n"
"  --packet-sample N      export 1 in N packets (default %u; 0: none)\n"
"  --compression C        lz4, zstd, snappy, gzip, none (default %s)\n"
"  --kafka-config FILE    librdkafka key=value settings for producer and consumer:\n"
"                         the probe's credentials (security.protocol=SASL_SSL,\n"
"                         sasl.mechanisms, sasl.username, sasl.password, ssl.ca.location)\n"
"  --kafka-queue N        messages held while Kafka is away (default %u);\n"
"                         beyond that records are counted as undeliverable\n"
"  --counters-ms MS       send the counters to " TOPIC_PROBE_COUNTERS " every MS of wall\n"
"                         time and once at exit (default %u; 0: only at exit)\n"
"Other:\n"
"  --duration-s S         live input: stop after S seconds (default: SIGINT/SIGTERM)\n"
"  --eal \"ARGS\"           extra DPDK EAL arguments\n"
"  --quiet                no counters on stderr at exit\n"
"  --help                 this text\n"
"\n"
"Example: cheetah-probe --pcap trace.pcap --out /tmp/run --rate-threshold 5e8\n",
		d.rate_threshold_bps, d.flight_ms, d.min_length, d.sampling, drop, d.cache_size, d.idle_timeout_ms,
		d.workers, d.link_id, d.probe_id, d.bin_ms, d.packet_sample, d.compression, d.kafka_queue,
		d.counters_ms);
}

static int bad(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, "cheetah-probe: --%s %s: %s (see --help)\n", opt, val, want);
	return -1;
}

static int number(const char *opt, const char *val, double min, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(val, &end);
	if (errno || end == val || *end || v < min || v > max) {
		char want[96];
		snprintf(want, sizeof want, "expected a number from %g to %g", min, max);
		return bad(opt, val, want);
	}
	*out = v;
	return 0;
}

static int proto_list(const char *val, uint8_t *drop)
{
	memset(drop, 0, 256);
	if (!*val || !strcmp(val, "none"))
		return 0;
	char copy[256];
	snprintf(copy, sizeof copy, "%s", val);
	for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *end;
		long p = strtol(t, &end, 10);
		if (*end || p < 0 || p > 255)
			return bad("drop-proto", val, "expected protocol numbers 0-255, comma separated, or none");
		drop[p] = 1;
	}
	return 0;
}

enum { O_PCAP = 256, O_MEMORY, O_IFACE, O_VDEV, O_OUT, O_R, O_T, O_L, O_S, O_DROP, O_CACHE, O_IDLE,
       O_WORKERS, O_KAFKA, O_LINK, O_PROBE, O_BIN, O_FLOOR, O_PSAMPLE, O_COMP, O_KQUEUE, O_DURATION,
       O_EAL, O_QUIET, O_HELP, O_SMODE, O_REPEAT, O_COUNTERS, O_KCONFIG };

int probe_parse_args(int argc, char **argv, struct probe_options *o)
{
	static const struct option longs[] = {
		{"pcap", 1, 0, O_PCAP}, {"memory", 0, 0, O_MEMORY}, {"iface", 1, 0, O_IFACE},
		{"vdev", 1, 0, O_VDEV}, {"out", 1, 0, O_OUT}, {"rate-threshold", 1, 0, O_R},
		{"flight-ms", 1, 0, O_T}, {"min-length", 1, 0, O_L}, {"sampling", 1, 0, O_S},
		{"drop-proto", 1, 0, O_DROP}, {"cache-size", 1, 0, O_CACHE}, {"idle-timeout-ms", 1, 0, O_IDLE},
		{"workers", 1, 0, O_WORKERS}, {"kafka", 1, 0, O_KAFKA}, {"link-id", 1, 0, O_LINK},
		{"probe-id", 1, 0, O_PROBE}, {"bin-ms", 1, 0, O_BIN}, {"flight-floor", 1, 0, O_FLOOR},
		{"packet-sample", 1, 0, O_PSAMPLE}, {"compression", 1, 0, O_COMP},
		{"kafka-queue", 1, 0, O_KQUEUE}, {"duration-s", 1, 0, O_DURATION}, {"eal", 1, 0, O_EAL},
		{"quiet", 0, 0, O_QUIET}, {"sampling-mode", 1, 0, O_SMODE},
		{"repeat", 1, 0, O_REPEAT}, {"counters-ms", 1, 0, O_COUNTERS}, {"help", 0, 0, O_HELP},
		{"kafka-config", 1, 0, O_KCONFIG},
		{0, 0, 0, 0}};
	default_options(o);
	double v;
	int c, idx;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longs, &idx)) != -1) {
		const char *name = c >= O_PCAP ? longs[idx].name : "";
		switch (c) {
		case O_PCAP: o->pcap = optarg; break;
		case O_MEMORY: o->memory = 1; break;
		case O_IFACE: o->iface = optarg; break;
		case O_VDEV: o->vdev = optarg; break;
		case O_OUT: o->out_dir = optarg; break;
		case O_R: if (number(name, optarg, 1, 1e15, &o->rate_threshold_bps)) return -1; break;
		case O_T: if (number(name, optarg, 1, 3600000, &v)) return -1; o->flight_ms = (uint32_t)v; break;
		case O_L: if (number(name, optarg, 0, 65535, &v)) return -1; o->min_length = (uint32_t)v; break;
		case O_S: if (number(name, optarg, 0, 1, &o->sampling)) return -1; break;
		case O_DROP: if (proto_list(optarg, o->drop_proto)) return -1; break;
		case O_CACHE: if (number(name, optarg, 1, 1 << 30, &v)) return -1; o->cache_size = (uint32_t)v; break;
		case O_IDLE: if (number(name, optarg, 1, 86400000, &v)) return -1; o->idle_timeout_ms = (uint32_t)v; break;
		case O_WORKERS: if (number(name, optarg, 1, 64, &v)) return -1; o->workers = (uint32_t)v; break;
		case O_KAFKA: o->kafka = optarg; break;
		case O_KCONFIG: o->kafka_config = optarg; break;
		case O_LINK: o->link_id = optarg; break;
		case O_PROBE: o->probe_id = optarg; break;
		case O_BIN: if (number(name, optarg, 1, 3600000, &v)) return -1; o->bin_ms = (uint32_t)v; break;
		case O_FLOOR: if (number(name, optarg, 0, 1e15, &o->flight_floor_bps)) return -1; break;
		case O_PSAMPLE: if (number(name, optarg, 0, 1e9, &v)) return -1; o->packet_sample = (uint32_t)v; break;
		case O_COMP: o->compression = optarg; break;
		case O_KQUEUE: if (number(name, optarg, 1, 1e7, &v)) return -1; o->kafka_queue = (uint32_t)v; break;
		case O_COUNTERS: if (number(name, optarg, 0, 86400000, &v)) return -1; o->counters_ms = (uint32_t)v; break;
		case O_DURATION: if (number(name, optarg, 0, 1e9, &o->duration_s)) return -1; break;
		case O_EAL: o->eal_extra = optarg; break;
		case O_QUIET: o->quiet = 1; break;
		case O_REPEAT: if (number(name, optarg, 1, 1000, &v)) return -1; o->repeat = (uint32_t)v; break;
		case O_SMODE:
			if (strcmp(optarg, "create") && strcmp(optarg, "packet") && strcmp(optarg, "packet-unscaled"))
				return bad(name, optarg, "expected create, packet or packet-unscaled");
			o->sample_every_packet = !strcmp(optarg, "packet")            ? SAMPLE_PACKETS_SCALED
						 : !strcmp(optarg, "packet-unscaled") ? SAMPLE_PACKETS_UNSCALED
										      : SAMPLE_ENTRY_CREATION;
			break;
		case O_HELP: usage(stdout); return 1;
		default:
			fprintf(stderr, "cheetah-probe: unknown option or missing value: %s (see --help)\n",
				argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "cheetah-probe: unexpected argument %s (options start with --; see --help)\n",
			argv[optind]);
		return -1;
	}
	int inputs = !!o->pcap + !!o->iface + !!o->vdev;
	if (inputs != 1) {
		fprintf(stderr, "cheetah-probe: give exactly one input: --pcap FILE, --iface IF or --vdev DEVARGS "
				"(see --help)\n");
		return -1;
	}
	if (o->repeat > 1 && !o->memory) {
		fprintf(stderr, "cheetah-probe: --repeat replays a trace held in memory: it needs --memory\n");
		return -1;
	}
	if (o->memory && !o->pcap) {
		fprintf(stderr, "cheetah-probe: --memory replays a pcap: it needs --pcap FILE\n");
		return -1;
	}
	if (o->flight_floor_bps < 0)
		o->flight_floor_bps = o->rate_threshold_bps / 2;
	return 0;
}
