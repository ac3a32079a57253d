/* Runs every unit test of the probe's pure logic (no DPDK, no Kafka). */
#include "check.h"

void run_cache_tests(void);
void run_flight_rule_tests(void);
void run_parse_tests(void);
void run_bin_tests(void);
void run_counter_tests(void);
void run_threshold_tests(void);
void run_args_tests(void);

int check_tests_failed;
int check_tests_run;

int main(void)
{
	run_cache_tests();
	run_flight_rule_tests();
	run_parse_tests();
	run_bin_tests();
	run_counter_tests();
	run_threshold_tests();
	run_args_tests();
	return check_tests_failed ? 1 : 0;
}
