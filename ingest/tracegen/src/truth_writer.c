#include "truth_writer.h"

#include <arpa/inet.h>
#include <stdio.h>

void address_text(const uint8_t a[16], uint8_t family, char *out, unsigned size)
{
	if (family == 4)
		inet_ntop(AF_INET, a + 12, out, size);
	else
		inet_ntop(AF_INET6, a, out, size);
}

static void write_array(FILE *f, const char *name, const uint64_t *v, uint32_t n)
{
	fprintf(f, "  \"%s\": [", name);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	fprintf(f, "],\n");
}

static void write_cheetah(FILE *f, const struct injected_cheetah *c, double r, int last)
{
	char src[64], dst[64];
	address_text(c->spec.src, c->spec.family, src, sizeof src);
	address_text(c->spec.dst, c->spec.family, dst, sizeof dst);
	fprintf(f,
		"    {\"src\": \"%s\", \"dst\": \"%s\", \"src_port\": %u, \"dst_port\": %u, \"proto\": %u, "
		"\"rate_bps\": %.1f, \"rtt_ms\": %.3f, \"window_packets\": %u, "
		"\"first_ms\": %llu, \"last_ms\": %llu, \"first_us\": %llu, \"last_us\": %llu, "
		"\"packets\": %llu, \"bytes\": %llu, \"above_r\": %s, \"below_half_r\": %s}%s\n",
		src, dst, c->spec.sport, c->spec.dport, c->spec.proto, c->rate_bps, c->rtt_ms, c->window,
		(unsigned long long)(c->first_us / 1000), (unsigned long long)(c->last_us / 1000),
		(unsigned long long)c->first_us, (unsigned long long)c->last_us, (unsigned long long)c->packets,
		(unsigned long long)c->bytes, c->rate_bps > r ? "true" : "false",
		c->rate_bps < r / 2 ? "true" : "false", last ? "" : ",");
}

int truth_write_json(const char *path, const struct trace_truth *t)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "{\n  \"seed\": %llu,\n  \"scale\": %g,\n  \"seconds\": %g,\n", (unsigned long long)t->seed,
		t->scale, t->seconds);
	fprintf(f, "  \"rate_threshold_bps\": %.1f,\n  \"link_bps\": %.1f,\n  \"start_epoch_s\": %llu,\n",
		t->rate_threshold_bps, t->link_bps, (unsigned long long)t->start_epoch_s);
	fprintf(f, "  \"bytes_are\": \"IP bytes (IPv4 total length, IPv6 40 + payload length)\",\n");
	fprintf(f, "  \"packets\": %llu,\n  \"bytes\": %llu,\n  \"wire_bytes\": %llu,\n  \"flows\": %llu,\n",
		(unsigned long long)t->packets, (unsigned long long)t->ip_bytes,
		(unsigned long long)t->wire_bytes, (unsigned long long)t->flows);
	fprintf(f, "  \"bin_ms\": %u,\n", t->bin_ms);
	write_array(f, "bin_bytes", t->bin_bytes, t->bins);
	write_array(f, "bin_packets", t->bin_packets, t->bins);
	fprintf(f, "  \"cheetahs\": [\n");
	for (uint32_t i = 0; i < t->n_cheetahs; i++)
		write_cheetah(f, &t->cheetahs[i], t->rate_threshold_bps, i + 1 == t->n_cheetahs);
	fprintf(f, "  ]\n}\n");
	return fclose(f) == 0 ? 0 : -1;
}
