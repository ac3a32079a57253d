#include "export.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

void format_address(const uint8_t a[16], char *out, unsigned size)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(a, mapped, 12) == 0)
		inet_ntop(AF_INET, a + 12, out, size);
	else
		inet_ntop(AF_INET6, a, out, size);
}

static void on_bin(void *ctx, const struct merged_bin *b)
{
	struct exporter *x = ctx;
	x->bins_released++;
	x->bin_bytes += b->bytes;
	x->bin_packets += b->packets;
	if (x->bins_csv)
		fprintf(x->bins_csv, "%llu,%llu,%llu,%llu\n", (unsigned long long)(b->start_ns / 1000000u),
			(unsigned long long)b->bytes, (unsigned long long)b->packets,
			(unsigned long long)b->cheetah_bytes);
	if (x->kafka)
		kafka_export_bin(x->kafka, b);
}

/* --out DIR is created if missing (with its parents), as users expect of an output directory. */
static void make_dirs(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof path, "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	mkdir(path, 0755);
}

static FILE *open_out(const char *dir, const char *name, const char *header)
{
	char path[4096];
	make_dirs(dir);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "cheetah-probe: cannot write %s: %s (does --out %s exist and is it writable?)\n", path,
			strerror(errno), dir);
		return NULL;
	}
	fputs(header, f);
	return f;
}

int exporter_open(struct exporter *x, const struct probe_options *o, uint32_t workers, struct link_threshold *thr)
{
	memset(x, 0, sizeof *x);
	x->o = o;
	bin_merger_init(&x->merger, workers, (uint64_t)o->bin_ms * 1000000u, on_bin, x);
	if (o->out_dir) {
		x->cheetahs_csv = open_out(o->out_dir, "cheetahs.csv",
					   "src,dst,src_port,dst_port,proto,detected_ms,flight_rate_bps\n");
		x->bins_csv = open_out(o->out_dir, "bins.csv", "bin_start_ms,bytes,packets,cheetah_bytes\n");
		if (!x->cheetahs_csv || !x->bins_csv)
			return -1;
	}
	if (o->kafka && !(x->kafka = kafka_export_open(o, thr)))
		return -1;
	return 0;
}

void exporter_event(struct exporter *x, const struct probe_event *ev)
{
	x->events++;
	if (ev->type == EV_BIN) {
		bin_merger_add(&x->merger, ev);
		return;
	}
	if (ev->type == EV_CHEETAH_START && x->cheetahs_csv) {
		char src[64], dst[64];
		format_address(ev->key.src, src, sizeof src);
		format_address(ev->key.dst, dst, sizeof dst);
		fprintf(x->cheetahs_csv, "%s,%s,%u,%u,%u,%llu,%.0f\n", src, dst, ev->key.src_port, ev->key.dst_port,
			ev->key.proto, (unsigned long long)(ev->time_ns / 1000000u), ev->rate_bps);
		x->cheetah_rows++;
	}
	if (x->kafka)
		kafka_export_event(x->kafka, ev);
}

void exporter_close(struct exporter *x)
{
	bin_merger_flush(&x->merger);
	if (x->cheetahs_csv)
		fclose(x->cheetahs_csv);
	if (x->bins_csv)
		fclose(x->bins_csv);
	x->cheetahs_csv = x->bins_csv = NULL;
}
