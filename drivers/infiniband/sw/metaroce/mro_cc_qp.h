/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * metaroce congestion control glue: per-device parameters (module
 * parameters, sysfs), per-QP sender/receiver state, and the hooks the
 * transport calls.  See Documentation/metaroce/congestion.rst.
 */
#ifndef MRO_CC_QP_H
#define MRO_CC_QP_H

#include <linux/hrtimer.h>
#include <linux/sysfs.h>

#include "mro_cc.h"
#include "mro_credit.h"
#include "mro_rxverdict.h"

struct mro_dev;
struct mro_qp;
struct mro_hdr;
struct mro_ack_hdr;
struct mro_ctrl_hdr;
struct sk_buff;

/* per device */
struct mro_cc_dev {
	u32 algo;			/* mro_cc_ops.id for QPs entering RTS */
	struct mro_cc_params params;
	/* each registered algorithm's parameters, by its slot */
	struct mro_cc_aparams aparams[MRO_CC_SLOTS];
	u32 aparams_id[MRO_CC_SLOTS];	/* the algorithm each block is for */
	struct mro_credit_pool pool;
};

/* per QP, under qp->lock */
struct mro_cc_qp {
	bool on;			/* RC QP past RTS: sender CC runs */
	struct mro_cc cc;
	struct mro_credit_tx ctx;	/* requester: our grant */
	struct mro_credit_rx crx;	/* responder: what we granted */
	u32 sacked;			/* acknowledged PSNs past snd_una */
	bool rto_retx;			/* an RTO's resend skips the window */
	bool cwnd_closed;		/* new data waits for a share free */
	bool credit_closed;		/* ... for a part of the grant free */
	u32 idle_us;			/* responder: credit timer interval */
	u64 pace_next_ns;
	u64 pace_rate;			/* bytes/s, 0: unpaced */
	struct hrtimer pace_timer;
	struct hrtimer credit_timer;
};

extern const struct attribute_group mro_cc_attr_group;

/* mro_cc_param.c */
int mro_cc_module_init(void);
void mro_cc_dev_init(struct mro_dev *dev);
/*
 * The device's algorithm for a QP entering RTS, with a reference on its
 * owner (mro_cc_put()), and its parameter block in *@ap
 */
const struct mro_cc_ops *mro_cc_dev_algo(struct mro_cc_dev *d,
					 const void **ap);

/* QP lifetime (mro_qp.c) */
void mro_cc_qp_create(struct mro_qp *qp);
void mro_cc_qp_destroy(struct mro_qp *qp);
void mro_cc_qp_state(struct mro_qp *qp, int new_state);

/* receive path: CE of the outer IP header (mro_net.c) */
bool mro_cc_skb_ce(struct sk_buff *skb);

/* requester (qp->lock held) */
bool mro_cc_may_send(struct mro_qp *qp, u32 npsn);
u32 mro_cc_read_burst(struct mro_qp *qp, u32 n);
bool mro_cc_may_retx(struct mro_qp *qp);
void mro_cc_sent(struct mro_qp *qp, u32 bytes);
/* a tx slot became acknowledged; snd_una moved past an acknowledged one */
void mro_cc_slot_acked(struct mro_qp *qp);
void mro_cc_una_passed(struct mro_qp *qp);
bool mro_cc_ack_req(struct mro_qp *qp, u32 psn);
/* the reorder timer declared PSNs lost (qp->req.lost was @old_lost) */
void mro_cc_loss(struct mro_qp *qp, u32 old_lost);
void mro_cc_ack(struct mro_qp *qp, const struct mro_hdr *hdr, u32 old_una,
		u32 old_lost);
void mro_cc_resp(struct mro_qp *qp, u32 old_una, bool ce);
void mro_cc_timeout(struct mro_qp *qp);
void mro_cc_run_after(struct mro_qp *qp, u64 ns);
void mro_cc_rto_verdict(struct mro_qp *qp, bool spurious);
enum mro_rx_verdict mro_cc_credit_rcv(struct mro_qp *qp, u32 psn,
				      const struct mro_ctrl_hdr *c);

/* responder (qp->lock held) */
void mro_cc_rx(struct mro_qp *qp, const struct mro_hdr *hdr);
u32 mro_cc_grant(struct mro_qp *qp);

/* rdma resource show qp -dd: adds what fits, never fails */
void mro_cc_fill_res(struct sk_buff *msg, struct mro_qp *qp, bool psns);

#endif /* MRO_CC_QP_H */
