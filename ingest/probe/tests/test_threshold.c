/* thresholds.v1 records offered to one link: the highest version wins, in
 * whatever order the versions arrive (link_threshold_offer). */
#include <math.h>

#include "../src/link_threshold.h"
#include "check.h"

/* A link whose R came from the command line: 1 Gb/s, version 0. */
static void start(struct link_threshold *t)
{
	*t = (struct link_threshold){0};
	link_threshold_set(t, 1e9, 0);
}

#define CHECK_R(t, rate, ver)                                     \
	do {                                                      \
		struct threshold_value v_ = link_threshold_get(t); \
		CHECK(v_.rate_bps == (rate));                     \
		CHECK_EQ_U(v_.version, (ver));                    \
	} while (0)

static void newer_versions_replace_r_in_order(void)
{
	struct link_threshold t;
	start(&t);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 2e8, 0), THRESHOLD_APPLIED); /* replaces the CLI's v0 */
	CHECK_R(&t, 2e8, 0);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1.0, 4), THRESHOLD_APPLIED);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1e8, 5), THRESHOLD_APPLIED);
	CHECK_R(&t, 1e8, 5);
}

/* v7 then v3 and v6 (a late republish of older records): R stays v7's; v8
 * still applies afterwards. */
static void an_older_version_after_a_newer_one_is_ignored(void)
{
	struct link_threshold t;
	start(&t);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1e8, 7), THRESHOLD_APPLIED);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1.0, 3), THRESHOLD_OLDER);
	CHECK_R(&t, 1e8, 7);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 5e6, 6), THRESHOLD_OLDER);
	CHECK_R(&t, 1e8, 7);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 3e8, 8), THRESHOLD_APPLIED);
	CHECK_R(&t, 3e8, 8);
}

/* The same version read again (compaction, a restart reading the topic from
 * the start) is the same record: applied, not refused. */
static void the_same_version_again_is_applied(void)
{
	struct link_threshold t;
	start(&t);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1e8, 7), THRESHOLD_APPLIED);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1e8, 7), THRESHOLD_APPLIED);
	CHECK_R(&t, 1e8, 7);
}

/* Versions are uint64: one above 2^63 is higher than 5, not negative. */
static void versions_compare_unsigned(void)
{
	struct link_threshold t;
	start(&t);
	uint64_t big = (UINT64_C(1) << 63) + 1;
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1e8, big), THRESHOLD_APPLIED);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", 1.0, 5), THRESHOLD_OLDER);
	CHECK_R(&t, 1e8, big);
}

static void other_links_and_bad_rates_change_nothing(void)
{
	struct link_threshold t;
	start(&t);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link1", 1.0, 9), THRESHOLD_OTHER_LINK);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "link00", 1.0, 9), THRESHOLD_OTHER_LINK);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", "", 1.0, 9), THRESHOLD_OTHER_LINK);
	CHECK_EQ_U(link_threshold_offer(&t, "link0", NULL, 1.0, 9), THRESHOLD_OTHER_LINK);
	const double bad[] = {0.0, -5e6, NAN, INFINITY, -INFINITY};
	for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
		CHECK_EQ_U(link_threshold_offer(&t, "link0", "link0", bad[i], 9), THRESHOLD_NO_RATE);
	CHECK_R(&t, 1e9, 0);
}

void run_threshold_tests(void);
void run_threshold_tests(void)
{
	RUN("threshold", newer_versions_replace_r_in_order);
	RUN("threshold", an_older_version_after_a_newer_one_is_ignored);
	RUN("threshold", the_same_version_again_is_applied);
	RUN("threshold", versions_compare_unsigned);
	RUN("threshold", other_links_and_bad_rates_change_nothing);
}
