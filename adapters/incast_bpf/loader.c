/* cheetah-incast-guard: attach or detach the incast guard's tc programs on an interface.
 *
 *   cheetah-incast-guard attach --object guard.bpf.o --interface IF [--netns NAME] --pin DIR
 *   cheetah-incast-guard detach --interface IF [--netns NAME] [--pin DIR]
 *
 * attach loads guard.bpf.o once (its maps pinned in DIR on a bpf filesystem, reused when they are
 * there already, so a re-attach keeps the counts and settings), adds a clsact qdisc to IF if it has
 * none, and attaches guard_ingress (packets from the receiver) and guard_egress (packets towards
 * it) as direct-action filters, replacing this program's earlier attachment. The attachment
 * outlives this process: the incast adapter reads and writes the pinned maps. detach removes both
 * filters and, with --pin, the pinned maps. Prints one JSON line; exit 0, 1 on failure, 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define BPF_FS_MAGIC 0xcafe4a11
#define HANDLE 0xc4ea
#define PRIORITY 1

static const char *MAPS[] = { "settings", "counters", "port", "conns" };

static int fail(const char *what, int err)
{
	printf("{\"event\":\"error\",\"error\":\"%s: %s\"}\n", what, strerror(err < 0 ? -err : err));
	fprintf(stderr, "cheetah-incast-guard: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

static int enter_netns(const char *name)
{
	char path[512];
	int fd, rc;

	if (!name || !*name)
		return 0;
	snprintf(path, sizeof(path), "/var/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = setns(fd, CLONE_NEWNET);
	close(fd);
	return rc < 0 ? -errno : 0;
}

/* The pin directory must be on a bpf filesystem: mount one at /sys/fs/bpf if nothing is there. */
static int ensure_pin_dir(const char *dir)
{
	struct statfs st;
	char path[512];

	if (statfs("/sys/fs/bpf", &st) == 0 && st.f_type != BPF_FS_MAGIC &&
	    strncmp(dir, "/sys/fs/bpf/", 12) == 0 &&
	    mount("bpf", "/sys/fs/bpf", "bpf", 0, "mode=0700") < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p == '/') {
			*p = 0;
			if (mkdir(path, 0700) < 0 && errno != EEXIST)
				return -errno;
			*p = '/';
		}
	}
	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return -errno;
	if (statfs(path, &st) < 0)
		return -errno;
	return st.f_type == BPF_FS_MAGIC ? 0 : -ENOTSUP;
}

static int attach_one(int ifindex, enum bpf_tc_attach_point point, int prog_fd, __u32 *prog_id)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE, .priority = PRIORITY, .prog_fd = prog_fd,
			    .flags = BPF_TC_F_REPLACE);
	int rc = bpf_tc_attach(&hook, &opts);

	*prog_id = opts.prog_id;
	return rc;
}

static int detach_one(int ifindex, enum bpf_tc_attach_point point)
{
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = point);
	DECLARE_LIBBPF_OPTS(bpf_tc_opts, opts, .handle = HANDLE, .priority = PRIORITY);
	int rc = bpf_tc_detach(&hook, &opts);

	return rc == -ENOENT || rc == -EINVAL ? 0 : rc;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: cheetah-incast-guard attach --object FILE --interface IF [--netns NAME] --pin DIR\n"
		"       cheetah-incast-guard detach --interface IF [--netns NAME] [--pin DIR]\n"
		"Attaches (or detaches) the incast guard's tc programs on IF: ingress = packets from the\n"
		"receiver (ACK windows capped), egress = packets towards it (SYN-ACKs counted). Maps are\n"
		"pinned in DIR (on a bpf filesystem) for the incast adapter. docs/INCAST.md.\n");
}

int main(int argc, char **argv)
{
	static const struct option options[] = {
		{ "object", required_argument, 0, 'o' }, { "interface", required_argument, 0, 'i' },
		{ "netns", required_argument, 0, 'n' },	 { "pin", required_argument, 0, 'p' },
		{ "help", no_argument, 0, 'h' },	 { 0, 0, 0, 0 },
	};
	const char *object = 0, *interface = 0, *netns = "", *pin = 0, *cmd;
	int opt, ifindex, rc;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	cmd = argv[1];
	optind = 2;
	while ((opt = getopt_long(argc, argv, "o:i:n:p:h", options, 0)) != -1) {
		switch (opt) {
		case 'o': object = optarg; break;
		case 'i': interface = optarg; break;
		case 'n': netns = optarg; break;
		case 'p': pin = optarg; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!interface || (strcmp(cmd, "attach") && strcmp(cmd, "detach")) ||
	    (!strcmp(cmd, "attach") && (!object || !pin))) {
		usage(stderr);
		return 2;
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if (pin && (rc = ensure_pin_dir(pin)) < 0)
		return fail("pin directory (needs a bpf filesystem)", rc);
	rc = enter_netns(netns);
	ifindex = rc < 0 ? 0 : if_nametoindex(interface);
	if (!strcmp(cmd, "detach")) {
		/* A namespace or interface that is gone took the programs with it: only the pins are left. */
		int a = ifindex ? detach_one(ifindex, BPF_TC_INGRESS) : 0;
		int b = ifindex ? detach_one(ifindex, BPF_TC_EGRESS) : 0;
		char path[600];

		for (unsigned i = 0; pin && i < sizeof(MAPS) / sizeof(*MAPS); i++) {
			snprintf(path, sizeof(path), "%s/%s", pin, MAPS[i]);
			unlink(path);
		}
		if (pin)
			rmdir(pin);
		if (a < 0 || b < 0)
			return fail("detaching", a < 0 ? a : b);
		printf("{\"event\":\"detached\",\"interface\":\"%s\",\"present\":%s}\n", interface, ifindex ? "true" : "false");
		return 0;
	}
	if (rc < 0)
		return fail("entering the network namespace", rc);
	if (!ifindex)
		return fail("interface", errno);

	struct bpf_object *obj = bpf_object__open_file(object, 0);
	struct bpf_map *map;
	char path[600];

	if (!obj)
		return fail("opening the object", errno);
	bpf_object__for_each_map(map, obj) {
		snprintf(path, sizeof(path), "%s/%s", pin, bpf_map__name(map));
		if ((rc = bpf_map__set_pin_path(map, path)) < 0)
			return fail("pin path", rc);
	}
	if ((rc = bpf_object__load(obj)) < 0)
		return fail("loading the programs (verifier log above)", rc);
	DECLARE_LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex, .attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS);
	rc = bpf_tc_hook_create(&hook);
	if (rc < 0 && rc != -EEXIST)
		return fail("adding the clsact qdisc", rc);
	struct bpf_program *in = bpf_object__find_program_by_name(obj, "guard_ingress");
	struct bpf_program *out = bpf_object__find_program_by_name(obj, "guard_egress");
	__u32 in_id = 0, out_id = 0;

	if (!in || !out)
		return fail("programs guard_ingress/guard_egress in the object", ENOENT);
	if ((rc = attach_one(ifindex, BPF_TC_INGRESS, bpf_program__fd(in), &in_id)) < 0)
		return fail("attaching ingress", rc);
	if ((rc = attach_one(ifindex, BPF_TC_EGRESS, bpf_program__fd(out), &out_id)) < 0)
		return fail("attaching egress", rc);
	printf("{\"event\":\"attached\",\"interface\":\"%s\",\"netns\":\"%s\",\"ifindex\":%d,"
	       "\"ingress_prog_id\":%u,\"egress_prog_id\":%u,\"pin\":\"%s\"}\n",
	       interface, netns, ifindex, in_id, out_id, pin);
	bpf_object__close(obj);
	return 0;
}
