// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librefpeer: the requester side of an RC QP (protocol.rst, PSN semantics,
 * Messages, RDMA READ, Acknowledgements, Retransmission timeout).
 *
 * Every PSN in flight has an entry in a ring (struct rp_psn).  ACKs mark
 * entries acknowledged (cumulative PSN and SACK bitmap), READ and atomic
 * PSNs only by their responses.  Loss detection is a RACK-style reading
 * of the spec: a PSN is lost when a later transmission on its own path was
 * delivered at least a reordering window after it, or a PSN the
 * reordering distance above it was delivered and a transmission sent a
 * reordering window after it was delivered.  Lost PSNs are resent
 * (selective repeat) before new ones; the RTO and a tail-loss PROBE cover
 * the rest.
 */
#include <string.h>

#include "rp_internal.h"

#define RP_MAX_RD_ATOMIC	16
#define RP_READ_SEGS		64	/* response segments per READ_REQ */
#define RP_REO_FLOOR_US		500	/* reordering window floor */

static struct rp_psn *ent(struct rp_ep *ep, u32 psn)
{
	return &ep->psn[psn % RP_PSN_RING];
}

static bool is_rdat(u8 op)
{
	return op == METAROCE_OP_READ_REQ || op == METAROCE_OP_CMP_SWAP ||
	       op == METAROCE_OP_FETCH_ADD || op == METAROCE_OP_ATOMIC_WRITE ||
	       op == METAROCE_OP_FLUSH;
}

static bool consumes(u8 op)
{
	return op == METAROCE_OP_SEND || op == METAROCE_OP_SEND_IMM ||
	       op == METAROCE_OP_SEND_INV || op == METAROCE_OP_WRITE_IMM;
}

/* the READ/atomic WQEs this end keeps outstanding (RD-8) */
static unsigned int max_rd(struct rp_ep *ep)
{
	unsigned int m = ep->cfg.max_rd_atomic;

	return m && m < RP_MAX_RD_ATOMIC ? m : RP_MAX_RD_ATOMIC;
}

static u32 read_seg(struct rp_ep *ep)
{
	u32 s = ep->cfg.mtu;

	return s < 256 ? 256 : s > 65536 ? 65536 : s;
}

static u32 rto_us(struct rp_ep *ep)
{
	u64 rto;

	if (ep->srtt) {
		u32 var = 4 * ep->rttvar;

		rto = ep->srtt + (var > ep->cfg.rto_min_us ? var :
				  ep->cfg.rto_min_us);
	} else {
		rto = (4096ULL << ep->cfg.timeout) / 1000;
		if (rto < ep->cfg.rto_min_us)
			rto = ep->cfg.rto_min_us;
	}
	if (rto > 2000000)
		rto = 2000000;
	return rto << (ep->backoff < 6 ? ep->backoff : 6);
}

static void arm_rto(struct rp_ep *ep, u64 now)
{
	u32 rto = rto_us(ep), pto;

	if (ep->snd_una == ep->snd_nxt) {
		ep->rto_due = 0;
		return;
	}
	ep->rto_is_tlp = false;
	if (!ep->tlp_done && !ep->backoff && ep->srtt) {
		pto = 2 * ep->srtt;
		if (pto < RP_REO_FLOOR_US * 2)
			pto = RP_REO_FLOOR_US * 2;
		if (pto < rto) {
			ep->rto_due = now + pto;
			ep->rto_is_tlp = true;
			return;
		}
	}
	ep->rto_due = now + rto;
}

static void complete_head(struct rp_ep *ep)
{
	struct rp_wc wc;

	while (ep->sq_head != ep->sq_next) {
		struct rp_wqe *w = &ep->sq[ep->sq_head % RP_SQ_SIZE];

		if (w->state != WQE_SENT || w->unacked)
			break;
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = w->wr_id;
		wc.byte_len = w->len;
		switch (w->opcode) {
		case METAROCE_OP_SEND:
		case METAROCE_OP_SEND_IMM:
			wc.opcode = RP_WC_SEND;
			break;
		case METAROCE_OP_WRITE:
		case METAROCE_OP_WRITE_IMM:
			wc.opcode = RP_WC_WRITE;
			break;
		case METAROCE_OP_READ_REQ:
			wc.opcode = RP_WC_READ;
			ep->outstanding_rd--;
			break;
		default:
			wc.opcode = w->opcode == METAROCE_OP_CMP_SWAP ?
				    RP_WC_CMP_SWAP : RP_WC_FETCH_ADD;
			ep->outstanding_rd--;
			break;
		}
		w->state = WQE_DONE;
		rp_cq_push(ep, &wc);
		ep->sq_head++;
	}
}

/* fail the WQE that owns @psn and end the connection */
static void fail_wqe(struct rp_ep *ep, u32 psn, enum rp_wc_status st,
		     const char *why)
{
	struct rp_wc wc = { .status = st };
	struct rp_psn *e = ent(ep, psn);

	if (psn_le(ep->snd_una, psn) && psn_lt(psn, ep->snd_nxt))
		wc.wr_id = ep->sq[e->wqe % RP_SQ_SIZE].wr_id;
	rp_cq_push(ep, &wc);
	rp_fail(ep, "QP %u: %s (PSN %u): connection ended", ep->cfg.qpn, why,
		psn);
}

static void mark_acked(struct rp_ep *ep, u32 psn, struct rp_psn *e)
{
	e->state = PSN_ACKED;
	e->lost = false;
	ep->sq[e->wqe % RP_SQ_SIZE].unacked--;
	if (e->ntx == 1)
		rp_path_delivered(ep, e->path);
	if (psn_le(ep->high_delivered, psn))
		ep->high_delivered = psn + 1;
	if (e->ntx == 1 && e->sent_us > ep->newest_delivered_sent)
		ep->newest_delivered_sent = e->sent_us;
}

static bool advance_una(struct rp_ep *ep)
{
	bool moved = false;

	while (ep->snd_una != ep->snd_nxt &&
	       ent(ep, ep->snd_una)->state == PSN_ACKED) {
		ent(ep, ep->snd_una)->state = PSN_FREE;
		ep->snd_una++;
		moved = true;
	}
	if (psn_lt(ep->high_delivered, ep->snd_una))
		ep->high_delivered = ep->snd_una;
	if (moved) {
		ep->retries = 0;
		ep->backoff = 0;
		ep->tlp_done = false;
		arm_rto(ep, rp_now_us());
		complete_head(ep);
	}
	return moved;
}

void rp_req_apply_cum(struct rp_ep *ep, u32 cum)
{
	u32 psn;

	if (!psn_lt(ep->snd_una, cum) || psn_lt(ep->snd_nxt, cum))
		return;
	ep->st.acks_piggybacked++;
	for (psn = ep->snd_una; psn != cum; psn++) {
		struct rp_psn *e = ent(ep, psn);

		if (e->state == PSN_OUT &&
		    !is_rdat(ep->sq[e->wqe % RP_SQ_SIZE].opcode))
			mark_acked(ep, psn, e);
	}
	advance_una(ep);
}

static void queue_retx(struct rp_ep *ep, u32 psn)
{
	struct rp_psn *e = ent(ep, psn);

	if (e->state != PSN_OUT || e->lost)
		return;
	e->lost = true;
	ep->retx[ep->retx_tail++ % RP_PSN_RING] = psn;
}

/* a READ slot's loss is its READ_REQ's: resend the whole request if
 * nothing of it arrived, else the one segment */
static void declare_lost(struct rp_ep *ep, u32 psn)
{
	struct rp_psn *e = ent(ep, psn);
	u32 head;

	if (e->read_slot) {
		for (head = psn; ent(ep, head)->read_slot; head--)
			;
		if (ent(ep, head)->state == PSN_OUT) {
			psn = head;
			e = ent(ep, head);
		}
	}
	rp_path_loss(ep, e->path);
	ep->st.sack_holes++;
	queue_retx(ep, psn);
}

static void detect_loss(struct rp_ep *ep, u64 now)
{
	u32 reo, dist, inflight, psn;
	u64 guard = ep->srtt;

	if (ep->snd_una == ep->snd_nxt)
		return;
	reo = ep->srtt / 4 > ep->rttvar ? ep->srtt / 4 : ep->rttvar;
	if (ep->srtt && reo > ep->srtt + 4 * ep->rttvar)
		reo = ep->srtt + 4 * ep->rttvar;
	if (reo < RP_REO_FLOOR_US)
		reo = RP_REO_FLOOR_US;
	inflight = ep->snd_nxt - ep->snd_una;
	dist = inflight / 4;
	if (dist < 3)
		dist = 3;
	if (dist > 3 + 3 * ep->npaths)
		dist = 3 + 3 * ep->npaths;
	for (psn = ep->snd_una; psn_lt(psn, ep->high_delivered); psn++) {
		struct rp_psn *e = ent(ep, psn);

		if (e->state != PSN_OUT || e->lost)
			continue;
		if (e->ntx > 1 && now - e->sent_us < guard)
			continue;
		if ((u32)(ep->high_delivered - 1 - psn) >= dist &&
		    ep->newest_delivered_sent >= e->sent_us + reo)
			declare_lost(ep, psn);
	}
}

static void rtt_sample(struct rp_ep *ep, u32 ts_echo, u16 path, u64 now)
{
	u32 rtt = (u32)now + ep->ts_offset - ts_echo;
	u32 d;

	if (!ts_echo || rtt > 10000000)
		return;
	if (!ep->srtt) {
		ep->srtt = rtt ? rtt : 1;
		ep->rttvar = rtt / 2;
	} else {
		d = ep->srtt > rtt ? ep->srtt - rtt : rtt - ep->srtt;
		ep->rttvar = (3 * ep->rttvar + d) / 4;
		ep->srtt = (7 * ep->srtt + rtt) / 8;
		if (!ep->srtt)
			ep->srtt = 1;
	}
	rp_path_rtt(ep, path, rtt);
	/* the echoed transmission left at now - rtt */
	if (now - rtt > ep->newest_delivered_sent)
		ep->newest_delivered_sent = now - rtt;
}

static void take_credit(struct rp_ep *ep, u32 credit)
{
	if (psn_lt(ep->snd_una + METAROCE_WINDOW_MAX, credit)) {
		ep->st.rx_drop_ack++;
		ep->st.cc_bad_feedback++;
		return;
	}
	/*
	 * the speculative first window is the first limit; a grant never
	 * moves the limit back (the ACK extension's credit_psn)
	 */
	if (!ep->have_credit) {
		ep->credit_psn = ep->cfg.sq_psn + RP_SPEC_WINDOW;
		ep->have_credit = true;
	}
	if (psn_lt(ep->credit_psn, credit))
		ep->credit_psn = credit;
}

static const u32 rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void rx_ack(struct rp_ep *ep, const struct mro_hdr *h, u64 now)
{
	const struct mro_ack_hdr *a = &h->ack;
	u32 psn, i;

	if (psn_lt(ep->snd_nxt, a->cum_psn) ||
	    psn_lt(a->cum_psn, ep->snd_una - ep->cfg.window)) {
		ep->st.rx_drop_ack++;
		ep->st.rx_drop_ack_range++;
		return;
	}
	if (a->syndrome != METAROCE_SYN_ACK &&
	    (psn_lt(a->nak_psn, ep->snd_una) ||
	     !psn_lt(a->nak_psn, ep->snd_nxt) ||
	     (a->syndrome != METAROCE_SYN_RNR_NAK &&
	      a->nak_psn != a->cum_psn))) {
		ep->st.rx_drop_ack++;
		ep->st.rx_drop_ack_range++;
		return;
	}
	if (!rp_path_seq_recent(ep, a->echo_path, a->echo_seq)) {
		ep->st.rx_drop_ack++;
		ep->st.rx_drop_ack_echo++;
		return;
	}
	ep->st.acks_rcvd++;
	rtt_sample(ep, a->ts_echo, a->echo_path, now);

	switch (a->syndrome) {
	case METAROCE_SYN_ACK:
		break;
	case METAROCE_SYN_RNR_NAK:
		ep->st.rnr_naks_rcvd++;
		ep->rnr_until = now + rnr_us[a->nak_code & 31];
		for (psn = a->nak_psn; psn_lt(psn, ep->snd_nxt); psn++)
			queue_retx(ep, psn);
		break;
	case METAROCE_SYN_NAK_INVALID:
		fail_wqe(ep, a->nak_psn, RP_WC_REM_INV_REQ_ERR,
			 "peer answered NAK_INVALID");
		return;
	case METAROCE_SYN_NAK_RANGE:	/* NAK-6: as IB's invalid request */
		fail_wqe(ep, a->nak_psn, RP_WC_REM_INV_REQ_ERR,
			 "peer answered NAK_RANGE");
		return;
	case METAROCE_SYN_NAK_ACCESS:
		fail_wqe(ep, a->nak_psn, RP_WC_REM_ACCESS_ERR,
			 "peer answered NAK_ACCESS");
		return;
	default:
		fail_wqe(ep, a->nak_psn, RP_WC_REM_OP_ERR,
			 "peer answered a NAK");
		return;
	}

	for (psn = ep->snd_una; psn_lt(psn, a->cum_psn); psn++) {
		struct rp_psn *e = ent(ep, psn);

		if (e->state == PSN_OUT &&
		    !is_rdat(ep->sq[e->wqe % RP_SQ_SIZE].opcode))
			mark_acked(ep, psn, e);
	}
	for (i = 0; i < a->sack_bits; i++) {
		struct rp_psn *e;

		if (!((a->sack[i / 64] >> (i % 64)) & 1))
			continue;
		psn = a->cum_psn + 1 + i;
		if (psn_lt(psn, ep->snd_una) || !psn_lt(psn, ep->snd_nxt))
			continue;
		e = ent(ep, psn);
		if (e->state == PSN_OUT &&
		    !is_rdat(ep->sq[e->wqe % RP_SQ_SIZE].opcode)) {
			mark_acked(ep, psn, e);
			/* progress by SACK resets the retry count (RTO-10) */
			ep->retries = 0;
		}
	}
	advance_una(ep);
	detect_loss(ep, now);
	take_credit(ep, a->credit_psn);
	if (ep->snd_una == ep->snd_nxt)
		ep->rto_due = 0;
}

static void rx_read_resp(struct rp_ep *ep, const struct mro_hdr *h,
			 const u8 *payload, u64 now)
{
	struct rp_psn *e;
	struct rp_wqe *w;

	if (!psn_lt(h->psn, ep->snd_nxt)) {
		ep->st.rx_drop_stale_resp++;	/* RX-39: nothing asked */
		return;
	}
	if (psn_lt(h->psn, ep->snd_una)) {
		ep->st.rx_duplicate++;
		return;
	}
	e = ent(ep, h->psn);
	w = &ep->sq[e->wqe % RP_SQ_SIZE];
	if (w->opcode != METAROCE_OP_READ_REQ) {
		ep->st.rx_drop_stale_resp++;
		return;
	}
	if (e->state != PSN_OUT) {
		ep->st.rx_duplicate++;
		return;
	}
	if (h->rresp.offset != e->off || h->payload_len != e->len) {
		ep->st.rx_drop_field++;
		return;
	}
	memcpy(w->buf + e->off, payload, e->len);
	rtt_sample(ep, h->rresp.ts_echo, h->path, now);
	mark_acked(ep, h->psn, e);
	advance_una(ep);
	detect_loss(ep, now);
}

static void rx_atomic_resp(struct rp_ep *ep, const struct mro_hdr *h, u64 now)
{
	struct rp_psn *e;
	struct rp_wqe *w;

	if (!psn_lt(h->psn, ep->snd_nxt)) {
		ep->st.rx_drop_stale_resp++;	/* RX-39: nothing asked */
		return;
	}
	if (psn_lt(h->psn, ep->snd_una)) {
		ep->st.rx_duplicate++;
		return;
	}
	e = ent(ep, h->psn);
	w = &ep->sq[e->wqe % RP_SQ_SIZE];
	if (w->opcode != METAROCE_OP_CMP_SWAP &&
	    w->opcode != METAROCE_OP_FETCH_ADD) {
		ep->st.rx_drop_stale_resp++;
		return;
	}
	if (e->state != PSN_OUT) {
		ep->st.rx_duplicate++;
		return;
	}
	if (w->result)
		*w->result = h->orig;
	(void)now;
	mark_acked(ep, h->psn, e);
	advance_una(ep);
}

void rp_req_rx(struct rp_ep *ep, struct mro_hdr *h, const u8 *payload)
{
	u64 now = rp_now_us();

	switch (h->opcode) {
	case METAROCE_OP_ACK:
		rx_ack(ep, h, now);
		break;
	case METAROCE_OP_READ_RESP:
		rx_read_resp(ep, h, payload, now);
		break;
	case METAROCE_OP_ATOMIC_RESP:
		rx_atomic_resp(ep, h, now);
		break;
	case METAROCE_OP_CREDIT:
		if (psn_lt(ep->snd_nxt, h->psn) ||
		    psn_lt(h->psn, ep->snd_una - ep->cfg.window)) {
			ep->st.rx_drop_ack++;
			ep->st.rx_drop_ack_range++;
			break;
		}
		take_credit(ep, h->ctrl.credit_psn);
		break;
	default:
		ep->st.rx_drop_field++;
		break;
	}
}

/* ---- sending ---- */

static void fill_req(struct rp_ep *ep, struct rp_wqe *w, struct rp_psn *e,
		     u32 psn, struct mro_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = w->opcode;
	h->psn = psn;
	switch (w->opcode) {
	case METAROCE_OP_READ_REQ:
		h->msg.msn = w->msn;
		h->msg.offset = e->off;
		h->msg.length = e->read_slot ? e->len : e->rd_len;
		h->msg.imm = w->seg;
		h->msg.va = w->va;
		h->msg.rkey = w->rkey;
		h->msg.first_psn = psn;
		h->flags = METAROCE_F_ACK_REQ;
		if (!e->off)
			h->flags |= METAROCE_F_FIRST;
		break;
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
		h->atomic.va = w->va;
		h->atomic.rkey = w->rkey;
		h->atomic.msn = w->msn;
		h->atomic.swap_add = w->swap_add;
		h->atomic.compare = w->compare;
		h->flags = METAROCE_F_FIRST | METAROCE_F_LAST |
			   METAROCE_F_ACK_REQ | METAROCE_F_ACK_PIGGY;
		break;
	default:
		h->msg.msn = w->msn;
		h->msg.offset = e->off;
		h->msg.length = w->len;
		h->msg.imm = w->imm;
		if (w->opcode == METAROCE_OP_WRITE ||
		    w->opcode == METAROCE_OP_WRITE_IMM) {
			h->msg.va = w->va;
			h->msg.rkey = w->rkey;
		}
		h->msg.first_psn = w->first_psn;
		if (!e->off)
			h->flags |= METAROCE_F_FIRST;
		if (e->off + e->len == w->len)
			h->flags |= METAROCE_F_LAST | METAROCE_F_ACK_PIGGY |
				    (w->solicited ? METAROCE_F_SOLICITED : 0);
		if (e->ack_req)
			h->flags |= METAROCE_F_ACK_REQ;
		break;
	}
	if (h->flags & METAROCE_F_ACK_PIGGY)
		h->ack_psn = ep->rcv_base;
}

/* send (or resend) the packet of @psn on @slot */
static void send_psn(struct rp_ep *ep, u32 psn, unsigned int slot, bool retx)
{
	struct rp_psn *e = ent(ep, psn);
	struct rp_wqe *w = &ep->sq[e->wqe % RP_SQ_SIZE];
	struct mro_hdr h;
	u32 n, k;
	u64 now;

	fill_req(ep, w, e, psn, &h);
	if (retx)
		h.flags |= METAROCE_F_RETX;
	if (rp_xmit(ep, &h, w->opcode == METAROCE_OP_READ_REQ ||
		    is_rdat(w->opcode) ? NULL : w->buf + e->off,
		    is_rdat(w->opcode) ? 0 : e->len, slot))
		return;
	now = rp_now_us();
	e->ntx++;
	e->path = h.path;
	e->path_seq = h.path_seq;
	e->tsval = h.tsval;
	e->sent_us = now;
	if (e->ntx == 1)
		e->first_sent_us = now;
	e->lost = false;
	if (retx)
		ep->st.retransmits++;
	/* the response slots of a READ_REQ travel with it */
	if (w->opcode == METAROCE_OP_READ_REQ && !e->read_slot) {
		n = (e->rd_len + w->seg - 1) / w->seg;
		for (k = 1; k < n; k++) {
			struct rp_psn *s = ent(ep, psn + k);

			s->path = e->path;
			s->path_seq = e->path_seq;
			s->sent_us = now;
			s->ntx++;
			s->lost = false;
		}
	}
}

static bool msg_window_ok(struct rp_ep *ep, u32 msn)
{
	u32 oldest;

	if (ep->snd_una == ep->snd_nxt)
		return true;
	oldest = ep->sq[ent(ep, ep->snd_una)->wqe % RP_SQ_SIZE].msn;
	return msn - oldest < ep->cfg.msg_window;
}

static u32 send_limit(struct rp_ep *ep)
{
	u32 lim = ep->snd_una + ep->cfg.window;
	u32 c = ep->have_credit ? ep->credit_psn : ep->snd_una + RP_SPEC_WINDOW;

	return psn_lt(c, lim) ? c : lim;
}

/* start the next packet of the WQE at sq_next; false if it cannot go now */
static bool send_new(struct rp_ep *ep, u32 lim)
{
	struct rp_wqe *w = &ep->sq[ep->sq_next % RP_SQ_SIZE];
	bool last_wqe = ep->sq_next + 1 == ep->sq_tail;
	u32 psn = ep->snd_nxt, room = lim - psn, n, k, chunk, seg;
	struct rp_psn *e;

	if (w->state == WQE_QUEUED) {
		if (is_rdat(w->opcode) && ep->outstanding_rd >= max_rd(ep))
			return false;
		if (consumes(w->opcode) && !msg_window_ok(ep, ep->next_msn))
			return false;
		w->msn = consumes(w->opcode) ? ep->next_msn++ : ep->next_msn;
		w->first_psn = psn;
		w->seg = read_seg(ep);
		w->state = WQE_SENDING;
		if (is_rdat(w->opcode))
			ep->outstanding_rd++;
	}
	e = ent(ep, psn);
	memset(e, 0, sizeof(*e));
	e->wqe = ep->sq_next;
	e->state = PSN_OUT;
	e->off = w->next_off;
	if (w->opcode == METAROCE_OP_READ_REQ) {
		seg = w->seg;
		/* at most 64 segments, and no more than the window has room */
		n = room < RP_READ_SEGS ? room : RP_READ_SEGS;
		chunk = w->len - w->next_off;
		if (chunk > n * seg)
			chunk = n * seg;
		n = chunk ? (chunk + seg - 1) / seg : 1;
		e->rd_len = chunk;
		e->len = chunk < seg ? chunk : seg;
		for (k = 1; k < n; k++) {
			struct rp_psn *s = ent(ep, psn + k);

			memset(s, 0, sizeof(*s));
			s->wqe = ep->sq_next;
			s->state = PSN_OUT;
			s->read_slot = true;
			s->off = w->next_off + k * seg;
			s->len = chunk - k * seg < seg ? chunk - k * seg : seg;
		}
		w->next_off += chunk;
		w->unacked += n;
		ep->snd_nxt += n;
	} else if (is_rdat(w->opcode)) {
		w->next_off = w->len;
		w->unacked++;
		ep->snd_nxt++;
	} else {
		e->len = w->len - w->next_off;
		if (e->len > ep->cfg.mtu)
			e->len = ep->cfg.mtu;
		w->next_off += e->len;
		w->unacked++;
		ep->snd_nxt++;
		if ((w->next_off == w->len && last_wqe) || psn + 1 == lim)
			e->ack_req = true;
	}
	if (ep->rto_due == 0)
		arm_rto(ep, rp_now_us());
	send_psn(ep, psn, rp_path_pick_new(ep, psn), false);
	if (w->next_off >= w->len) {
		w->state = WQE_SENT;
		ep->sq_next++;
	}
	return true;
}

void rp_req_push(struct rp_ep *ep)
{
	u32 lim, psn;
	u64 now;

	if (ep->dead || ep->cfg.ud ||
	    (ep->cfg.prot != METAROCE_PROT_NONE && !ep->crypto))
		return;
	now = rp_now_us();
	if (ep->rnr_until) {
		if (now < ep->rnr_until)
			return;
		ep->rnr_until = 0;
	}
	while (ep->retx_head != ep->retx_tail && !ep->dead) {
		struct rp_psn *e;

		psn = ep->retx[ep->retx_head++ % RP_PSN_RING];
		e = ent(ep, psn);
		if (psn_lt(psn, ep->snd_una) || e->state != PSN_OUT || !e->lost)
			continue;
		send_psn(ep, psn, rp_path_pick_retx(ep, e->path), true);
		if (psn == ep->snd_una)
			arm_rto(ep, now);
	}
	while (ep->sq_next != ep->sq_tail && !ep->dead) {
		lim = send_limit(ep);
		/*
		 * PSN-13: a full window reopens once an eighth of it is free;
		 * the grant (PSN-12) bounds the sender with no such wait
		 */
		if (ep->window_full) {
			if (ep->snd_nxt - ep->snd_una > ep->cfg.window -
			    ep->cfg.window / 8)
				return;
			ep->window_full = false;
		}
		if (!psn_lt(ep->snd_nxt, lim)) {
			ep->window_full = ep->snd_nxt - ep->snd_una >=
					  ep->cfg.window;
			return;
		}
		if (!send_new(ep, lim))
			return;
	}
}

static void send_probes(struct rp_ep *ep)
{
	bool busy[RP_MAX_PATHS] = { false };
	struct mro_hdr h;
	unsigned int i;
	u32 psn;

	for (psn = ep->snd_una; psn_lt(psn, ep->snd_nxt); psn++)
		if (ent(ep, psn)->state == PSN_OUT)
			busy[ent(ep, psn)->path % ep->npaths] = true;
	for (i = 0; i < ep->npaths; i++) {
		if (!busy[i])
			continue;
		memset(&h, 0, sizeof(h));
		h.opcode = METAROCE_OP_PROBE;
		h.flags = METAROCE_F_ACK_REQ;
		h.psn = ep->snd_nxt;
		h.ctrl.token = ep->path[i].seq;	/* the probe's path_seq */
		rp_xmit(ep, &h, NULL, 0, i);
		ep->st.tlp_probes++;
	}
}

void rp_req_timer(struct rp_ep *ep, u64 now)
{
	unsigned int copies, i;
	struct rp_psn *e;
	u32 psn, rto;

	if (!ep->rto_due || now < ep->rto_due)
		return;
	if (ep->snd_una == ep->snd_nxt) {
		ep->rto_due = 0;
		return;
	}
	if (ep->rto_is_tlp) {
		ep->tlp_done = true;
		send_probes(ep);
		arm_rto(ep, now);
		return;
	}
	ep->st.rto++;
	if (++ep->retries > ep->cfg.retry_cnt) {
		fail_wqe(ep, ep->snd_una, RP_WC_RETRY_EXC_ERR,
			 "retry count exceeded, no acknowledgement from the peer");
		return;
	}
	if (ep->cfg.hello && !ep->hello_echoed && ep->hello_sent_n < 16)
		rp_hello_send(ep, true);
	rto = rto_us(ep);
	ep->backoff++;
	/* the oldest PSN, and any sent more than four RTOs ago */
	for (psn = ep->snd_una; psn_lt(psn, ep->snd_nxt); psn++) {
		e = ent(ep, psn);
		if (e->state != PSN_OUT)
			continue;
		if (psn != ep->snd_una && now - e->sent_us < 4ULL * rto)
			continue;
		if (e->read_slot) {
			declare_lost(ep, psn);
			continue;
		}
		e->lost = false;
		queue_retx(ep, psn);
	}
	arm_rto(ep, now);
	rp_req_push(ep);
	/*
	 * From the second expiry on, the oldest goes out on 2^(n-1) paths
	 * (RTO-7): the resend above, and copies on the next other paths.
	 * After the resend, whose resend guard would hold a copy sent
	 * before it back.
	 */
	e = ent(ep, ep->snd_una);
	if (ep->backoff >= 2 && e->state == PSN_OUT && !e->read_slot &&
	    ep->sq[e->wqe % RP_SQ_SIZE].opcode != METAROCE_OP_READ_REQ) {
		copies = 1U << (ep->backoff - 1 < 3 ? ep->backoff - 1 : 3);
		for (i = 1; i < copies && i < ep->npaths; i++)
			send_psn(ep, ep->snd_una, (e->path + i) % ep->npaths,
				 true);
	}
}
