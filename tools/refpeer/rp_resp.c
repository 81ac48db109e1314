// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librefpeer: the responder side of an RC QP (protocol.rst, Receive
 * validation, PSN semantics, Messages and receive WQEs, RDMA WRITE, RDMA
 * READ, Atomics, Acknowledgements, NAK syndromes).
 *
 * The receive window is a bitmap of window PSNs from rcv_base, the next
 * expected PSN.  Every data packet is placed on arrival, in any order, at
 * its offset (SEND*: in the receive WQE its msn claims; WRITE*: in the MR
 * at va + offset).  READ_REQs and atomics run when the window's base
 * reaches them.  ACKs carry the cumulative PSN and a SACK of the next 128.
 */
#include <string.h>

#include "rp_internal.h"

static bool bit_get(struct rp_ep *ep, u32 psn)
{
	u32 i = psn & (ep->cfg.window - 1);

	return (ep->rcv_bits[i / 64] >> (i % 64)) & 1;
}

static void bit_set(struct rp_ep *ep, u32 psn, bool on)
{
	u32 i = psn & (ep->cfg.window - 1);

	if (on)
		ep->rcv_bits[i / 64] |= 1ULL << (i % 64);
	else
		ep->rcv_bits[i / 64] &= ~(1ULL << (i % 64));
}

void rp_resp_init(struct rp_ep *ep)
{
	ep->rcv_base = ep->cfg.rq_psn;
	ep->rcv_high = ep->cfg.rq_psn;
}

static void send_ack(struct rp_ep *ep, const struct mro_hdr *t, u8 syndrome,
		     u8 nak_code, u32 nak_psn, bool dup)
{
	struct mro_hdr h;
	u32 i, nbits = ep->cfg.sack_bits;

	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_ACK;
	h.ack.syndrome = syndrome;
	h.ack.nak_code = nak_code;
	h.ack.cum_psn = ep->rcv_base;
	h.ack.nak_psn = nak_psn;
	h.ack.credit_psn = ep->rcv_base + ep->cfg.window;
	if (nbits > METAROCE_SACK_BITS)
		nbits = METAROCE_SACK_BITS;
	h.ack.sack_bits = nbits;
	for (i = 0; i < nbits && i + 1 < ep->cfg.window; i++)
		if (bit_get(ep, ep->rcv_base + 1 + i))
			h.ack.sack[i / 64] |= 1ULL << (i % 64);
	h.ack.ts_echo = t->tsval;
	h.ack.echo_path = t->path;
	h.ack.echo_seq = t->path_seq;
	h.ack.ecn_ce = ep->ecn_ce;
	rp_xmit(ep, &h, NULL, 0, rp_path_reply(ep, t->path, dup));
	ep->since_ack = 0;
	ep->st.acks_sent++;
}

/* a request that would end the connection: only at the next expected PSN */
static void nak(struct rp_ep *ep, const struct mro_hdr *h, u8 syndrome,
		const char *why)
{
	if (h->psn != ep->rcv_base) {
		ep->st.rx_drop_error_ahead++;
		return;
	}
	send_ack(ep, h, syndrome, 0, h->psn, false);
	ep->st.nak_sent++;
	rp_fail(ep, "QP %u: %s at PSN %u: NAK sent, connection ended",
		ep->cfg.qpn, why, h->psn);
}

static void complete_msgs(struct rp_ep *ep)
{
	struct rp_rmsg *m;
	struct rp_rwqe *r;
	struct rp_wc wc;

	for (;;) {
		m = &ep->rmsg[ep->rcv_msn % METAROCE_MSG_WINDOW];
		if (!m->used || m->msn != ep->rcv_msn || !m->done ||
		    m->fence_wait)
			return;
		r = &ep->rq[ep->rq_head % RP_RQ_SIZE];
		memset(&wc, 0, sizeof(wc));
		wc.wr_id = r->wr_id;
		wc.byte_len = m->length;
		wc.imm = m->imm;
		wc.with_imm = m->opcode == METAROCE_OP_SEND_IMM ||
			      m->opcode == METAROCE_OP_WRITE_IMM;
		wc.opcode = m->opcode == METAROCE_OP_WRITE_IMM ?
			    RP_WC_RECV_RDMA_IMM : RP_WC_RECV;
		if (m->len_err)
			wc.status = RP_WC_LOC_LEN_ERR;
		else if (m->prot_err)
			wc.status = RP_WC_LOC_PROT_ERR;
		rp_cq_push(ep, &wc);
		ep->rq_head++;
		m->used = false;
		ep->rcv_msn++;
	}
}

/* READ: answer @h (READ_REQ at the base, or a remembered duplicate) */
static void exec_read(struct rp_ep *ep, const struct mro_hdr *h, bool dup)
{
	const struct mro_msg_hdr *q = &h->msg;
	u32 seg = q->imm, n, k, off, len;
	struct rp_read_mem *rm;
	struct mro_hdr r;
	unsigned int slot;
	u8 *src;

	n = q->length ? (q->length + seg - 1) / seg : 1;
	if (seg > ep->cfg.mtu || n > ep->cfg.window / 2) {
		nak(ep, h, METAROCE_SYN_NAK_INVALID, "READ_REQ too large");
		return;
	}
	if (!rp_mr_check(ep, q->rkey, q->va + q->offset, q->length,
			 RP_ACCESS_REMOTE_READ)) {
		if (!dup)
			nak(ep, h, METAROCE_SYN_NAK_ACCESS, "READ access");
		return;
	}
	slot = rp_path_reply(ep, h->path, false);
	for (k = 0; k < n; k++) {
		off = q->offset + k * seg;
		len = q->length - k * seg < seg ? q->length - k * seg : seg;
		src = (u8 *)(uintptr_t)(q->va + off);
		memset(&r, 0, sizeof(r));
		r.opcode = METAROCE_OP_READ_RESP;
		r.psn = h->psn + k;
		r.rresp.offset = off;
		r.rresp.ts_echo = h->tsval;
		if (!off)
			r.flags |= METAROCE_F_FIRST;
		if (k == n - 1)
			r.flags |= METAROCE_F_LAST;
		rp_xmit(ep, &r, src, len, slot);
		if (!dup)
			bit_set(ep, h->psn + k, true);
	}
	if (dup)
		return;
	/*
	 * The READ_REQs of one READ (consecutive PSNs and offsets, the same
	 * address, key and segment size) extend one remembered READ, as they
	 * take one responder resource (protocol.rst, "Responder resources"):
	 * a requester that splits a READ into many small READ_REQs (a small
	 * congestion window) may resend for any of them while it has
	 * max_rd_atomic READs outstanding.
	 */
	rm = &ep->read_mem[(ep->read_mem_rotor + RP_READ_MEMORY - 1) %
			   RP_READ_MEMORY];
	if (rm->used && rm->va == q->va && rm->rkey == q->rkey &&
	    rm->seg == seg && h->psn == rm->psn + rm->npsn &&
	    q->offset == rm->offset + rm->length) {
		rm->npsn += n;
		rm->length += q->length;
		return;
	}
	rm = &ep->read_mem[ep->read_mem_rotor++ % RP_READ_MEMORY];
	rm->used = true;
	rm->psn = h->psn;
	rm->npsn = n;
	rm->va = q->va;
	rm->rkey = q->rkey;
	rm->seg = seg;
	rm->offset = q->offset;
	rm->length = q->length;
}

static void dup_read(struct rp_ep *ep, const struct mro_hdr *h)
{
	const struct mro_msg_hdr *q = &h->msg;
	unsigned int i;

	for (i = 0; i < RP_READ_MEMORY; i++) {
		struct rp_read_mem *m = &ep->read_mem[i];
		u32 k = h->psn - m->psn;

		if (!m->used || m->va != q->va || m->rkey != q->rkey ||
		    m->seg != q->imm || k >= m->npsn ||
		    q->offset != m->offset + k * m->seg ||
		    (u64)q->offset + q->length >
		    (u64)m->offset + m->length)
			continue;
		exec_read(ep, h, true);
		return;
	}
	ep->st.rx_drop_dup_req++;
}

static void exec_atomic(struct rp_ep *ep, const struct mro_hdr *h)
{
	const struct mro_atomic_hdr *a = &h->atomic;
	struct rp_atomic_mem *am;
	struct mro_hdr r;
	u64 *p, orig;

	if (!rp_mr_check(ep, a->rkey, a->va, 8, RP_ACCESS_REMOTE_ATOMIC)) {
		nak(ep, h, METAROCE_SYN_NAK_ACCESS, "atomic access");
		return;
	}
	p = (u64 *)(uintptr_t)a->va;
	orig = *p;
	if (h->opcode == METAROCE_OP_CMP_SWAP) {
		if (orig == a->compare)
			*p = a->swap_add;
	} else {
		*p = orig + a->swap_add;
	}
	am = &ep->atomic_mem[ep->atomic_mem_rotor++ % RP_READ_MEMORY];
	am->used = true;
	am->psn = h->psn;
	am->orig = orig;
	memset(&r, 0, sizeof(r));
	r.opcode = METAROCE_OP_ATOMIC_RESP;
	r.psn = h->psn;
	r.orig = orig;
	r.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
	rp_xmit(ep, &r, NULL, 0, rp_path_reply(ep, h->path, false));
	bit_set(ep, h->psn, true);
}

static void dup_atomic(struct rp_ep *ep, const struct mro_hdr *h)
{
	struct mro_hdr r;
	unsigned int i;

	for (i = 0; i < RP_READ_MEMORY; i++) {
		if (!ep->atomic_mem[i].used || ep->atomic_mem[i].psn != h->psn)
			continue;
		memset(&r, 0, sizeof(r));
		r.opcode = METAROCE_OP_ATOMIC_RESP;
		r.psn = h->psn;
		r.orig = ep->atomic_mem[i].orig;
		r.flags = METAROCE_F_FIRST | METAROCE_F_LAST;
		/* on the duplicate's own slot (EXT-7) */
		rp_xmit(ep, &r, NULL, 0, rp_path_reply(ep, h->path, false));
		return;
	}
	ep->st.rx_drop_dup_req++;
}

/* ATOMIC_WRITE: 8 bytes stored big-endian; its ACK follows (exec()) */
static void exec_atomic_write(struct rp_ep *ep, const struct mro_hdr *h)
{
	const struct mro_atomic_hdr *a = &h->atomic;
	u8 *p;
	int i;

	if (!rp_mr_check(ep, a->rkey, a->va, 8, RP_ACCESS_REMOTE_WRITE)) {
		nak(ep, h, METAROCE_SYN_NAK_ACCESS, "ATOMIC_WRITE access");
		return;
	}
	p = (u8 *)(uintptr_t)a->va;
	for (i = 0; i < 8; i++)
		p[i] = a->swap_add >> (56 - 8 * i);
	bit_set(ep, h->psn, true);
}

/*
 * FLUSH: this memory is the process's own, so global visibility is a
 * barrier; nothing here is persistent, so persistence fails the access
 * check (protocol.rst, FLUSH)
 */
static void exec_flush(struct rp_ep *ep, const struct mro_hdr *h)
{
	const struct mro_flush_hdr *f = &h->flush;
	bool ok = !(f->type & METAROCE_FLUSH_PERSISTENT);
	unsigned int i;

	if (ok && f->level == METAROCE_FLUSH_RANGE) {
		ok = rp_mr_check(ep, f->rkey, f->va, f->length,
				 RP_ACCESS_FLUSH_GLOBAL) != NULL;
	} else if (ok) {
		ok = false;
		for (i = 0; i < ep->nmr; i++)
			if (ep->mr[i].rkey == f->rkey)
				ok = ep->mr[i].access & RP_ACCESS_FLUSH_GLOBAL;
	}
	if (!ok) {
		nak(ep, h, METAROCE_SYN_NAK_ACCESS, "FLUSH access");
		return;
	}
	__sync_synchronize();
	bit_set(ep, h->psn, true);
}

static bool is_rdat(u8 op)
{
	return op == METAROCE_OP_READ_REQ || op == METAROCE_OP_CMP_SWAP ||
	       op == METAROCE_OP_FETCH_ADD;
}

static void advance(struct rp_ep *ep);

/* a key fence before @psn holds @key (ORD-2) */
static bool fence_holds(struct rp_ep *ep, u32 psn, u32 key)
{
	unsigned int i;

	for (i = 0; i < RP_MAX_FENCES; i++)
		if (ep->fence[i].used && ep->fence[i].key == key &&
		    psn_lt(ep->fence[i].psn, psn))
			return true;
	return false;
}

static unsigned int fences_used(struct rp_ep *ep)
{
	unsigned int i, n = 0;

	for (i = 0; i < RP_MAX_FENCES; i++)
		n += ep->fence[i].used;
	return n;
}

/*
 * The fences every earlier PSN has reached: invalidate their keys.  The
 * peer's regions are ordinary ones, which no SEND_INV can invalidate, so
 * each fails its message (LOC_PROT_ERR) and the QP (ORD-4).
 */
static void run_fences(struct rp_ep *ep)
{
	unsigned int i;

	for (i = 0; i < RP_MAX_FENCES && !ep->dead; i++) {
		struct rp_fence *f = &ep->fence[i];
		struct rp_rmsg *m;

		if (!f->used || !psn_lt(f->psn, ep->rcv_base))
			continue;
		f->used = false;
		m = &ep->rmsg[f->msn % METAROCE_MSG_WINDOW];
		if (m->used && m->msn == f->msn) {
			m->fence_wait = false;
			m->prot_err = true;
		}
		complete_msgs(ep);
		rp_fail(ep, "QP %u: SEND_INV of key %#x, which cannot be invalidated: connection ended",
			ep->cfg.qpn, f->key);
	}
}

/* the first packet of a READ (not a continuation READ_REQ) or an atomic */
static bool first_of_rdat(const struct mro_hdr *h)
{
	return h->opcode != METAROCE_OP_READ_REQ || !h->msg.offset;
}

/* the READ/atomics waiting for their turn, counted by first packet */
static unsigned int waiting_rdat(struct rp_ep *ep)
{
	unsigned int i, n = 0;

	for (i = 0; i < RP_MAX_PENDING; i++)
		n += ep->pending[i].used && first_of_rdat(&ep->pending[i].h);
	return n;
}

/*
 * A READ_REQ or atomic at the window's base.  Its responses acknowledge
 * it; the ACK its ACK_REQ asks for follows them once the base has moved
 * past it, and carries the grant (credit_psn) the requester needs to go
 * on: a READ-only stream gets no other ACK.
 */
static void exec(struct rp_ep *ep, const struct mro_hdr *h)
{
	if (!ep->cfg.max_dest_rd_atomic) {
		/* RES-2: no responder resources at all */
		nak(ep, h, METAROCE_SYN_NAK_INVALID, "no responder resources");
		return;
	}
	if (h->opcode == METAROCE_OP_READ_REQ)
		exec_read(ep, h, false);
	else if (h->opcode == METAROCE_OP_ATOMIC_WRITE)
		exec_atomic_write(ep, h);
	else if (h->opcode == METAROCE_OP_FLUSH)
		exec_flush(ep, h);
	else
		exec_atomic(ep, h);
	if (ep->dead)
		return;
	advance(ep);
	/* ACK-10: answered after its responses, and counted in the rhythm */
	ep->since_ack++;
	if ((h->flags & METAROCE_F_ACK_REQ) ||
	    h->psn % ep->cfg.ack_every == ep->cfg.ack_every - 1u ||
	    ep->since_ack >= ep->cfg.ack_every)
		send_ack(ep, h, METAROCE_SYN_ACK, 0, 0, false);
}

static void advance(struct rp_ep *ep)
{
	unsigned int i;
	bool again = true;

	while (again && !ep->dead) {
		again = false;
		while (psn_lt(ep->rcv_base, ep->rcv_high) &&
		       bit_get(ep, ep->rcv_base)) {
			bit_set(ep, ep->rcv_base, false);
			ep->rcv_base++;
		}
		run_fences(ep);
		if (ep->dead)
			return;
		for (i = 0; i < RP_MAX_PENDING; i++) {
			struct rp_pending *p = &ep->pending[i];

			if (!p->used || p->h.psn != ep->rcv_base)
				continue;
			p->used = false;
			exec(ep, &p->h);
			if (psn_lt(ep->rcv_high, ep->rcv_base + 1))
				ep->rcv_high = ep->rcv_base + 1;
			again = true;
			break;
		}
	}
	/* a READ's response PSNs may reach past everything seen */
	while (bit_get(ep, ep->rcv_base) && !ep->dead) {
		bit_set(ep, ep->rcv_base, false);
		ep->rcv_base++;
	}
	if (psn_lt(ep->rcv_high, ep->rcv_base))
		ep->rcv_high = ep->rcv_base;
	run_fences(ep);
}

/* a complete SEND_INV: its invalidation waits for every earlier PSN */
static void add_fence(struct rp_ep *ep, struct rp_rmsg *m)
{
	unsigned int i;

	for (i = 0; i < RP_MAX_FENCES; i++) {
		if (ep->fence[i].used)
			continue;
		ep->fence[i].used = true;
		ep->fence[i].psn = m->last_psn;
		ep->fence[i].key = m->imm;
		ep->fence[i].msn = m->msn;
		m->fence_wait = true;
		return;
	}
}

/* returns false if the packet must not be marked received */
static bool place_msg(struct rp_ep *ep, const struct mro_hdr *h,
		      const u8 *payload)
{
	const struct mro_msg_hdr *q = &h->msg;
	u32 ahead = q->msn - ep->rcv_msn;
	struct rp_rmsg *m;
	struct rp_rwqe *r;
	u32 idx;

	if (ahead >= METAROCE_MSG_WINDOW) {
		ep->st.rx_drop_window++;
		return false;
	}
	m = &ep->rmsg[q->msn % METAROCE_MSG_WINDOW];
	if (m->used && (m->msn != q->msn || m->opcode != h->opcode ||
			m->length != q->length)) {
		ep->st.rx_drop_field++;
		return false;
	}
	if (h->opcode == METAROCE_OP_SEND_INV && !m->used &&
	    fences_used(ep) == RP_MAX_FENCES) {
		ep->st.rx_key_order_wait++;	/* ORD-3 */
		return false;
	}
	if (h->opcode == METAROCE_OP_WRITE_IMM &&
	    fence_holds(ep, h->psn, q->rkey)) {
		ep->st.rx_key_order_wait++;
		return false;
	}
	if (!m->used) {
		idx = ep->rq_head + ahead;
		if (psn_le(ep->rq_tail, idx)) {
			/* no receive WQE: RNR NAK, not marked received */
			send_ack(ep, h, METAROCE_SYN_RNR_NAK, 1, h->psn, false);
			ep->st.rnr_nak_sent++;
			return false;
		}
		r = &ep->rq[idx % RP_RQ_SIZE];
		if (h->opcode != METAROCE_OP_WRITE_IMM && q->length > r->len) {
			/*
			 * MSG-8: LOC_LEN_ERR and NAK_INVALID, at the base only
			 * (ahead of it: rx_drop_error_ahead, judged again)
			 */
			if (h->psn == ep->rcv_base && idx == ep->rq_head) {
				struct rp_wc wc = {
					.wr_id = r->wr_id, .opcode = RP_WC_RECV,
					.status = RP_WC_LOC_LEN_ERR,
				};

				ep->rq_head++;
				rp_cq_push(ep, &wc);
			}
			nak(ep, h, METAROCE_SYN_NAK_INVALID,
			    "SEND longer than its receive WQE");
			return false;
		}
		memset(m, 0, sizeof(*m));
		m->used = true;
		m->msn = q->msn;
		m->opcode = h->opcode;
		m->length = q->length;
		m->imm = q->imm;
		m->rq = idx;
		r = &ep->rq[idx % RP_RQ_SIZE];
	}
	r = &ep->rq[m->rq % RP_RQ_SIZE];
	if (h->opcode == METAROCE_OP_WRITE_IMM) {
		if (!rp_mr_check(ep, q->rkey, q->va + q->offset,
				 h->payload_len, RP_ACCESS_REMOTE_WRITE)) {
			nak(ep, h, METAROCE_SYN_NAK_ACCESS, "WRITE_IMM access");
			return false;
		}
		memcpy((u8 *)(uintptr_t)(q->va + q->offset), payload,
		       h->payload_len);
	} else if (!m->len_err) {
		memcpy(r->buf + q->offset, payload, h->payload_len);
	}
	m->got += h->payload_len;
	if (h->opcode == METAROCE_OP_SEND_INV && (h->flags & METAROCE_F_LAST))
		m->last_psn = h->psn;
	if (m->got == m->length && !m->done) {
		m->done = true;
		if (h->opcode == METAROCE_OP_SEND_INV)
			add_fence(ep, m);
	}
	return true;
}

void rp_resp_rx(struct rp_ep *ep, struct mro_hdr *h, const u8 *payload,
		bool ce)
{
	s32 d = psn_diff(h->psn, ep->rcv_base);
	u32 high_before = ep->rcv_high;
	bool ack = false, placed = true;
	unsigned int i;

	if (h->opcode == METAROCE_OP_PROBE) {
		if (!(h->flags & METAROCE_F_ACK_REQ)) {
			ep->st.rx_drop_field++;
			return;
		}
		if (d > (s32)ep->cfg.window || d < -(s32)ep->cfg.window) {
			ep->st.rx_drop_window++;
			return;
		}
		if (ce)
			ep->ecn_ce++;
		if (h->flags & METAROCE_F_NEW_PORT)
			rp_path_renew(ep, h->path);
		send_ack(ep, h, METAROCE_SYN_ACK, 0, 0, false);
		return;
	}
	if (d >= (s32)ep->cfg.window || d < -65536) {
		ep->st.rx_drop_window++;
		return;
	}
	if (h->flags & METAROCE_F_ACK_PIGGY)
		rp_req_apply_cum(ep, h->ack_psn);
	if (ep->cfg.credit_idle_us)
		ep->credit_due_us = rp_now_us() + ep->cfg.credit_idle_us;
	if (d < 0 || bit_get(ep, h->psn)) {
		ep->st.rx_duplicate++;
		if (h->opcode == METAROCE_OP_READ_REQ)
			dup_read(ep, h);
		else if (is_rdat(h->opcode))
			dup_atomic(ep, h);
		else
			send_ack(ep, h, METAROCE_SYN_ACK, 0, 0, true);
		return;
	}
	if (d > 0 || psn_lt(h->psn, ep->rcv_high))
		ep->st.rx_out_of_order++;
	if (ce)
		ep->ecn_ce++;

	switch (h->opcode) {
	case METAROCE_OP_SEND:
	case METAROCE_OP_SEND_IMM:
	case METAROCE_OP_SEND_INV:
	case METAROCE_OP_WRITE_IMM:
		placed = place_msg(ep, h, payload);
		break;
	case METAROCE_OP_WRITE:
		if (fence_holds(ep, h->psn, h->msg.rkey)) {
			ep->st.rx_key_order_wait++;	/* ORD-2 */
			return;
		}
		if (!rp_mr_check(ep, h->msg.rkey, h->msg.va + h->msg.offset,
				 h->payload_len, RP_ACCESS_REMOTE_WRITE)) {
			nak(ep, h, METAROCE_SYN_NAK_ACCESS, "WRITE access");
			return;
		}
		memcpy((u8 *)(uintptr_t)(h->msg.va + h->msg.offset), payload,
		       h->payload_len);
		break;
	case METAROCE_OP_READ_REQ:
	case METAROCE_OP_CMP_SWAP:
	case METAROCE_OP_FETCH_ADD:
	case METAROCE_OP_ATOMIC_WRITE:
	case METAROCE_OP_FLUSH:
		/* in PSN order, after every earlier request (ORD-6, FLUSH-3) */
		if (psn_lt(ep->rcv_high, h->psn + 1))
			ep->rcv_high = h->psn + 1;
		if (h->psn == ep->rcv_base) {
			exec(ep, h);
			advance(ep);
			complete_msgs(ep);
			return;
		}
		for (i = 0; i < RP_MAX_PENDING; i++)
			if (ep->pending[i].used && ep->pending[i].h.psn == h->psn)
				return;	/* already waiting for its turn */
		/*
		 * more than max_dest_rd_atomic waiting (by first packet: a
		 * READ's continuations count with it): this one is over the
		 * sender's limit, dropped until its resend (RES-3)
		 */
		if (first_of_rdat(h) && ep->cfg.max_dest_rd_atomic &&
		    waiting_rdat(ep) >= ep->cfg.max_dest_rd_atomic) {
			ep->st.rx_drop_error_ahead++;
			return;
		}
		for (i = 0; i < RP_MAX_PENDING; i++) {
			if (ep->pending[i].used)
				continue;
			ep->pending[i].used = true;
			ep->pending[i].h = *h;
			break;
		}
		/* opens a hole ahead of it: tell the sender at once */
		send_ack(ep, h, METAROCE_SYN_ACK, 0, 0, false);
		return;
	default:
		ep->st.rx_drop_field++;
		return;
	}
	if (!placed || ep->dead)
		return;
	bit_set(ep, h->psn, true);
	if (psn_le(ep->rcv_high, h->psn))
		ep->rcv_high = h->psn + 1;
	advance(ep);
	complete_msgs(ep);

	ep->since_ack++;
	if (h->flags & METAROCE_F_ACK_REQ)
		ack = true;
	else if (psn_lt(high_before, h->psn) || psn_lt(h->psn, high_before - 1))
		ack = true;	/* opens or fills a hole */
	else if (h->psn % ep->cfg.ack_every == ep->cfg.ack_every - 1u)
		ack = true;
	else if (ep->since_ack >= ep->cfg.ack_every)
		ack = true;
	if (ack)
		send_ack(ep, h, METAROCE_SYN_ACK, 0, 0, false);
}

/*
 * CTRL-5: the sender fell silent for one credit interval: a CREDIT with
 * the receive window base and a grant of the whole window, once
 */
void rp_resp_timer(struct rp_ep *ep, u64 now)
{
	struct mro_hdr h;

	if (!ep->credit_due_us || now < ep->credit_due_us)
		return;
	ep->credit_due_us = 0;
	memset(&h, 0, sizeof(h));
	h.opcode = METAROCE_OP_CREDIT;
	h.psn = ep->rcv_base;
	h.ctrl.token = 0;
	h.ctrl.credit_psn = ep->rcv_base + ep->cfg.window;
	rp_xmit(ep, &h, NULL, 0, 0);
}
