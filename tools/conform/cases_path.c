// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The target's path health (protocol.rst: Paths): the tester makes one
 * of the target's path slots fail, by dropping every packet that arrives
 * on it (a black hole) or by taking them but never echoing one in its
 * ACKs (a dead way back), acknowledges the other slots' packets with
 * cumulative ACKs and SACK, and watches where the target puts its new
 * PSNs: the slot's share falls when it is suspended, it carries no new
 * data once retired, it is re-probed from a fresh source port at
 * doubling intervals, and an answered probe revives it.  What happens
 * inside (the health record, the score) is not looked at, only the
 * packets.  The reference peer has no path health: the cases are
 * skipped against it.
 */
#include "conform.h"

#define TVA	0x100000ULL	/* an address and key the target names */
#define TRKEY	0x4242
#define PR_PSNS	8192		/* PSNs a run follows */
#define PR_PROBES 64

enum hole_mode { HOLE_DROP, HOLE_NO_ECHO, HOLE_ONE };

struct hole_run {
	/* the run */
	enum hole_mode mode;
	bool answer_probe;	/* answer the first NEW_PORT PROBE: revival */
	unsigned int writes;	/* WRITEs of 60000 bytes posted at the start */
	unsigned int more;	/* and after the revival */
	u64 busy_us;		/* keep this many in the queue this long */
	unsigned int max_writes;	/* ... up to this many in all */
	u64 linger_us;		/* pumped after the last completion */
	/* what it saw */
	int hole;		/* the slot (the first WRITE packet's) */
	u16 hole_sport;		/* its source port before any re-probe */
	u32 first;
	unsigned int nnew;	/* new PSNs, in order of arrival */
	u16 new_path[PR_PSNS];	/* ... their slots */
	u64 new_t[PR_PSNS];	/* ... and arrival times */
	u32 new_psn[PR_PSNS];
	bool got[PR_PSNS];
	bool seen[PR_PSNS];
	u64 t_first_loss;	/* the first resend of a PSN first sent on the hole */
	int dropped;		/* HOLE_ONE: the index of the PSN dropped (-1) */
	unsigned int nprobe;	/* PROBEs on the hole slot */
	struct pkt probe[PR_PROBES];
	u64 t_revived;		/* when the tester answered the probe */
	unsigned int new_after_rev;	/* new PSNs on the hole after that */
	bool rev_sport_ok;	/* ... all from the probe's port */
	unsigned int ndone, nbad;
	unsigned int npaths;	/* slots seen in the first 64 new PSNs */
	bool full;		/* the capture ran out */
};

static void ack_with_sack(struct cx *cx, struct hole_run *r, u32 cum,
			  const struct pkt *echo)
{
	u64 sack[2] = { 0, 0 };
	unsigned int k;

	for (k = 0; k < METAROCE_SACK_BITS; k++)
		if (cum - r->first + 1 + k < PR_PSNS &&
		    r->got[cum - r->first + 1 + k])
			sack[k / 64] |= 1ULL << (k % 64);
	cx_ack_sack(cx, echo, cum, cum + cx->cfg.window, sack);
}

/* a run's start: false (and a skip) against the reference peer */
static bool hole_start(struct cx *cx, struct hole_run *r, enum hole_mode mode,
		       unsigned int writes, u64 busy_us)
{
	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer has no path health";
		return false;
	}
	memset(r, 0, sizeof(*r));
	r->mode = mode;
	r->writes = writes;
	r->busy_us = busy_us;
	r->max_writes = busy_us ? 150 : writes;
	r->linger_us = 100000;
	cx_snap(cx);
	return true;
}

static void post_writes(struct cx *cx, unsigned int n, unsigned int wr0)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		CHECK(cx, !cx_agent(cx, "WRITE wr=%u off=0 len=60000 va=%llu rkey=%u",
				    wr0 + i, TVA, TRKEY), "post WRITE");
}

/* one run: the WRITEs through a failing slot, every packet looked at */
static void hole_run(struct cx *cx, struct hole_run *r)
{
	unsigned int next = 0, i, k, want = r->writes;
	u32 cum, d;
	struct twc wc[32];
	u64 end, poll_at = 0, done_at = 0, busy_end;
	int n;

	r->hole = -1;
	r->dropped = -1;
	r->first = cum = cx->tpsn;
	r->rev_sport_ok = true;
	post_writes(cx, r->writes, 100);
	busy_end = cx_now_us() + r->busy_us;
	end = cx_now_us() + 20000000;
	while (cx_now_us() < end) {
		cx_pump(cx, 1);
		if (cx->nq >= CX_MAX_PKTS)
			r->full = true;
		for (; next < cx->nq; next++) {
			struct pkt *p = &cx->q[next];
			bool on_hole;

			if (p->h.opcode == METAROCE_OP_PROBE) {
				if ((int)p->h.path != r->hole ||
				    r->mode == HOLE_ONE) {
					/* a tail-loss probe elsewhere: answered */
					ack_with_sack(cx, r, cum, p);
					continue;
				}
				if (r->nprobe < PR_PROBES)
					r->probe[r->nprobe++] = *p;
				if (r->answer_probe && !r->t_revived &&
				    (p->h.flags & METAROCE_F_NEW_PORT)) {
					r->t_revived = cx_now_us();
					r->hole_sport = p->sport;
					ack_with_sack(cx, r, cum, p);
					post_writes(cx, r->more, 200);
					want += r->more;
				}
				continue;
			}
			if (p->h.opcode != METAROCE_OP_WRITE)
				continue;
			d = p->h.psn - r->first;
			if (d >= PR_PSNS)
				continue;
			if (r->hole < 0) {
				r->hole = p->h.path;
				r->hole_sport = p->sport;
			}
			on_hole = (int)p->h.path == r->hole && !r->t_revived;
			if (r->mode == HOLE_ONE) {
				/* one new PSN on the slot after 64, once */
				on_hole = on_hole && r->dropped < 0 &&
					  !(p->h.flags & METAROCE_F_RETX) &&
					  !r->seen[d] && r->nnew >= 64;
				if (on_hole)
					r->dropped = r->nnew;
			}
			if (!(p->h.flags & METAROCE_F_RETX) && !r->seen[d]) {
				r->seen[d] = true;
				r->new_path[r->nnew] = p->h.path;
				r->new_t[r->nnew] = p->t_us;
				r->new_psn[r->nnew++] = p->h.psn;
				if (r->t_revived && (int)p->h.path == r->hole) {
					r->new_after_rev++;
					r->rev_sport_ok &= p->sport == r->hole_sport;
				}
			}
			if ((p->h.flags & METAROCE_F_RETX) && !r->t_first_loss) {
				for (k = 0; k < r->nnew; k++)
					if (r->new_psn[k] == p->h.psn &&
					    (int)r->new_path[k] == r->hole)
						r->t_first_loss = p->t_us;
			}
			if (on_hole && r->mode != HOLE_NO_ECHO)
				continue;
			r->got[d] = true;
			while (cum - r->first < PR_PSNS && r->got[cum - r->first])
				cum++;
			/* a dead way back: taken (SACKed later), never echoed */
			if (on_hole && r->mode == HOLE_NO_ECHO)
				continue;
			ack_with_sack(cx, r, cum, p);
		}
		if (cx_now_us() >= poll_at) {
			n = cx_wc(cx, 0, wc, 32);
			for (i = 0; i < (unsigned int)(n > 0 ? n : 0); i++) {
				if (strcmp(wc[i].status, "success")) {
					r->nbad++;
					cx_note(cx, "WRITE %llu completed %s",
						(unsigned long long)wc[i].wr,
						wc[i].status);
				}
				r->ndone++;
				/* a busy run keeps the queue full */
				if (cx_now_us() < busy_end && want < r->max_writes) {
					post_writes(cx, 1, 300 + want);
					want++;
				}
			}
			poll_at = cx_now_us() + 20000;
			if (n < 0 || r->nbad)
				break;
		}
		if (r->ndone >= want && !done_at) {
			done_at = cx_now_us();
			if (!r->answer_probe || r->t_revived)
				end = done_at + r->linger_us;
		}
	}
	for (i = 0, r->npaths = 0; i < 64 && i < r->nnew; i++) {
		for (k = 0; k < i; k++)
			if (r->new_path[k] == r->new_path[i])
				break;
		r->npaths += k == i;
	}
	cx_note(cx, "slot %d: %u new PSNs over %u slots, %u PROBEs on the slot, %u of %u WRITEs completed",
		r->hole, r->nnew, r->npaths, r->nprobe, r->ndone, want);
	CHECK(cx, !r->full, "the capture ran out (%u packets)", CX_MAX_PKTS);
	CHECK(cx, r->nbad == 0, "%u WRITEs failed", r->nbad);
	CHECK(cx, r->ndone == want, "%u of %u WRITEs completed in 20 s",
	      r->ndone, want);
}

/* new PSNs on the hole slot among the new PSNs [a, b) */
static unsigned int on_hole(const struct hole_run *r, unsigned int a,
			    unsigned int b)
{
	unsigned int n = 0;

	for (; a < b && a < r->nnew; a++)
		n += (int)r->new_path[a] == r->hole;
	return n;
}

/* the index of the first new PSN that arrived at or after @t */
static unsigned int new_at(const struct hole_run *r, u64 t)
{
	unsigned int i;

	for (i = 0; i < r->nnew && r->new_t[i] < t; i++)
		;
	return i;
}

/* the last new PSN on the hole slot before @t (-1: none) */
static int last_on_hole(const struct hole_run *r, u64 t)
{
	int i;

	for (i = r->nnew; i-- > 0;)
		if ((int)r->new_path[i] == r->hole && r->new_t[i] < t)
			return i;
	return -1;
}

/*
 * The checks of a black-holed or echo-less slot until its retirement:
 * its share of new PSNs fell after its first loss (suspension), it got
 * none for the rest (retired), and NEW_PORT PROBEs came on it, each
 * from a source port no other slot and no earlier probe used
 */
static void check_retired(struct cx *cx, struct hole_run *r, u64 until,
			  bool suspension, unsigned int gap)
{
	unsigned int a, b, n, i, k, full_share;
	int last;

	last = last_on_hole(r, until);
	CHECK(cx, last >= 0 && r->npaths >= 2,
	      "no new PSN on the slot, or one slot only");
	if (cx->fails)
		return;
	b = new_at(r, until);
	cx_note(cx, "last new PSN on the slot: %d of %u (before the revival: %u)",
		last, r->nnew, b);
	/* retired: nothing on it for the rest (at least @gap new PSNs) */
	CHECK(cx, b - last - 1 >= gap,
	      "the slot carried new PSNs until %u new PSNs before the end (%u): not retired",
	      b - last - 1, b);
	if (suspension) {
		/* from its first loss's resend to the last PSN on it */
		CHECK(cx, r->t_first_loss != 0, "no PSN of the slot was resent");
		a = new_at(r, r->t_first_loss);
		n = on_hole(r, a, last + 1);
		full_share = (last + 1 - a) / r->npaths;
		cx_note(cx, "suspended: %u of %u new PSNs on the slot (a full share %u)",
			n, last + 1 - a, full_share);
		CHECK(cx, last + 1 <= (int)a || 2 * n <= full_share + 1,
		      "%u of %u new PSNs on the slot after its first loss: more than half its share of %u (suspension: one per 3 rounds)",
		      n, last + 1 - a, full_share);
	}
	n = 0;
	for (i = 0; i < r->nprobe; i++) {
		const struct pkt *p = &r->probe[i];

		if (!(p->h.flags & METAROCE_F_NEW_PORT) || p->t_us < r->new_t[last])
			continue;
		n++;
		CHECK(cx, p->sport != r->hole_sport || r->t_revived,
		      "a re-probe from the slot's old port %u", p->sport);
		for (k = 0; k < i; k++)
			CHECK(cx, r->probe[k].sport != p->sport ||
			      !(r->probe[k].h.flags & METAROCE_F_NEW_PORT),
			      "two re-probes from port %u", p->sport);
		/* unique within the QP: no other slot's port */
		for (k = 0; k < cx->nq; k++)
			if ((int)cx->q[k].h.path != r->hole &&
			    cx->q[k].sport == p->sport)
				break;
		CHECK(cx, k == cx->nq,
		      "a re-probe from port %u, which slot %u uses", p->sport,
		      cx->q[k < cx->nq ? k : 0].h.path);
	}
	CHECK(cx, n >= 1, "no NEW_PORT PROBE on the retired slot");
}

/*
 * A black-holed slot: suspended at its first loss, retired, re-probed
 * from fresh ports at doubling intervals while the QP is busy; the
 * probes are never answered
 * (the tester is a module that drops NEW_PORT probes): the slot stays
 * retired and the WRITEs complete over the others
 */
static void c_hole_retire(struct cx *cx)
{
	static struct hole_run r;
	unsigned int i, n = 0;
	u64 t[PR_PROBES];
	char st[16];

	if (!hole_start(cx, &r, HOLE_DROP, 12, 5000000))
		return;
	hole_run(cx, &r);
	if (cx->fails)
		return;
	check_retired(cx, &r, ~0ULL, true, 128);
	for (i = 0; i < r.nprobe; i++)
		if (r.probe[i].h.flags & METAROCE_F_NEW_PORT)
			t[n++] = r.probe[i].t_us;
	for (i = 1; i < n; i++)
		cx_note(cx, "re-probe %u: %llu us after the previous", i + 1,
			(unsigned long long)(t[i] - t[i - 1]));
	/*
	 * doubling up to 1 s: over 5 s of traffic from 1 ms (4 RTOs) on, a
	 * dozen at most.  Each interval is its nominal wait plus the
	 * lateness of the probe that ends it (a retired slot is re-probed
	 * when the send path runs): the third interval, nominally 4 times
	 * the first (or 1 s), at least twice the first or 900 ms
	 */
	CHECK(cx, n >= 4, "%u re-probes of the retired slot, want 4 or more", n);
	CHECK(cx, n <= 20, "%u re-probes of the retired slot: not at doubling intervals",
	      n);
	if (n >= 4)
		CHECK(cx, t[3] - t[2] >= 2 * (t[1] - t[0]) ||
		      t[3] - t[2] >= 900000,
		      "re-probe intervals %llu us first, %llu us third: not doubling",
		      (unsigned long long)(t[1] - t[0]),
		      (unsigned long long)(t[3] - t[2]));
	cx_state(cx, st, sizeof(st));
	CHECK(cx, !strcmp(st, "RTS"), "QP in %s with one slot retired", st);
	if (cx_delta(cx, "path_retired") >= 0)
		CHECK(cx, cx_delta(cx, "path_retired") >= 1,
		      "path_retired did not grow");
}

/*
 * A black-holed slot retired, then its first re-probe answered: the slot
 * is revived and carries new PSNs again, from the probe's port
 */
static void c_hole_revive(struct cx *cx)
{
	static struct hole_run r;

	if (!hole_start(cx, &r, HOLE_DROP, 12, 0))
		return;
	r.answer_probe = true;
	r.more = 8;
	hole_run(cx, &r);
	if (cx->fails)
		return;
	CHECK(cx, r.t_revived != 0, "no NEW_PORT PROBE on the slot to answer");
	if (!r.t_revived)
		return;
	check_retired(cx, &r, r.t_revived, false, 16);
	cx_note(cx, "after the answer: %u new PSNs on the slot of %u",
		r.new_after_rev, r.nnew - new_at(&r, r.t_revived));
	CHECK(cx, r.new_after_rev >= 1,
	      "no new PSN on the slot after its probe was answered: not revived");
	CHECK(cx, r.rev_sport_ok,
	      "new PSNs on the revived slot from another port than its probe's %u",
	      r.hole_sport);
	if (cx_delta(cx, "path_revived") >= 0)
		CHECK(cx, cx_delta(cx, "path_revived") >= 1,
		      "path_revived did not grow");
}

/*
 * A dead way back: the slot's packets arrive (the tester SACKs them in
 * the ACKs of the other slots) but no ACK echoes one; its rhythm PSNs'
 * echoes are owed, lost one RTO after their PSNs are known to have
 * arrived, and four lost in a row retire it: no new PSN on it after that,
 * and NEW_PORT PROBEs (while WRITEs keep the QP busy for 4 s)
 */
static void c_way_back(struct cx *cx)
{
	static struct hole_run r;

	if (!hole_start(cx, &r, HOLE_NO_ECHO, 12, 4000000))
		return;
	hole_run(cx, &r);
	if (cx->fails)
		return;
	check_retired(cx, &r, ~0ULL, false, 128);
	if (cx_delta(cx, "path_retired") >= 0)
		CHECK(cx, cx_delta(cx, "path_retired") >= 1,
		      "path_retired did not grow");
}

/*
 * One loss on a slot: its first PSN after the 64th dropped, every other
 * packet delivered.  The slot is suspended (a third of its share) until
 * its next delivery: from the first new PSN on it after the resend of
 * the lost one, it carries at least two thirds of its share of the next
 * 512 new PSNs again (suspended, a third)
 */
static void c_suspend_lifted(struct cx *cx)
{
	static struct hole_run r;
	unsigned int a, n, share;
	int k;

	if (!hole_start(cx, &r, HOLE_ONE, 20, 0))
		return;
	hole_run(cx, &r);
	if (cx->fails)
		return;
	CHECK(cx, r.dropped >= 0 && r.t_first_loss,
	      "no PSN dropped on the slot, or it was never resent");
	if (cx->fails)
		return;
	/* the first new PSN on the slot after the resend: delivered */
	a = new_at(&r, r.t_first_loss);
	for (k = a; k < (int)r.nnew && (int)r.new_path[k] != r.hole; k++)
		;
	CHECK(cx, k + 1 + 512 <= (int)r.nnew,
	      "fewer than 512 new PSNs after the slot's next delivery (%u of %u)",
	      r.nnew - k - 1, r.nnew);
	if (cx->fails)
		return;
	n = on_hole(&r, k + 1, k + 1 + 512);
	share = 512 / r.npaths;
	cx_note(cx, "dropped new PSN %d; resent at new PSN %u; next on the slot %d; then %u of 512 on the slot (a full share %u)",
		r.dropped, a, k, n, share);
	CHECK(cx, 3 * n >= 2 * share,
	      "%u of 512 new PSNs on the slot after its next delivery, below two thirds of its share %u: the suspension was not lifted",
	      n, share);
	CHECK(cx, r.nprobe == 0 || !(r.probe[0].h.flags & METAROCE_F_NEW_PORT),
	      "one loss retired the slot");
}

/* a run of c_batch_loss(): what the tester has and what it saw */
struct batch_run {
	u32 first;
	int slot;		/* the slot that loses */
	bool got[PR_PSNS];	/* delivered, as the tester's ACKs say */
	bool seen[PR_PSNS];	/* a first transmission arrived */
	unsigned int nnew;	/* new PSNs in order of arrival ... */
	u16 new_path[PR_PSNS];	/* ... their slots */
	unsigned int lossy_from;	/* the first new PSN of the lossy rounds */
	unsigned int dropped;	/* first transmissions on the slot not taken */
	unsigned int reprobes;	/* NEW_PORT PROBEs on it */
};

/*
 * Only a loss with nothing delivered after it on its path extends the
 * streak (PATH-2).  WRITEs acknowledged in rounds: 60 ms after the first
 * packet of a round the tester sends one ACK per transmission it takes,
 * each echoing it and each carrying cum_psn and the SACK of everything it
 * has, so the first of them reports the whole round before the target's
 * loss detection runs.  On one slot (the first WRITE packet's) the tester
 * takes, from the third round on, only the newest first transmission of
 * each round: the others are found lost after that one was counted
 * delivered, older than the slot's newest delivery, and weigh on its loss
 * rate alone.  The slot loses most of its packets but is never suspended
 * (a third of its share of new PSNs) nor retired (none, and NEW_PORT
 * PROBEs): from its first loss on it keeps at least two thirds of its
 * share.
 */
static void c_batch_loss(struct cx *cx)
{
	static struct batch_run r;
	unsigned int next = 0, i, k, round, nwr = 16, ndone = 0, nbad = 0;
	unsigned int nh, npaths, share;
	u32 cum, d;
	int newest;
	struct twc wc[32];
	struct pkt *p;
	u64 sack[2], t0, end;

	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer has no path health";
		return;
	}
	memset(&r, 0, sizeof(r));
	r.slot = -1;
	r.first = cx->tpsn;
	cum = r.first;
	cx_snap(cx);
	post_writes(cx, nwr, 100);
	for (round = 0; round < 60 && ndone < nwr && !nbad; round++) {
		/* the round starts with the first packet after the last */
		end = cx_now_us() + 2000000;
		while (next == cx->nq && cx_now_us() < end)
			cx_pump(cx, 1);
		if (next == cx->nq)
			break;	/* nothing out: the completions follow */
		t0 = cx->q[next].t_us;
		while (cx_now_us() < t0 + 60000)
			cx_pump(cx, 1);
		newest = -1;
		for (i = next; i < cx->nq; i++) {
			p = &cx->q[i];
			if (p->h.opcode == METAROCE_OP_PROBE &&
			    (p->h.flags & METAROCE_F_NEW_PORT)) {
				r.reprobes += (int)p->h.path == r.slot;
				continue;	/* a re-probe is not answered */
			}
			if (p->h.opcode != METAROCE_OP_WRITE)
				continue;
			d = p->h.psn - r.first;
			if (d >= PR_PSNS)
				continue;
			if ((p->h.flags & METAROCE_F_RETX) || r.seen[d]) {
				r.got[d] = true;
				continue;
			}
			r.seen[d] = true;
			if (r.slot < 0)
				r.slot = p->h.path;
			if (round == 2 && !r.lossy_from)
				r.lossy_from = r.nnew;
			r.new_path[r.nnew++] = p->h.path;
			if (round < 2 || (int)p->h.path != r.slot) {
				r.got[d] = true;
				continue;
			}
			/* the slot: only the newest of the round is taken */
			if (newest >= 0)
				r.dropped++;
			newest = i;
		}
		if (newest >= 0)
			r.got[cx->q[newest].h.psn - r.first] = true;
		while (cum - r.first < PR_PSNS && r.got[cum - r.first])
			cum++;
		memset(sack, 0, sizeof(sack));
		for (k = 0; k < METAROCE_SACK_BITS; k++)
			if (cum - r.first + 1 + k < PR_PSNS &&
			    r.got[cum - r.first + 1 + k])
				sack[k / 64] |= 1ULL << (k % 64);
		/* one ACK per transmission taken: every echo comes back */
		for (i = next; i < cx->nq; i++) {
			p = &cx->q[i];
			if (p->h.opcode == METAROCE_OP_PROBE &&
			    !(p->h.flags & METAROCE_F_NEW_PORT))
				cx_ack_sack(cx, p, cum, cum + 96, sack);
			if (p->h.opcode != METAROCE_OP_WRITE ||
			    p->h.psn - r.first >= PR_PSNS ||
			    !r.got[p->h.psn - r.first])
				continue;
			cx_ack_sack(cx, p, cum, cum + 96, sack);
		}
		next = i;
		k = cx_wc(cx, 0, wc, 32);
		for (i = 0; i < (unsigned int)((int)k > 0 ? k : 0); i++) {
			ndone++;
			if (strcmp(wc[i].status, "success")) {
				nbad++;
				cx_note(cx, "WRITE %llu completed %s",
					(unsigned long long)wc[i].wr,
					wc[i].status);
			}
		}
	}
	while (!nbad && ndone < nwr) {
		k = cx_wc_wait(cx, 1000, wc, 32);
		if (!k)
			break;
		for (i = 0; i < k; i++)
			nbad += !!strcmp(wc[i].status, "success");
		ndone += k;
	}
	for (i = 0, npaths = 0; i < 64 && i < r.nnew; i++) {
		for (k = 0; k < i; k++)
			if (r.new_path[k] == r.new_path[i])
				break;
		npaths += k == i;
	}
	for (i = r.lossy_from, nh = 0; i < r.nnew; i++)
		nh += (int)r.new_path[i] == r.slot;
	share = npaths ? (r.nnew - r.lossy_from) / npaths : 0;
	cx_note(cx, "%u rounds; slot %d: %u first transmissions not taken; %u of %u new PSNs on it from its first loss on (a full share %u, over %u slots)",
		round, r.slot, r.dropped, nh, r.nnew - r.lossy_from, share,
		npaths);
	if (cx_delta(cx, "path_suspended") >= 0)
		cx_note(cx, "path_suspended grew by %lld, path_retired by %lld",
			cx_delta(cx, "path_suspended"),
			cx_delta(cx, "path_retired"));
	CHECK(cx, nbad == 0 && ndone == nwr, "%u of %u WRITEs completed, %u failed",
	      ndone, nwr, nbad);
	CHECK(cx, r.dropped >= 16 && npaths >= 4,
	      "%u losses on the slot over %u slots: want 16 or more, 4 slots or more",
	      r.dropped, npaths);
	if (cx->fails)
		return;
	CHECK(cx, 3 * nh >= 2 * share,
	      "%u of %u new PSNs on the slot after its first loss, below two thirds of its share %u: losses older than its newest delivery extended its streak (suspended)",
	      nh, r.nnew - r.lossy_from, share);
	CHECK(cx, r.reprobes == 0,
	      "%u NEW_PORT PROBEs on the slot: losses older than its newest delivery retired it",
	      r.reprobes);
	if (cx_delta(cx, "path_retired") >= 0)
		CHECK(cx, cx_delta(cx, "path_retired") == 0,
		      "path_retired grew by %lld", cx_delta(cx, "path_retired"));
}

/*
 * Of the PSNs one RTO expiry declares lost only the oldest weighs on its
 * path's health (PATH-8).  After one RTT sample R (100 ms), a WRITE of 6
 * or more PSNs sprayed over the slots, never answered (nor its tail-loss
 * PROBEs): the first expiry (3 R after the probe) and the second (6 R
 * later) resend the oldest only, each weighing on the path of the
 * transmission of it that expiry declares lost (nothing was delivered
 * after it: that path is suspended); the third (12 R later) finds the
 * others sent more than four RTOs before it was due and declares them
 * lost too (they are resent with the oldest), but they do not weigh:
 * path_suspended grows by at most one per expiry.  Had they weighed, the
 * first of them on a path not yet suspended would have been suspended as
 * well (three of the seven other paths in trouble: still calm).
 */
static void c_rto_batch(struct cx *cx)
{
	struct cx_opts o = { .create = "timeout=18 retry=7" };
	unsigned int from, i, n = 0, nexp = 0;
	struct pkt *w = NULL, *y = NULL, *last = NULL;
	long long susp;
	struct twc wc[2];
	u64 t_o = 0, end;
	u32 psn;

	if (cx_is_refpeer(cx)) {
		cx->skip = "the reference peer has no path health";
		return;
	}
	if (cx_setup(cx, &o))
		return;
	CHECK(cx, !cx_agent(cx, "SEND wr=1 off=0 len=16"), "post SEND");
	for (end = cx_now_us() + 1000000; !w && cx_now_us() < end;) {
		cx_pump(cx, 1);
		for (i = 0; i < cx->nq && !w; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_SEND)
				w = &cx->q[i];
	}
	CHECK(cx, w != NULL, "no SEND within 1 s");
	if (!w)
		return;
	while (cx_now_us() < w->t_us + 100000)
		cx_pump(cx, 1);
	cx_ack(cx, w, METAROCE_SYN_ACK, w->h.psn + 1, 0, 0);
	CHECK(cx, cx_wc_wait(cx, 1000, wc, 2) == 1 && wc[0].wr == 1 &&
	      !strcmp(wc[0].status, "success"), "the SEND did not complete");
	if (cx->fails)
		return;
	cx_pump(cx, 2);
	cx_snap(cx);
	psn = w->h.psn + 1;
	from = cx->nq;
	CHECK(cx, !cx_agent(cx, "WRITE wr=2 off=0 len=8192 va=%llu rkey=%u",
			    0x100000ULL, 0x4242), "post WRITE");
	/* until a PSN after the oldest is resent: the batch */
	for (end = cx_now_us() + 8000000; !y && cx_now_us() < end;) {
		cx_pump(cx, 2);
		for (i = from; i < cx->nq && !y; i++)
			if (cx->q[i].h.opcode == METAROCE_OP_WRITE &&
			    (cx->q[i].h.flags & METAROCE_F_RETX) &&
			    cx->q[i].h.psn != psn)
				y = &cx->q[i];
	}
	for (i = from; i < cx->nq; i++) {
		struct pkt *p = &cx->q[i];

		if (p->h.opcode != METAROCE_OP_WRITE)
			continue;
		if (!(p->h.flags & METAROCE_F_RETX)) {
			n++;
			if (p->h.flags & METAROCE_F_LAST)
				last = p;
			continue;
		}
		/* the oldest's resends: one burst (and copies) per expiry */
		if (p->h.psn == psn && (!t_o || p->t_us > t_o + 8000)) {
			if (!y || p->t_us <= y->t_us + 8000)
				nexp++;
			t_o = p->t_us;
		}
	}
	CHECK(cx, n >= 6 && last, "the WRITE of 8192 bytes: %u packets, want 6 or more ending with LAST",
	      n);
	CHECK(cx, y != NULL, "no PSN but the oldest resent within 8 s");
	if (cx->fails)
		return;
	susp = cx_delta(cx, "path_suspended");
	cx_note(cx, "%u packets; %u expiries resent the oldest before the others, which left %llu us after the WRITE; path_suspended grew by %lld",
		n, nexp, (unsigned long long)(y->t_us - last->t_us), susp);
	/* the third expiry: after 1.5 R, 3 R and 6 R */
	CHECK(cx, nexp >= 2 && y->t_us - last->t_us >= 900000,
	      "the others resent %llu us after the WRITE, by the expiry %u: not by an RTO that found them old",
	      (unsigned long long)(y->t_us - last->t_us), nexp);
	if (susp >= 0)
		CHECK(cx, susp <= nexp,
		      "path_suspended grew by %lld over %u expiries: the PSNs an expiry found old weighed on their paths",
		      susp, nexp);
	/* done: everything acknowledged */
	cx_ack(cx, last, METAROCE_SYN_ACK, last->h.psn + 1, 0, 0);
	CHECK(cx, cx_wc_wait(cx, 2000, wc, 2) == 1 && wc[0].wr == 2 &&
	      !strcmp(wc[0].status, "success"), "the WRITE did not complete");
}

const struct ccase cases_path[] = {
	{ "PATH-4 PATH-7 PATH-9 PATH-14 PATH-16", "a black-holed slot: suspended, retired, re-probed from fresh ports", c_hole_retire, 0 },
	{ "PATH-17 ACK-20", "an answered re-probe revives the slot", c_hole_revive, 0 },
	{ "PATH-11 PATH-12 PATH-13", "a slot whose ACKs never come back is retired", c_way_back, 0 },
	{ "PATH-2", "losses older than the slot's newest delivery: no streak", c_batch_loss, 0 },
	{ "PATH-8", "an RTO's old PSNs do not weigh on their paths", c_rto_batch, CF_MANUAL },
	{ "PATH-5", "a suspended slot's next delivery lifts the suspension", c_suspend_lifted, 0 },
	{ NULL, NULL, NULL, 0 },
};
