#include "port.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#define RX_DESC 1024
#define POOL_CACHE 256

static const char *const eal_base[] = {"--no-huge", "-m", "256", "--no-shconf", "--no-pci", "--no-telemetry",
				       "--log-level", "*:warning", "--log-level", "pmd.net.pcap:error"};

int probe_eal_init(const struct probe_options *o, const char *prog, uint32_t lcores_needed)
{
	cpu_set_t set;
	int cpus[CPU_SETSIZE], ncpu = 0;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set))
				cpus[ncpu++] = c;
	if (ncpu == 0)
		cpus[ncpu++] = 0;
	/* More stages than CPUs share CPUs (lcore i on CPU i mod n): slower, same results. */
	static char lcores[1024];
	size_t len = 0;
	for (uint32_t i = 0; i < lcores_needed && len < sizeof lcores - 16; i++)
		len += (size_t)snprintf(lcores + len, sizeof lcores - len, "%s%u@%d", i ? "," : "", i, cpus[i % (uint32_t)ncpu]);

	static char vdev[4096];
	static char extra[4096];
	char *argv[64];
	int argc = 0;
	argv[argc++] = (char *)prog;
	for (size_t i = 0; i < sizeof eal_base / sizeof *eal_base; i++)
		argv[argc++] = (char *)eal_base[i];
	argv[argc++] = "--lcores";
	argv[argc++] = lcores;
	if (o->pcap && !o->memory)
		snprintf(vdev, sizeof vdev, "net_pcap0,rx_pcap=%s", o->pcap);
	else if (o->iface)
		/* A deep ring (8192 frames of 2 KB per queue) rides out scheduling hiccups. */
		/* One queue: several workers are fed by the distributor. (With qpairs > 1
		 * the kernel's fanout lost most packets in a veth test here.) */
		snprintf(vdev, sizeof vdev, "net_af_packet0,iface=%s,qpairs=1,blocksz=4096,framesz=2048,framecnt=8192",
			 o->iface);
	else if (o->vdev)
		snprintf(vdev, sizeof vdev, "%s", o->vdev);
	if (vdev[0]) {
		argv[argc++] = "--vdev";
		argv[argc++] = vdev;
	}
	if (o->eal_extra) {
		snprintf(extra, sizeof extra, "%s", o->eal_extra);
		for (char *save = NULL, *t = strtok_r(extra, " ", &save); t && argc < 62; t = strtok_r(NULL, " ", &save))
			argv[argc++] = t;
	}
	argv[argc] = NULL;
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "cheetah-probe: DPDK EAL failed to start: %s (EAL arguments:", rte_strerror(rte_errno));
		for (int i = 1; i < argc; i++)
			fprintf(stderr, " %s", argv[i]);
		fprintf(stderr, ")\n");
		return -1;
	}
	return 0;
}

int capture_port_open(const struct probe_options *o, struct capture_port *p, uint16_t priv_size)
{
	memset(p, 0, sizeof *p);
	if (rte_eth_dev_count_avail() == 0) {
		fprintf(stderr, "cheetah-probe: no DPDK port came up (input %s); check the path/interface "
				"and that the PMD is installed (librte_net_pcap, librte_net_af_packet)\n",
			o->pcap ? o->pcap : o->iface ? o->iface : o->vdev);
		return -1;
	}
	uint16_t pid = 0;
	RTE_ETH_FOREACH_DEV(pid) break;
	p->port_id = pid;
	struct rte_eth_dev_info info;
	if (rte_eth_dev_info_get(pid, &info) != 0)
		return -1;
	struct rte_eth_conf conf;
	memset(&conf, 0, sizeof conf);
	p->rx_queues = 1;
	uint64_t rss_hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
	if (o->workers > 1 && info.max_rx_queues >= o->workers && rss_hf) {
		/* The NIC spreads flows: a symmetric RSS key (0x6d5a repeated) sends both
		 * directions of a flow to the same queue, hence the same worker. */
		static uint8_t sym_key[40];
		for (size_t i = 0; i < sizeof sym_key; i += 2)
			sym_key[i] = 0x6d, sym_key[i + 1] = 0x5a;
		p->rx_queues = (uint16_t)o->workers;
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_key = info.hash_key_size == 40 ? sym_key : NULL;
		conf.rx_adv_conf.rss_conf.rss_key_len = info.hash_key_size == 40 ? 40 : 0;
		conf.rx_adv_conf.rss_conf.rss_hf = rss_hf;
	}
	/* net_pcap stamps every mbuf with the pcap record's time in microseconds
	 * (no offload flag needed; measured on DPDK 22.11). Other ports: the probe
	 * uses the host clock, since NIC clocks need per-device conversion. */
	if (!strcmp(info.driver_name, "net_pcap") &&
	    rte_mbuf_dyn_rx_timestamp_register(&p->ts_offset, &p->ts_flag) == 0)
		p->timestamps = 1;
	uint32_t nb_mbuf = RX_DESC * p->rx_queues + 4096 * (o->workers + 1) + 2048;
	p->pool = rte_pktmbuf_pool_create("probe_pool", nb_mbuf, POOL_CACHE, RTE_ALIGN(priv_size, RTE_MBUF_PRIV_ALIGN),
					  RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (!p->pool) {
		fprintf(stderr, "cheetah-probe: cannot allocate %u packet buffers: %s (EAL has -m 256 MB)\n", nb_mbuf,
			rte_strerror(rte_errno));
		return -1;
	}
	int rc = rte_eth_dev_configure(pid, p->rx_queues, 0, &conf);
	for (uint16_t q = 0; rc == 0 && q < p->rx_queues; q++)
		rc = rte_eth_rx_queue_setup(pid, q, RX_DESC, rte_eth_dev_socket_id(pid), NULL, p->pool);
	if (rc == 0)
		rc = rte_eth_dev_start(pid);
	if (rc != 0) {
		fprintf(stderr, "cheetah-probe: port %u (%s) failed to start: %s\n", pid, info.driver_name, rte_strerror(-rc));
		return -1;
	}
	rte_eth_promiscuous_enable(pid);
	return 0;
}

void capture_port_close(struct capture_port *p)
{
	rte_eth_dev_stop(p->port_id);
	rte_eth_dev_close(p->port_id);
}

int64_t pcap_count_records(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "cheetah-probe: cannot open --pcap %s: %s\n", path, strerror(errno));
		return -1;
	}
	uint32_t h[6];
	int swap;
	if (fread(h, 4, 6, f) != 6 ||
	    !((swap = 0, h[0] == 0xa1b2c3d4u || h[0] == 0xa1b23c4du) ||
	      (swap = 1, h[0] == 0xd4c3b2a1u || h[0] == 0x4d3cb2a1u))) {
		fprintf(stderr, "cheetah-probe: --pcap %s is not a classic pcap file (pcapng? convert it with "
				"editcap -F pcap)\n", path);
		fclose(f);
		return -1;
	}
	fseeko(f, 0, SEEK_END);
	off_t size = ftello(f), pos = 24;
	fseeko(f, pos, SEEK_SET);
	int64_t n = 0;
	uint32_t rec[4];
	/* A record cut short, or with an impossible length, ends what libpcap will
	 * read too: count up to there and say so. */
	off_t record_at = pos;
	while (fread(rec, 4, 4, f) == 4) {
		uint32_t caplen = swap ? __builtin_bswap32(rec[2]) : rec[2];
		record_at = pos;
		pos += 16 + (off_t)caplen;
		if (caplen > 65535 || pos > size || fseeko(f, pos, SEEK_SET) != 0) {
			fprintf(stderr, "cheetah-probe: --pcap %s is damaged at byte %lld (record %lld: captured length "
					"%u, %lld bytes left): only the %lld records before it are read\n",
				path, (long long)record_at, (long long)n + 1, caplen, (long long)(size - record_at - 16),
				(long long)n);
			break;
		}
		n++;
	}
	fclose(f);
	return n;
}
