// SPDX-License-Identifier: GPL-2.0
/* The incast guard's data path: tc (clsact, direct action) programs on a receiver's access port.
 *
 *   guard_egress  packets TOWARDS the receiver: counts the SYN-ACKs of senders answering it, notes
 *                 the senders' window-scale options, releases on FIN/RST;
 *   guard_ingress packets FROM the receiver: notes its own window-scale option (SYN, SYN-ACK),
 *                 releases on FIN/RST, and lowers the window of its ACKs to the sender's share
 *                 (policy.h), fixing the TCP checksum.
 *
 * Only receivers with an entry in `settings` (written by the incast adapter) are counted and
 * guarded. Counting is exact: a connection is counted by the first SYN-ACK that finds it
 * uncounted and released by the first FIN or RST that finds it counted (atomic flag updates), so a
 * retransmitted SYN-ACK or a FIN seen in both directions changes nothing. IPv4 and IPv6 (TCP right
 * after the fixed header); every other packet passes untouched.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/in.h>
#include <linux/tcp.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#include "policy.h"

#define MAX_CONNECTIONS 65536
#define MAX_RECEIVERS 1024

struct guard_settings {
	__u64 buffer_bytes;	/* the port buffer B */
	__u32 mss;		/* 1 MSS, bytes */
	__u32 pad;
};

struct guard_counters {
	__u64 senders;		/* counted, full share, now */
	__u64 senders_one_mss;	/* counted past 75 % occupancy, held at 1 MSS, now */
	__u64 syn_acks;		/* connections counted */
	__u64 releases;		/* connections released (FIN/RST) */
	__u64 acks_seen;	/* ACKs from the receiver on counted connections */
	__u64 acks_capped;	/* ... whose window was lowered */
	__u64 share_bytes;	/* the last full share computed */
	__u64 promotions;	/* 1-MSS senders promoted to a full share */
	__u64 table_full;	/* connections not tracked: the connection table was full */
};

struct guard_port {
	__u64 backlog_bytes;	/* the bottleneck queue's backlog, written by the adapter */
	__u64 updated_ns;
};

struct conn_key {
	__u8 receiver[16];
	__u8 sender[16];
	__u16 receiver_port;
	__u16 sender_port;
};

#define F_RCV_SYN 1	/* the receiver's SYN or SYN-ACK was seen */
#define F_RCV_WS 2	/* ... with a window-scale option */
#define F_SND_SYN 4	/* the sender's SYN or SYN-ACK was seen */
#define F_SND_WS 8	/* ... with a window-scale option */
#define F_COUNTED 16
#define F_ONE_MSS 32

struct conn_val {
	__u32 flags;
	__u32 rcv_wscale;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_RECEIVERS);
	__type(key, __u8[16]);
	__type(value, struct guard_settings);
} settings SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_RECEIVERS);
	__type(key, __u8[16]);
	__type(value, struct guard_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct guard_port);
} port SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MAX_CONNECTIONS);
	__type(key, struct conn_key);
	__type(value, struct conn_val);
} conns SEC(".maps");

struct packet {
	__u8 src[16];
	__u8 dst[16];
	__u32 tcp_off;		/* offset of the TCP header in the packet */
	__u32 tcp_len;		/* TCP header length */
};

static __always_inline void mapped_v4(__u8 out[16], __be32 addr)
{
	__builtin_memset(out, 0, 10);
	out[10] = 0xff;
	out[11] = 0xff;
	__builtin_memcpy(out + 12, &addr, 4);
}

/* Fills p and returns the TCP header, or NULL when the packet is not TCP we can read. */
static __always_inline struct tcphdr *parse(struct __sk_buff *skb, struct packet *p)
{
	void *data = (void *)(long)skb->data;
	void *end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct tcphdr *tcp;

	if ((void *)(eth + 1) > end)
		return 0;
	if (eth->h_proto == bpf_htons(ETH_P_IP)) {
		struct iphdr *ip = (void *)(eth + 1);

		if ((void *)(ip + 1) > end || ip->protocol != IPPROTO_TCP || ip->ihl < 5)
			return 0;
		if (ip->frag_off & bpf_htons(0x1fff))
			return 0;	/* a later fragment has no TCP header */
		mapped_v4(p->src, ip->saddr);
		mapped_v4(p->dst, ip->daddr);
		p->tcp_off = sizeof(*eth) + ip->ihl * 4;
	} else if (eth->h_proto == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr *ip6 = (void *)(eth + 1);

		if ((void *)(ip6 + 1) > end || ip6->nexthdr != IPPROTO_TCP)
			return 0;
		__builtin_memcpy(p->src, &ip6->saddr, 16);
		__builtin_memcpy(p->dst, &ip6->daddr, 16);
		p->tcp_off = sizeof(*eth) + sizeof(*ip6);
	} else {
		return 0;
	}
	if (p->tcp_off > 14 + 60)
		return 0;
	tcp = data + p->tcp_off;
	if ((void *)(tcp + 1) > end || tcp->doff < 5)
		return 0;
	p->tcp_len = tcp->doff * 4;
	return tcp;
}

/* The window-scale option of a SYN or SYN-ACK: its shift, or -1 when absent. */
static __always_inline int window_scale(struct __sk_buff *skb, struct packet *p)
{
	__u8 opts[40];
	__u32 len = p->tcp_len - 20;
	__u32 i = 0;

	if (len == 0 || len > 40)
		return -1;
	if (bpf_skb_load_bytes(skb, p->tcp_off + 20, opts, len & 63) < 0)
		return -1;
	for (int n = 0; n < 40; n++) {
		__u8 kind, size;

		if (i >= len || i >= 40)
			break;
		kind = opts[i & 63];
		if (kind == 0)		/* end of options */
			break;
		if (kind == 1) {	/* no-op */
			i++;
			continue;
		}
		if (i + 1 >= len || i + 1 >= 40)
			break;
		size = opts[(i + 1) & 63];
		if (size < 2)
			break;
		if (kind == 3 && size == 3 && i + 2 < len && i + 2 < 40)
			return opts[(i + 2) & 63];
		i += size;
	}
	return -1;
}

static __always_inline void release(struct conn_key *key, struct guard_counters *c)
{
	struct conn_val *v = bpf_map_lookup_elem(&conns, key);

	if (!v)
		return;
	__u32 old = __sync_fetch_and_and(&v->flags, ~(__u32)F_COUNTED);

	if (old & F_COUNTED) {
		if (__sync_fetch_and_and(&v->flags, ~(__u32)F_ONE_MSS) & F_ONE_MSS)
			__sync_fetch_and_add(&c->senders_one_mss, -1);
		else
			__sync_fetch_and_add(&c->senders, -1);
		__sync_fetch_and_add(&c->releases, 1);
	}
	bpf_map_delete_elem(&conns, key);
}

static __always_inline __u64 backlog_now(void)
{
	__u32 zero = 0;
	struct guard_port *pt = bpf_map_lookup_elem(&port, &zero);

	return pt ? pt->backlog_bytes : 0;
}

/* A SYN or SYN-ACK: notes its side's window scale; a SYN starts a connection afresh. */
static __always_inline struct conn_val *handshake(struct __sk_buff *skb, struct packet *p, struct conn_key *key,
						  struct tcphdr *tcp, int from_receiver, struct guard_counters *c)
{
	int ws = window_scale(skb, p);
	__u32 seen = from_receiver ? F_RCV_SYN | (ws >= 0 ? F_RCV_WS : 0) : F_SND_SYN | (ws >= 0 ? F_SND_WS : 0);
	struct conn_val fresh = { .flags = seen, .rcv_wscale = from_receiver && ws >= 0 ? ws : 0 };
	struct conn_val *v;

	if (!tcp->ack)
		release(key, c);	/* a new SYN on a tracked 4-tuple: the old connection is gone */
	v = bpf_map_lookup_elem(&conns, key);
	if (!v) {
		if (bpf_map_update_elem(&conns, key, &fresh, BPF_NOEXIST) == -7 /* E2BIG: full */) {
			__sync_fetch_and_add(&c->table_full, 1);
			return 0;
		}
		v = bpf_map_lookup_elem(&conns, key);
		if (!v)
			return 0;
	}
	__sync_fetch_and_or(&v->flags, seen);
	if (from_receiver && ws >= 0)
		v->rcv_wscale = ws;
	return v;
}

static __always_inline int guard(struct __sk_buff *skb, int from_receiver)
{
	struct packet p = {};
	struct tcphdr *tcp = parse(skb, &p);
	struct conn_key key = {};
	struct guard_settings *s;
	struct guard_counters *c;
	struct conn_val *v;

	if (!tcp)
		return TC_ACT_OK;
	__builtin_memcpy(key.receiver, from_receiver ? p.src : p.dst, 16);
	__builtin_memcpy(key.sender, from_receiver ? p.dst : p.src, 16);
	key.receiver_port = from_receiver ? tcp->source : tcp->dest;
	key.sender_port = from_receiver ? tcp->dest : tcp->source;
	s = bpf_map_lookup_elem(&settings, key.receiver);
	c = bpf_map_lookup_elem(&counters, key.receiver);
	if (!s || !c)
		return TC_ACT_OK;

	if (tcp->rst || tcp->fin) {
		release(&key, c);
		return TC_ACT_OK;
	}
	if (tcp->syn) {
		v = handshake(skb, &p, &key, tcp, from_receiver, c);
		if (v && !from_receiver && tcp->ack) {	/* a sender's SYN-ACK towards the receiver */
			__u32 tier = guard_tier_on_admit(s->buffer_bytes, backlog_now());
			__u32 mark = F_COUNTED | (tier == GUARD_TIER_ONE_MSS ? F_ONE_MSS : 0);

			if (!(__sync_fetch_and_or(&v->flags, mark) & F_COUNTED)) {
				__sync_fetch_and_add(tier == GUARD_TIER_ONE_MSS ? &c->senders_one_mss : &c->senders, 1);
				__sync_fetch_and_add(&c->syn_acks, 1);
			}
		}
		return TC_ACT_OK;
	}
	if (!from_receiver || !tcp->ack)
		return TC_ACT_OK;

	/* An ACK from the receiver: cap its window to the sender's share. */
	v = bpf_map_lookup_elem(&conns, &key);
	if (!v || !(v->flags & F_COUNTED) || (v->flags & (F_RCV_SYN | F_SND_SYN)) != (F_RCV_SYN | F_SND_SYN))
		return TC_ACT_OK;
	__u64 backlog = backlog_now();
	__u32 tier = GUARD_TIER_FULL;

	if (v->flags & F_ONE_MSS) {
		if (!guard_congested(s->buffer_bytes, backlog) &&
		    (__sync_fetch_and_and(&v->flags, ~(__u32)F_ONE_MSS) & F_ONE_MSS)) {
			__sync_fetch_and_add(&c->senders_one_mss, -1);
			__sync_fetch_and_add(&c->senders, 1);
			__sync_fetch_and_add(&c->promotions, 1);
		} else {
			tier = GUARD_TIER_ONE_MSS;
		}
	}
	__u64 window = guard_window(s->buffer_bytes, s->mss, c->senders, backlog, tier);
	__u32 shift = (v->flags & (F_RCV_WS | F_SND_WS)) == (F_RCV_WS | F_SND_WS) ? v->rcv_wscale : 0;
	__u16 old = bpf_ntohs(tcp->window);
	__u16 field = guard_window_field(window, shift, old);

	__sync_fetch_and_add(&c->acks_seen, 1);
	if (tier == GUARD_TIER_FULL)
		c->share_bytes = window;
	if (field >= old)
		return TC_ACT_OK;
	__be16 old_be = tcp->window, new_be = bpf_htons(field);
	__u32 at = p.tcp_off + offsetof(struct tcphdr, window);

	bpf_l4_csum_replace(skb, p.tcp_off + offsetof(struct tcphdr, check), old_be, new_be, sizeof(new_be));
	bpf_skb_store_bytes(skb, at, &new_be, sizeof(new_be), 0);
	__sync_fetch_and_add(&c->acks_capped, 1);
	return TC_ACT_OK;
}

SEC("tc")
int guard_ingress(struct __sk_buff *skb)
{
	return guard(skb, 1);
}

SEC("tc")
int guard_egress(struct __sk_buff *skb)
{
	return guard(skb, 0);
}

char LICENSE[] SEC("license") = "GPL";
