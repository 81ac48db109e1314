// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target as UC responder (protocol.rst: UC: loss) and the receive
 * WQE an SRQ gives a message (Messages and receive WQEs).  The tester
 * sends a UC stream by hand: packets of messages left out, late, far
 * ahead, and watches which receive WQE each message completes in, when,
 * and the target's counters.  A target without UC QPs or SRQs (the
 * reference peer) refuses CREATE type=uc or srq=1: the cases are skipped.
 */
#include "conform.h"

static u8 pat[8192];

/* receive WQE k: wr 100 + k, 512 bytes at 512 * k */
#define WQE_WR(k)	(100 + (k))

static void fill(u32 seed)
{
	unsigned int i;

	for (i = 0; i < sizeof(pat); i++)
		pat[i] = (u8)(i * 7 + seed * 31 + 1);
}

/* a connection to a UC (or @srq) QP; false (and a skip) if the target has none */
static bool uc_setup(struct cx *cx, bool uc, bool srq, u32 psn,
		     unsigned int nrecv)
{
	struct cx_opts o = { .psn = psn };
	char create[32];
	unsigned int k;

	snprintf(create, sizeof(create), "%s%s", uc ? "type=uc" : "",
		 srq ? (uc ? " srq=1" : "srq=1") : "");
	if (cx_agent(cx, "CREATE %s", create)) {
		cx->skip = uc ? "the target has no UC QP" : "the target has no SRQ";
		return false;
	}
	o.create = create;
	if (cx_setup(cx, &o))
		return false;
	for (k = 0; k < nrecv; k++)
		CHECK(cx, !cx_agent(cx, "RECV wr=%u off=%u len=512", WQE_WR(k),
				    512 * k), "post RECV");
	return !cx->fails;
}

/* one packet of a SEND (message @msn from @first, @len of @total at @off) */
static void send_pkt(struct cx *cx, u32 psn, u32 msn, u32 first, u32 off,
		     u32 len, u32 total)
{
	struct mro_hdr h;

	cx_req(cx, &h, METAROCE_OP_SEND, psn);
	h.flags = (off ? 0 : METAROCE_F_FIRST) |
		  (off + len == total ? METAROCE_F_LAST : 0);
	h.msg.msn = msn;
	h.msg.first_psn = first;
	h.msg.offset = off;
	h.msg.length = total;
	cx_send(cx, &h, pat + off + 64 * (msn % 64), len);
}

/* a one-packet SEND of 16 bytes, message @msn at @psn */
static void send_one(struct cx *cx, u32 psn, u32 msn)
{
	send_pkt(cx, psn, msn, psn, 0, 16, 16);
}

/* the completions within @ms (none: 0) */
static int wcs(struct cx *cx, int ms, struct twc *wc, int max)
{
	int n = cx_wc(cx, ms, wc, max);

	return n < 0 ? 0 : n;
}

/* the completions until @want arrived or @ms passed */
static int wcs_n(struct cx *cx, int ms, struct twc *wc, int want)
{
	u64 end = cx_now_us() + ms * 1000ULL;
	int n = 0;

	while (n < want && cx_now_us() < end)
		n += wcs(cx, 20, wc + n, want - n);
	return n;
}

/*
 * The start of a loss: message 0 (PSNs b and b+1, 300 bytes) loses b,
 * message 1 (b+2) arrives complete; neither completes.  Returns b.
 */
static u32 lost_head(struct cx *cx, u32 seed)
{
	u32 b = cx->psn;
	struct twc wc[4];

	fill(seed);
	cx_snap(cx);
	send_pkt(cx, b + 1, 0, b, 256, 44, 300);	/* b never comes */
	send_one(cx, b + 2, 1);
	CHECK(cx, wcs(cx, 60, wc, 4) == 0,
	      "a message completed behind an incomplete one");
	return b;
}

/*
 * UC sends no ACK, whatever a packet would make an RC responder answer (a
 * hole opened and filled, a rhythm PSN), and never retransmits: the
 * target's UC SEND goes once and completes unanswered
 */
static void c_uc_no_ack(struct cx *cx)
{
	struct twc wc[4];
	unsigned int i, n = 0;
	struct pkt *p;
	u32 b;

	if (!uc_setup(cx, true, false, 0x12345e, 2))	/* b + 1: % 32 == 31 */
		return;
	b = cx->psn;
	fill(1);
	send_pkt(cx, b + 1, 0, b, 256, 44, 300);	/* a hole, the rhythm */
	send_pkt(cx, b, 0, b, 0, 256, 300);		/* fills it */
	CHECK(cx, wcs_n(cx, 1000, wc, 1) == 1 && wc[0].wr == WQE_WR(0) &&
	      !strcmp(wc[0].status, "success") && wc[0].len == 300,
	      "the UC SEND of 300 bytes did not complete in the first WQE");
	CHECK(cx, cx_quiet(cx, METAROCE_OP_ACK, 100) == 0,
	      "a UC QP sent an ACK");
	/* the target's UC SEND: once, completed without an answer */
	CHECK(cx, !cx_agent(cx, "SEND wr=7 off=4096 len=16"), "post SEND");
	p = cx_wait(cx, METAROCE_OP_SEND, 1000);
	CHECK(cx, p != NULL, "no UC SEND from the target");
	CHECK(cx, wcs_n(cx, 1000, wc, 1) == 1 && wc[0].wr == 7 &&
	      !strcmp(wc[0].status, "success"),
	      "the target's UC SEND did not complete unanswered");
	cx_pump(cx, 400);
	for (i = 0; i < cx->nq; i++)
		n += cx->q[i].h.opcode == METAROCE_OP_SEND;
	CHECK(cx, n == 1, "the UC SEND left %u times in 400 ms, want once", n);
}

/* a UC packet whose first_psn is after its own PSN is dropped */
static void c_uc_first_psn(struct cx *cx)
{
	struct twc wc[2];
	u32 b;

	if (!uc_setup(cx, true, false, 0, 1))
		return;
	b = cx->psn;
	fill(2);
	cx_snap(cx);
	send_pkt(cx, b, 0, b + 1, 0, 16, 16);
	CHECK(cx, wcs(cx, 60, wc, 2) == 0, "a packet claiming a later first PSN completed");
	CHECK_DELTA(cx, "rx_drop_field", 1);
	send_one(cx, b, 0);
	CHECK(cx, wcs_n(cx, 1000, wc, 1) == 1 && !strcmp(wc[0].status, "success"),
	      "the same packet well formed did not complete");
}

/*
 * Behind the base a packet moves nothing; 2^16 PSNs past it, or an msn
 * 2^16 + 16384 past the next message, it is dropped (rx_drop_window)
 * and the base stays: the genuine next packet completes
 */
static void c_uc_range(struct cx *cx)
{
	struct twc wc[2];
	u32 b;

	if (!uc_setup(cx, true, false, 0, 2))
		return;
	b = cx->psn;
	fill(3);
	send_one(cx, b, 0);
	CHECK(cx, wcs_n(cx, 1000, wc, 1) == 1 && wc[0].wr == WQE_WR(0),
	      "message 0 did not complete");
	cx_snap(cx);
	send_one(cx, b, 0);		/* behind the base now */
	CHECK(cx, wcs(cx, 60, wc, 2) == 0, "a packet behind the base completed again");
	CHECK_DELTA(cx, "rx_duplicate", 1);
	cx_snap(cx);
	send_one(cx, b + 1 + 65536, 1);
	send_pkt(cx, b + 2, 1 + 65536 + 16384, b + 2, 0, 16, 16);
	CHECK(cx, wcs(cx, 60, wc, 2) == 0, "a packet far past the base completed");
	CHECK_DELTA(cx, "rx_drop_window", 2);
	send_one(cx, b + 1, 1);
	CHECK(cx, wcs_n(cx, 1000, wc, 1) == 1 && wc[0].wr == WQE_WR(1) &&
	      !strcmp(wc[0].status, "success"),
	      "the next genuine packet did not complete: the far packets moved the base");
}

/*
 * A lost PSN given up by the PSN allowance: message 0 (PSNs b, b+1)
 * loses b; message 1 at b+2 is complete.  Message 2 at b+256 (half the
 * window past the base) gives b up: message 0 is lost (no completion,
 * rx_uc_msg_dropped), its WQE goes to the first unclaimed message
 * (message 2), message 1 completes in its own.  Message 2 is complete but
 * waits until the base passes it; b arriving late is a duplicate, placed
 * nowhere; message 3 at b+512 gives up b+3..b+255 and message 2
 * completes, in message 0's WQE.
 */
static void c_uc_psn_allowance(struct cx *cx)
{
	struct twc wc[4];
	u8 got[16];
	u32 b;
	int n;

	if (!uc_setup(cx, true, false, 0, 5))
		return;
	b = lost_head(cx, 4);
	send_one(cx, b + 256, 2);
	n = wcs_n(cx, 1000, wc, 1);
	CHECK(cx, n == 1 && wc[0].wr == WQE_WR(1) && !strcmp(wc[0].status, "success"),
	      "message 1 did not complete in its own WQE once message 0 was lost: %s",
	      n ? wc[0].status : "no completion");
	CHECK(cx, wcs(cx, 60, wc, 4) == 0,
	      "message 2 completed before the base passed its PSN");
	CHECK_DELTA(cx, "rx_uc_psn_lost", 1);
	CHECK_DELTA(cx, "rx_uc_msg_dropped", 1);
	/* the given-up PSN, late: a duplicate, placed nowhere */
	cx_snap(cx);
	send_pkt(cx, b, 0, b, 0, 256, 300);
	cx_pump(cx, 30);
	CHECK_DELTA(cx, "rx_duplicate", 1);
	CHECK(cx, wcs(cx, 30, wc, 4) == 0, "the late PSN completed something");
	cx_snap(cx);
	send_one(cx, b + 512, 3);
	n = wcs_n(cx, 1000, wc, 1);
	CHECK(cx, n == 1 && wc[0].wr == WQE_WR(0) && wc[0].len == 16 &&
	      !strcmp(wc[0].status, "success"),
	      "message 2 completed in WQE %lld, want the lost message's (%u)",
	      n ? (long long)wc[0].wr : -1LL, WQE_WR(0));
	CHECK_DELTA(cx, "rx_uc_psn_lost", 253);
	CHECK(cx, !cx_mem(cx, 0, 16, got) && !memcmp(got, pat + 64 * 2, 16),
	      "message 2's bytes are not in the first WQE's buffer (the late PSN placed?)");
}

/*
 * The message allowance: message 0 loses its first PSN, messages 1 to
 * 31 arrive complete; message 32 (half the ring past message 0) gives up
 * the PSNs before message 1: message 0 is lost, 1 to 32 complete in
 * order, each in its own WQE but 32, which gets message 0's
 */
static void c_uc_msg_allowance(struct cx *cx)
{
	struct twc wc[40];
	unsigned int k;
	u32 b;
	int n;

	if (!uc_setup(cx, true, false, 0, 34))
		return;
	b = lost_head(cx, 5);
	for (k = 2; k < 32; k++)
		send_one(cx, b + 1 + k, k);
	CHECK(cx, wcs(cx, 60, wc, 40) == 0,
	      "messages completed behind an incomplete one");
	send_one(cx, b + 33, 32);
	n = wcs_n(cx, 2000, wc, 32);
	CHECK(cx, n == 32, "%d completions after message 32, want 32", n);
	for (k = 0; k < (unsigned int)n && k < 31; k++)
		CHECK(cx, wc[k].wr == WQE_WR(k + 1) && !strcmp(wc[k].status, "success"),
		      "completion %u: WQE %llu %s, want %u success", k,
		      (unsigned long long)wc[k].wr, wc[k].status, WQE_WR(k + 1));
	if (n == 32)
		CHECK(cx, wc[31].wr == WQE_WR(0),
		      "message 32 completed in WQE %llu, want the lost message's %u",
		      (unsigned long long)wc[31].wr, WQE_WR(0));
	CHECK_DELTA(cx, "rx_uc_psn_lost", 1);
	CHECK_DELTA(cx, "rx_uc_msg_dropped", 1);
}

/*
 * The fence: a WRITE at b+3 names message 3 as the next consuming one,
 * so messages 0 to 2 lie before b+3; none of them ever arrives.  Once
 * b..b+2 are given up (a SEND of message 3 at b+259) the next message to
 * complete is 3, and it takes the first WQE; it completes when message 4
 * at b+515 gives up the PSNs before it.  Without the fence message 3
 * would take the fourth WQE.
 */
static void c_uc_fence(struct cx *cx)
{
	struct twc wc[4];
	struct mro_hdr h;
	u8 got[16];
	u32 b;
	int n;

	if (!uc_setup(cx, true, false, 0, 5))
		return;
	b = cx->psn;
	fill(6);
	cx_snap(cx);
	cx_req(cx, &h, METAROCE_OP_WRITE, b + 3);
	h.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	h.msg.msn = 3;
	h.msg.first_psn = b + 3;
	h.msg.length = 16;
	h.msg.va = cx->va + 4096;
	h.msg.rkey = cx->rkey;
	cx_send(cx, &h, pat + 1000, 16);
	send_one(cx, b + 259, 3);
	CHECK(cx, wcs(cx, 60, wc, 4) == 0,
	      "message 3 completed before the base passed it");
	send_one(cx, b + 515, 4);
	n = wcs_n(cx, 1000, wc, 1);
	CHECK(cx, n == 1 && wc[0].wr == WQE_WR(0) && !strcmp(wc[0].status, "success"),
	      "message 3 completed in WQE %lld (%s), want the first (%u): the messages before the fence were not skipped",
	      n ? (long long)wc[0].wr : -1LL, n ? wc[0].status : "none",
	      WQE_WR(0));
	CHECK_DELTA(cx, "rx_uc_msg_dropped", 3);
	CHECK(cx, !cx_mem(cx, 4096, 16, got) && !memcmp(got, pat + 1000, 16),
	      "the WRITE's bytes are not in the region");
}

/*
 * With an SRQ a lost message's WQE cannot go back: it completes with
 * REM_INV_REQ_ERR and the QP stays in RTS; the next message completes
 */
static void c_uc_srq_lost(struct cx *cx)
{
	struct twc wc[4];
	char st[16];
	u32 b;
	int n;

	if (!uc_setup(cx, true, true, 0, 3))
		return;
	b = lost_head(cx, 7);
	send_one(cx, b + 256, 2);
	n = wcs_n(cx, 1000, wc, 2);
	CHECK(cx, n == 2, "%d completions, want the lost message's and message 1's", n);
	if (n >= 1)
		CHECK(cx, wc[0].wr == WQE_WR(0) && !strcmp(wc[0].status, "rem_inv_req"),
		      "first completion WQE %llu %s, want %u rem_inv_req",
		      (unsigned long long)wc[0].wr, wc[0].status, WQE_WR(0));
	if (n >= 2)
		CHECK(cx, wc[1].wr == WQE_WR(1) && !strcmp(wc[1].status, "success"),
		      "second completion WQE %llu %s, want %u success",
		      (unsigned long long)wc[1].wr, wc[1].status, WQE_WR(1));
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "UC QP in %s after a lost message, want RTS", st);
	CHECK_DELTA(cx, "rx_uc_msg_dropped", 1);
}

/*
 * RC with an SRQ: the first packet of a message to arrive claims the next
 * SRQ WQE, whatever its msn: message 1 arrives first and takes the first
 * WQE, message 0 the second; completions follow msn order
 */
static void c_srq_order(struct cx *cx)
{
	struct twc wc[4];
	u8 got[16];
	u32 b;
	int n;

	if (!uc_setup(cx, false, true, 0, 2))
		return;
	b = cx->psn;
	fill(8);
	send_one(cx, b + 1, 1);
	cx_pump(cx, 20);
	send_one(cx, b, 0);
	n = wcs_n(cx, 1000, wc, 2);
	CHECK(cx, n == 2, "%d completions, want 2", n);
	if (n == 2)
		CHECK(cx, wc[0].wr == WQE_WR(1) && wc[1].wr == WQE_WR(0),
		      "message 0 completed in WQE %llu and 1 in %llu, want %u and %u (SRQ WQEs taken in arrival order)",
		      (unsigned long long)wc[0].wr, (unsigned long long)wc[1].wr,
		      WQE_WR(1), WQE_WR(0));
	CHECK(cx, !cx_mem(cx, 512, 16, got) && !memcmp(got, pat, 16),
	      "message 0's bytes are not in the second WQE's buffer");
}

const struct ccase cases_uc[] = {
	{ "UC-1 ACK-11", "UC: no ACK, no retransmission", c_uc_no_ack, CF_MANUAL },
	{ "UC-2", "UC: a first_psn after the packet's PSN dropped", c_uc_first_psn, CF_MANUAL },
	{ "UC-3 UC-4", "UC: behind the base moves nothing, far past it dropped", c_uc_range, CF_MANUAL },
	{ "UC-6 UC-8 UC-9 UC-10 UC-11 UC-14", "UC: PSN allowance gives up a lost PSN; its message's WQE goes on", c_uc_psn_allowance, CF_MANUAL },
	{ "UC-7 UC-9 UC-11", "UC: message allowance settles the oldest message", c_uc_msg_allowance, CF_MANUAL },
	{ "UC-5 UC-13", "UC: messages before the fence skipped", c_uc_fence, CF_MANUAL },
	{ "UC-12", "UC with an SRQ: a lost message's WQE completes in error", c_uc_srq_lost, CF_MANUAL },
	{ "MSG-5", "SRQ WQEs taken in arrival order", c_srq_order, CF_MANUAL },
	{ NULL, NULL, NULL, 0 },
};
