/* The share policy as a shared library, for the tests (tests/test_incast_policy.py). */
#include <stdint.h>
#define GUARD_U64 uint64_t
#define GUARD_U32 uint32_t
#include "policy.h"

uint32_t policy_tier_on_admit(uint64_t buffer, uint64_t backlog) { return guard_tier_on_admit(buffer, backlog); }
uint64_t policy_window(uint64_t buffer, uint32_t mss, uint64_t full, uint64_t backlog, uint32_t tier)
{
	return guard_window(buffer, mss, full, backlog, tier);
}
uint32_t policy_window_field(uint64_t window, uint32_t shift, uint32_t original)
{
	return guard_window_field(window, shift, original);
}
int policy_congested(uint64_t buffer, uint64_t backlog) { return guard_congested(buffer, backlog); }
