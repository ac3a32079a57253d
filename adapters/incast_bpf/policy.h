/* The incast guard's share policy: pure functions of a receiver's settings and state.
 *
 * One source: the tc program (guard.bpf.c) computes every window with these functions, and the
 * tests call the same code compiled as a shared library (policy_lib.c), with hand-computed cases.
 *
 * A receiver's port buffer B is shared as receive windows among its senders:
 *   - a sender counted while the port's queue holds less than 75 % of B gets a full share:
 *     75 % of B divided by the number of full-share senders now;
 *   - a sender counted while the queue holds 75 % of B or more gets 1 MSS until the queue is
 *     below 75 % again (it is then promoted to a full share);
 *   - while the queue holds 95 % of B or more, every sender's window is 0;
 *   - a FIN or RST releases the sender's share (the others' shares grow at once).
 * Windows only ever go down: an ACK already advertising less keeps its window.
 */
#ifndef CHEETAH_INCAST_POLICY_H
#define CHEETAH_INCAST_POLICY_H

#ifndef GUARD_U64
#include <linux/types.h>
#define GUARD_U64 __u64
#define GUARD_U32 __u32
#endif

#define GUARD_TIER_FULL 0
#define GUARD_TIER_ONE_MSS 1

/* At or past this share of B (percent) new senders get 1 MSS. */
#define GUARD_ONE_MSS_PERCENT 75
/* At or past this share of B (percent) every window is 0. */
#define GUARD_ZERO_PERCENT 95
/* The share of B divided among full-share senders (percent). */
#define GUARD_SHARED_PERCENT 75

static inline int guard_congested(GUARD_U64 buffer, GUARD_U64 backlog)
{
	return backlog * 100 >= buffer * GUARD_ONE_MSS_PERCENT;
}

/* The tier of a sender counted now. */
static inline GUARD_U32 guard_tier_on_admit(GUARD_U64 buffer, GUARD_U64 backlog)
{
	return guard_congested(buffer, backlog) ? GUARD_TIER_ONE_MSS : GUARD_TIER_FULL;
}

/* The window (bytes) a sender of this tier may have outstanding. */
static inline GUARD_U64 guard_window(GUARD_U64 buffer, GUARD_U32 mss, GUARD_U64 full_senders,
				     GUARD_U64 backlog, GUARD_U32 tier)
{
	if (backlog * 100 >= buffer * GUARD_ZERO_PERCENT)
		return 0;
	if (tier == GUARD_TIER_ONE_MSS)
		return mss;
	return buffer * GUARD_SHARED_PERCENT / 100 / (full_senders ? full_senders : 1);
}

/* The TCP window field an ACK leaves with: the window in units of 2^shift bytes, never above the
 * field it arrived with; a non-zero window never rounds down to a zero field. */
static inline GUARD_U32 guard_window_field(GUARD_U64 window, GUARD_U32 shift, GUARD_U32 original)
{
	GUARD_U64 field = window >> (shift > 14 ? 14 : shift);

	if (window && !field)
		field = 1;
	if (field > 0xffff)
		field = 0xffff;
	return field < original ? (GUARD_U32)field : original;
}

#endif
