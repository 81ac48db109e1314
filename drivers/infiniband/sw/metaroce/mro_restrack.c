// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * metaroce QP telemetry for `rdma resource show qp -dd` (and -j): the
 * transport state of the QP and, for each of its paths, the UDP source
 * port, state, packets and bytes sent, retransmits, losses, timeouts,
 * ACKed packets and RTT; how often paths were retired and revived.  A
 * path's state is active, suspended (mro_pathscore.h) or retired.
 * Attribute names start with the path slot, e.g. p3_sport.  The message
 * budget (~3.8 KB) fits MRO_RES_PATHS paths.
 */
#include <linux/slab.h>
#include <net/netlink.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "mro_devkey.h"
#include "mro_qp.h"
#include "mro_sched.h"

#define MRO_RES_PATHS	16

struct mro_res_snap {
	u32 snd_una;
	u32 snd_nxt;
	u32 rcv_base;
	u32 srtt_us;
	u32 rttvar_us;
	u32 inflight;
	u32 sq_unfetched;	/* posted WQEs the requester has not taken */
	u32 sq_busy;		/* a WQE is being sent */
	u64 retired;
	u64 revived;
	const char *negotiation;
	u8 prot;
	u8 key_id;
	u16 npaths;
	struct mro_path path[MRO_RES_PATHS];
};

/*
 * A path's source port goes only to readers who may see the PSNs (see
 * mro_qp_psns_visible()): a blind sender would otherwise have to guess it.
 */
static int mro_put_path(struct sk_buff *msg, u16 i, const struct mro_path *p,
			bool sport)
{
	static const char * const state[] = {
		[MRO_PATH_ACTIVE] = "active",
		[MRO_PATH_RETIRED] = "retired",
	};
	char key[24];

#define MRO_PUT32(field, val) ({					\
	snprintf(key, sizeof(key), "p%u_" field, i);			\
	rdma_nl_put_driver_u32(msg, key, (val)); })
#define MRO_PUT64(field, val) ({					\
	snprintf(key, sizeof(key), "p%u_" field, i);			\
	rdma_nl_put_driver_u64(msg, key, (val)); })

	snprintf(key, sizeof(key), "p%u_state", i);
	if (rdma_nl_put_driver_string(msg, key,
				      p->state == MRO_PATH_ACTIVE &&
				      p->suspended ? "suspended" :
				      p->state < ARRAY_SIZE(state) ?
				      state[p->state] : "?"))
		return -EMSGSIZE;
	if ((sport && MRO_PUT32("sport", p->sport)) ||
	    MRO_PUT64("tx_pkts", p->tx_pkts) ||
	    MRO_PUT64("tx_bytes", p->tx_bytes) ||
	    MRO_PUT64("retx", p->retx) ||
	    MRO_PUT64("lost", p->lost) ||
	    MRO_PUT64("timeouts", p->timeouts) ||
	    MRO_PUT64("acked", p->acked) ||
	    MRO_PUT32("srtt_us", p->srtt_us) ||
	    MRO_PUT32("rttvar_us", p->rttvar_us) ||
	    MRO_PUT32("min_rtt_us", p->min_rtt_us) ||
	    MRO_PUT32("ecn", p->ecn))
		return -EMSGSIZE;
#undef MRO_PUT32
#undef MRO_PUT64
	return 0;
}

int mro_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct mro_qp *qp = to_mro_qp(ibqp);
	/* a dump runs in the reader's context */
	bool psns = mro_qp_psns_visible(qp);
	struct mro_res_snap *s;
	struct nlattr *nest;
	u16 i;
	int err = -EMSGSIZE;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	spin_lock_bh(&qp->lock);
	s->snd_una = qp->req.una;
	s->snd_nxt = qp->req.nxt;
	s->rcv_base = qp->resp.win.base;
	s->srtt_us = qp->req.srtt_us;
	s->rttvar_us = qp->req.rttvar_us;
	s->inflight = qp->req.nxt - qp->req.una;
	s->negotiation = mro_hello_state(&qp->hello);
	s->prot = qp->hello.ours.prot;
	s->key_id = qp->prot ? qp->prot->key_id : 0;
	if (qp->dgram) {	/* UD: the datagrams' seal */
		s->prot = qp->dgram->mode;
		s->key_id = qp->dgram->dir.key_id;
	}
	if (qp->sq) {
		s->sq_unfetched = (mro_queue_producer(qp->sq) - qp->sq_head) &
				  qp->sq->index_mask;
		s->sq_busy = qp->sq_cur_valid;
	}
	s->npaths = min_t(u16, qp->paths.n, MRO_RES_PATHS);
	for (i = 0; i < s->npaths; i++)
		s->path[i] = qp->paths.path[i];
	for (i = 0; i < qp->paths.n; i++) {
		s->retired += qp->paths.path[i].retired;
		s->revived += qp->paths.path[i].revived;
	}
	spin_unlock_bh(&qp->lock);

	nest = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!nest)
		goto out;
	if (rdma_nl_put_driver_u32(msg, "paths", qp->paths.n) ||
	    rdma_nl_put_driver_string(msg, "sched", qp->paths.sched->name) ||
	    rdma_nl_put_driver_string(msg, "negotiation", s->negotiation) ||
	    rdma_nl_put_driver_string(msg, "protection",
				      mro_prot_name((enum mro_prot)s->prot)) ||
	    (s->prot && rdma_nl_put_driver_u32(msg, "key_id", s->key_id)) ||
	    (psns &&
	     (rdma_nl_put_driver_u32_hex(msg, "snd_una", s->snd_una) ||
	      rdma_nl_put_driver_u32_hex(msg, "snd_nxt", s->snd_nxt))) ||
	    rdma_nl_put_driver_u32(msg, "inflight", s->inflight) ||
	    rdma_nl_put_driver_u32(msg, "sq_unfetched", s->sq_unfetched) ||
	    rdma_nl_put_driver_u32(msg, "sq_busy", s->sq_busy) ||
	    (psns &&
	     rdma_nl_put_driver_u32_hex(msg, "rcv_psn", s->rcv_base)) ||
	    rdma_nl_put_driver_u32(msg, "srtt_us", s->srtt_us) ||
	    rdma_nl_put_driver_u32(msg, "rttvar_us", s->rttvar_us) ||
	    rdma_nl_put_driver_u64(msg, "paths_retired", s->retired) ||
	    rdma_nl_put_driver_u64(msg, "paths_revived", s->revived))
		goto cancel;
	for (i = 0; i < s->npaths; i++)
		if (mro_put_path(msg, i, &s->path[i], psns))
			goto cancel;
	mro_cc_fill_res(msg, qp, psns);	/* what fits, after the paths */
	nla_nest_end(msg, nest);
	err = 0;
	goto out;
cancel:
	nla_nest_cancel(msg, nest);
out:
	kfree(s);
	return err;
}
